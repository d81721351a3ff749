//! docnav: vectorless, reasoning-based retrieval. Documents become heading trees ([`tree`]) that a
//! person ([`repl`]) or an LLM agent ([`agent`]) navigates with one command language ([`nav`]).

pub mod agent;
pub mod cli;
pub mod digest;
pub mod durable;
pub mod eval;
pub mod index;
pub mod llm;
pub mod mcp;
pub mod nav;
pub mod parse;
pub mod repl;
pub mod serve;
pub mod trace;
pub mod tree;
pub mod workspace;
