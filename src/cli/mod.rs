//! Command line (DESIGN.md §8).

use std::process::ExitCode;

/// Parse arguments and run. Placeholder.
pub fn run() -> anyhow::Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}
