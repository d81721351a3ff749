//! Integration tests, compiled as one binary (STYLE.md "Tests").

mod suite;
mod support;
