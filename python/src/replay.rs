//! `docnav.replay(trace, workspace)`: re-run a recorded navigation without a model and say
//! whether it is identical, as `docnav replay FILE` does.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;

use docnav::trace::read_trace;
use docnav::trace::replay::verdict::{judge, missing_refusal, notes, version_refusal};
use docnav::workspace::{Library, Workspace};

use crate::errors::Error;
use crate::results::ReplayReport;

/// Replay the trace at `trace_path` over the workspace at `workspace`; returns its report
/// (the verdict's status and details, and notes on the documents). Errors: `ReplayError` for an
/// unreadable trace, one of an older format, or one whose documents are no longer indexed;
/// `WorkspaceError` for the workspace.
#[pyfunction]
pub fn replay(py: Python<'_>, trace_path: PathBuf, workspace: PathBuf) -> PyResult<ReplayReport> {
    let (label, verdict, notes) = py.detach(|| -> Result<_, Error> {
        let trace = read_trace(&trace_path).map_err(|e| Error::Replay(e.to_string()))?;
        let label = trace_path.display().to_string();
        if let Some(why) = version_refusal(&trace, &label) {
            return Err(Error::Replay(format!("{} (hint: {})", why.error, why.hint)));
        }
        let ws = Workspace::open(&workspace)?;
        if let Some(why) = missing_refusal(&trace, &label, &ws) {
            return Err(Error::Replay(format!("{} (hint: {})", why.error, why.hint)));
        }
        let library: Arc<dyn Library> = Arc::new(ws);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")))?;
        let outcome = runtime.block_on(docnav::trace::replay::replay(&trace, library.clone()));
        let verdict = judge(&trace, &outcome);
        let notes = notes(&trace, library.as_ref(), Some(&outcome));
        Ok((label, verdict, notes))
    })?;
    ReplayReport::of(py, label, &verdict, notes)
}
