//! PDF parser (lopdf). Placeholder until the PDF parser lands.

use std::path::Path;

use super::{ParseError, ParsedDoc};

/// Parse PDF bytes. Errors: [`ParseError::Pdf`] naming `path`.
pub fn parse_pdf(path: &Path, _bytes: &[u8]) -> Result<ParsedDoc, ParseError> {
    Err(ParseError::Pdf {
        path: path.to_path_buf(),
        reason: "PDF support is not built yet".into(),
    })
}
