//! `cargo xtask`: lmbias's automation, in plain Rust (rust-analyzer style).
fn main() {}
