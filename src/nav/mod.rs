//! The command language (DESIGN.md §4). Placeholder.
