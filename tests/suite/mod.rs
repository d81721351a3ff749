pub mod parse_pdf;
