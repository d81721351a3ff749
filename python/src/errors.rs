//! The exceptions: `DocnavError` and one subclass per kind of failure, each carrying the CLI's
//! one-line message (what went wrong, naming the input, and what to do), and [`Error`], the one
//! type every fallible call of the extension returns, with the one mapping to a Python exception
//! (`From<Error> for PyErr`).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use docnav::agent::lexical::LexicalError;
use docnav::llm::{LlmError, SettingNames};
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
    "The workspace is missing, damaged, older than this docnav, closed, or has no such document."
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

/// A failure of the extension, by the exception it becomes.
#[derive(Debug)]
pub enum Error {
    /// The workspace (missing, damaged, older, unknown document, unusable search index):
    /// `WorkspaceError`.
    Workspace(String),
    /// The model (none configured, the server failed): `ModelError`. Its hints name the
    /// settings as keyword arguments ([`SETTING_NAMES`]: `model=`, not the CLI's `--model`).
    Model(String),
    /// A navigation command reported an error: `CommandError`.
    Command(String),
    /// A trace cannot be replayed: `ReplayError`.
    Replay(String),
    /// Anything else (a cancelled run, a runtime that cannot start): `DocnavError`.
    Other(String),
}

impl From<CoreWorkspaceError> for Error {
    fn from(e: CoreWorkspaceError) -> Error {
        Error::Workspace(e.to_string())
    }
}

impl From<NavError> for Error {
    fn from(e: NavError) -> Error {
        Error::Workspace(e.to_string())
    }
}

impl From<LexicalError> for Error {
    fn from(e: LexicalError) -> Error {
        Error::Workspace(e.to_string())
    }
}

/// The model settings as `Workspace.ask` names them (its keyword arguments), for the hints of
/// model errors.
pub const SETTING_NAMES: SettingNames = SettingNames {
    model: "`model=`",
    base_url: "`base_url=`",
    timeout: "`timeout=`",
    no_json_schema: "`json_schema=False`",
};

impl From<LlmError> for Error {
    fn from(e: LlmError) -> Error {
        Error::Model(e.message(&SETTING_NAMES))
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Error {
        Error::Other(e.to_string())
    }
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Workspace(m) => WorkspaceError::new_err(m),
            Error::Model(m) => ModelError::new_err(m),
            Error::Command(m) => CommandError::new_err(m),
            Error::Replay(m) => ReplayError::new_err(m),
            Error::Other(m) => DocnavError::new_err(m),
        }
    }
}
