//! lmbias-model's integration tests, one binary (as ripgrep does): each module
//! below was a test binary of its own, and each linked the whole dependency tree.

mod errors;
mod never_panics;
mod train;
mod wgpu_parity;
