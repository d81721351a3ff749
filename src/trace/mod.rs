//! Traces (DESIGN.md §7). Placeholder.
