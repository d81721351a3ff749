//! `docnav shell`. Placeholder.
