//! lmbias-fetch's integration tests, one binary (as ripgrep does).

mod hub;
