//! Print the text docnav extracts from a PDF, section by section (each section's text, a blank
//! line between; the titles are not printed: a section's text holds its printed heading), as
//! the model reads it: `cargo run --release --example pdf_text -- FILE.pdf`.
//! `bench/pdf_punct` compares it with pdftotext.

use std::path::PathBuf;
use std::process::ExitCode;

use docnav::parse::pdf::parse_pdf;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: pdf_text FILE.pdf");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let parsed = match parse_pdf(&path, &bytes) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let mut out = String::new();
    out.push_str(&parsed.preamble.content);
    for section in &parsed.sections {
        out.push('\n');
        out.push_str(&section.content);
    }
    println!("{out}");
    ExitCode::SUCCESS
}
