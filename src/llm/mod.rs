//! The model boundary (DESIGN.md §5). Placeholder.
