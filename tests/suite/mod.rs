pub mod cli_index;
pub mod common;
pub mod nav;
