//! lmbias-studies's integration tests, one binary (as ripgrep does): each module
//! below was a test binary of its own, and each linked the whole dependency tree.

mod crows;
mod seat;
mod valence;
