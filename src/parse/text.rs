//! Plain-text parser. Placeholder until the text parser lands: the whole
//! document becomes the root's content.

use super::{ParsedDoc, RawSection};
use crate::tree::DocFormat;

/// Parse plain text into sections. Never fails.
pub fn parse_text(text: &str) -> ParsedDoc {
    let lines = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
    ParsedDoc {
        format: DocFormat::Text,
        title: None,
        metadata: Vec::new(),
        preamble: RawSection {
            content: text.to_string(),
            content_first_line: Some(1),
            lines: Some(1..lines + 1),
            ..RawSection::default()
        },
        sections: Vec::new(),
        pages_without_text: Vec::new(),
        source_units: lines,
        warnings: Vec::new(),
    }
}
