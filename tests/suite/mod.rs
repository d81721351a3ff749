pub mod agent;
pub mod cli_index;
pub mod common;
pub mod eval;
pub mod llm;
pub mod parse_md;
pub mod parse_pdf;
pub mod trace;
