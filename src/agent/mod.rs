//! The agent (DESIGN.md §6). Placeholder.

pub mod evidence;
pub mod lexical;
