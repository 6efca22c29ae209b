//! lmbias-cli's integration tests, one binary (as ripgrep does): each module
//! below was a test binary of its own, and each linked the whole dependency tree.

mod contract;
mod crows;
mod draw;
mod families;
mod input;
mod model_commands;
mod probe_command;
mod robustness;
mod seat_cli;
mod static_models;
mod support;
mod train_mlm;
mod valence;
mod weat_cli;
mod wgpu;
