//! xtask's integration tests, one binary (as ripgrep does): each module below was a
//! test binary of its own, and each linked the whole dependency tree.

mod hub;
mod slurm;
mod support;
mod tiny;
