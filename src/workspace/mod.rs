//! The workspace (DESIGN.md §3): a directory with a catalog of DocCards and one tree file per
//! document. Placeholder until the on-disk workspace lands.

pub mod document;

pub use document::{fingerprint, slugify, BuiltDocument, Document, InMemoryLibrary, Library};

/// Workspace failures (fatal for a command).
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// No document with this id.
    #[error("document not found: {0}")]
    NotFound(String),
}

/// `base` if `taken(base)` is false, else `base-2`, `base-3`, … the first free one.
pub fn unique_slug(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken(c))
        .unwrap_or_else(|| base.to_string())
}
