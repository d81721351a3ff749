//! `docnav._native.Session`: the shell's language from Python — a cursor that `cd` moves and the
//! evidence `cat` collects, over one opened version of the workspace.

use pyo3::prelude::*;

use docnav::agent::evidence::Evidence;
use docnav::nav::lexer::quote_word;
use docnav::nav::{Session as NavSession, Status};

use crate::errors;

/// A navigation session.
#[pyclass(module = "docnav._native")]
pub struct Session {
    inner: NavSession,
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
        let mut session = Session { inner };
        if cwd != "/" {
            session.exec(py, &format!("cd {}", quote_word(cwd)))?;
        }
        Ok(session)
    }
}

#[pymethods]
impl Session {
    /// Run one command line; returns its output. Errors: `CommandError` when the command reports
    /// one (the session is unchanged), `WorkspaceError` when a document cannot be loaded.
    fn exec(&mut self, py: Python<'_>, command: &str) -> PyResult<String> {
        let inner = &mut self.inner;
        py.detach(|| {
            let out = inner.execute(command).map_err(errors::nav)?;
            if out.status == Status::Error {
                return Err(errors::CommandError::new_err(out.text));
            }
            Ok(out.text)
        })
    }

    /// The current path (`/doc_id/#2.1`).
    #[getter]
    fn cwd(&self) -> PyResult<String> {
        self.inner.pwd().map_err(errors::nav)
    }

    /// The evidence `cat` collected so far, as a JSON array of evidence items (doc_id, path,
    /// structure, lines/pages, text, score 0).
    fn evidence_json(&self, py: Python<'_>) -> PyResult<String> {
        let inner = &self.inner;
        py.detach(|| {
            let library = inner.library();
            let mut items = Vec::new();
            for read in inner.evidence() {
                let doc = library.document(&read.doc_id).map_err(errors::workspace)?;
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
            serde_json::to_string(&items).map_err(|e| errors::other(e.to_string()))
        })
    }

    /// Forget the collected evidence.
    fn clear_evidence(&mut self) {
        self.inner.take_evidence();
    }
}
