//! The shell in Node: `wasm-pack test --node --test node`.
#![cfg(target_arch = "wasm32")]

const RUNTIME: &str = "node";

mod shell;
