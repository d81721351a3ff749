//! `docnav._native.Session`: the shell's language from Python — a cursor that `cd` moves and the
//! evidence `cat` collects, over one opened version of the workspace. One session may be shared
//! by threads: a lock runs their commands one at a time, each as a whole.

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;

use docnav::agent::evidence::Evidence;
use docnav::nav::lexer::quote_word;
use docnav::nav::{Session as NavSession, Status};

use crate::errors::Error;
use crate::results;

/// A navigation session.
#[pyclass(module = "docnav._native", frozen)]
pub struct Session {
    inner: Mutex<NavSession>,
}

/// The session behind `m`; a command that panicked mid-way leaves a session whose state is
/// still a valid one (commands change it only when they succeed), so a poisoned lock is used.
fn lock(m: &Mutex<NavSession>) -> MutexGuard<'_, NavSession> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Run `command` on `session`; its output, or `CommandError` when it reports an error.
fn run(session: &mut NavSession, command: &str) -> Result<String, Error> {
    let out = session.execute(command)?;
    if out.status == Status::Error {
        return Err(Error::Command(out.text));
    }
    Ok(out.text)
}

impl Session {
    /// A session over `session`'s workspace, moved to `cwd`, with an output `budget` in chars.
    /// Errors: `CommandError` when `cwd` does not resolve.
    pub fn start(
        py: Python<'_>,
        session: NavSession,
        cwd: &str,
        budget: Option<usize>,
    ) -> PyResult<Session> {
        let mut inner = session;
        if let Some(b) = budget {
            inner = inner.with_budget(b.max(1));
        }
        if cwd != "/" {
            py.detach(|| run(&mut inner, &format!("cd {}", quote_word(cwd))))?;
        }
        Ok(Session {
            inner: Mutex::new(inner),
        })
    }
}

#[pymethods]
impl Session {
    /// Run one command line; returns its output. Errors: `CommandError` when the command reports
    /// one (the session is unchanged), `WorkspaceError` when a document cannot be loaded.
    fn exec(&self, py: Python<'_>, command: &str) -> PyResult<String> {
        Ok(py.detach(|| run(&mut lock(&self.inner), command))?)
    }

    /// The current path (`/doc_id/#2.1`).
    #[getter]
    fn cwd(&self, py: Python<'_>) -> PyResult<String> {
        Ok(py.detach(|| lock(&self.inner).pwd().map_err(Error::from))?)
    }

    /// The evidence `cat` collected so far, in reading order, with exact locations (score 0).
    fn evidence(&self, py: Python<'_>) -> PyResult<Vec<results::Evidence>> {
        let items = py.detach(|| -> Result<Vec<Evidence>, Error> {
            let inner = lock(&self.inner);
            let library = inner.library();
            let mut items = Vec::new();
            for read in inner.evidence() {
                let doc = library.document(&read.doc_id)?;
                let text: String = doc
                    .tree
                    .text_of(read.node)
                    .chars()
                    .skip(read.chars.start)
                    .take(read.chars.end.saturating_sub(read.chars.start))
                    .collect();
                if let Some(e) =
                    Evidence::from_read(&read.doc_id, &doc.tree, read.node, &read.chars, text, 0.0)
                {
                    items.push(e);
                }
            }
            Ok(items)
        })?;
        items.iter().map(|e| results::Evidence::of(py, e)).collect()
    }

    /// Forget the collected evidence.
    fn clear_evidence(&self, py: Python<'_>) {
        py.detach(|| {
            lock(&self.inner).take_evidence();
        });
    }
}
