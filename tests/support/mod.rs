//! Test support shared by the integration suites: the fake model server, generated PDFs.
// Not every suite uses every helper.
#![allow(dead_code)]

pub mod browser;
pub mod fake_model;
pub mod fault_server;
pub mod oracle;
pub mod pandoc;
pub mod pdf_bomb;
pub mod server;
pub mod zip_bomb;
