pub mod cli_index;
pub mod common;
pub mod llm;
pub mod nav;
pub mod parse_md;
pub mod shell;
