pub mod parse_md;
