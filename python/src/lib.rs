//! `docnav._native`: the Python extension of docnav (PyO3, abi3 for CPython ≥ 3.9).
//!
//! A thin face over the stages, like `cli/` and `mcp/`: it opens workspaces, runs commands, searches
//! and asks through the same functions the binary calls. Search hits and index reports reach Python as
//! objects built here ([`results`]); the other structured results still cross as JSON text (the shapes of
//! `docnav … --json`), which the pure-Python layer (`docnav/_types.py`) turns into typed
//! dataclasses. Long work (indexing, searching, asking) runs with the GIL released.

use pyo3::prelude::*;

mod ask;
mod cluster;
mod errors;
mod replay;
mod results;
mod session;
mod workspace;

/// The module `docnav._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    cluster::register(m)?;
    m.add_class::<workspace::Workspace>()?;
    m.add_class::<session::Session>()?;
    m.add_class::<ask::AskHandle>()?;
    m.add_class::<results::SearchHit>()?;
    m.add_class::<results::IndexReport>()?;
    m.add_function(wrap_pyfunction!(replay::replay_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
