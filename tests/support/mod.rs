//! Test support shared by the integration suites: the fake model server, generated PDFs.
// Not every suite uses every helper.
#![allow(dead_code)]

pub mod fake_model;
pub mod pdf_bomb;
