//! The agent (DESIGN.md §6). Placeholder.
