//! The exceptions: `DocnavError` and one subclass per kind of failure, each carrying the CLI's
//! one-line message (what went wrong, naming the input, and what to do).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use docnav::llm::LlmError;
use docnav::nav::NavError;
use docnav::workspace::WorkspaceError as CoreWorkspaceError;

create_exception!(
    docnav,
    DocnavError,
    PyException,
    "Base of every docnav error; str(e) is the CLI's one-line message."
);
create_exception!(
    docnav,
    WorkspaceError,
    DocnavError,
    "The workspace is missing, damaged, older than this docnav, or has no such document."
);
create_exception!(
    docnav,
    ModelError,
    DocnavError,
    "No model configured, or the model server failed (after retries) or replied garbage."
);
create_exception!(
    docnav,
    CommandError,
    DocnavError,
    "A navigation command reported an error (unknown path, bad option…); the message says which."
);
create_exception!(
    docnav,
    ReplayError,
    DocnavError,
    "A trace could not be replayed: unreadable, of an older format, or its documents are gone."
);

/// Add the exception classes to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DocnavError", py.get_type::<DocnavError>())?;
    m.add("WorkspaceError", py.get_type::<WorkspaceError>())?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    m.add("CommandError", py.get_type::<CommandError>())?;
    m.add("ReplayError", py.get_type::<ReplayError>())?;
    Ok(())
}

/// A workspace failure as `WorkspaceError`.
pub fn workspace(e: CoreWorkspaceError) -> PyErr {
    WorkspaceError::new_err(e.to_string())
}

/// A failure to load what a command needs, as `WorkspaceError`.
pub fn nav(e: NavError) -> PyErr {
    WorkspaceError::new_err(e.to_string())
}

/// A model failure as `ModelError`. The CLI's hint names its flags; from Python they are
/// keyword arguments (`--model` is `model=`, `--base-url` is `base_url=`).
pub fn model(e: LlmError) -> PyErr {
    let message = e
        .to_string()
        .replace("`--model`", "`model=`")
        .replace("`--base-url`", "`base_url=`");
    ModelError::new_err(message)
}

/// Any other failure, as the base class.
pub fn other(message: impl Into<String>) -> PyErr {
    DocnavError::new_err(message.into())
}
