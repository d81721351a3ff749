//! Integration tests, compiled as one binary (STYLE.md "Tests").
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
