pub mod cli_index;
pub mod common;
pub mod parse_md;
