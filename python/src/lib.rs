//! `docnav._native`: the Python extension of docnav (PyO3, abi3 for CPython ≥ 3.9).
//!
//! A thin face over the stages, like `cli/` and `mcp/`: it opens workspaces, runs commands,
//! searches and asks through the same functions the binary calls. Results reach Python as frozen
//! objects built here (`results`), declared once (here and in the stub `docnav/_native.pyi`); only
//! a cluster shard's statistics and hits cross as JSON text (between shards, not to the user). Long
//! work (indexing, searching, asking) runs with the GIL released.

use pyo3::prelude::*;

mod ask;
mod cluster;
mod errors;
mod replay;
mod results;
mod session;
mod sharded;
mod workspace;

/// The module `docnav._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    cluster::register(m)?;
    sharded::register(m)?;
    m.add_class::<workspace::Workspace>()?;
    m.add_class::<session::Session>()?;
    m.add_class::<ask::AskHandle>()?;
    m.add_class::<results::SearchHit>()?;
    m.add_class::<results::IndexReport>()?;
    m.add_class::<results::Releases>()?;
    m.add_class::<results::Period>()?;
    m.add_class::<results::DocCard>()?;
    m.add_class::<results::RankedDoc>()?;
    m.add_class::<results::Node>()?;
    m.add_class::<results::Evidence>()?;
    m.add_class::<results::Verdict>()?;
    m.add_class::<results::WorkerFailure>()?;
    m.add_class::<results::WorkerStats>()?;
    m.add_class::<results::AskStats>()?;
    m.add_class::<results::AnswerSentence>()?;
    m.add_class::<results::WrittenAnswer>()?;
    m.add_class::<results::Answer>()?;
    m.add_class::<results::ReplayReport>()?;
    m.add_function(wrap_pyfunction!(replay::replay, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
