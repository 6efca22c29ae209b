//! lmbias-metrics's integration tests, one binary (as ripgrep does): each module
//! below was a test binary of its own, and each linked the whole dependency tree.

mod agreement;
mod binomial;
mod sign_flip_api;
mod snapshots;
mod weat_api;
