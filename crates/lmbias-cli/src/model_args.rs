//! The options every model-running subcommand shares: which model, which device.

use anyhow::Context;
use lmbias_model::{Checkpoint, DeviceKind};

#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    /// Model folder, or a Hugging Face id (ORG/NAME) found in the Hugging Face cache.
    #[arg(long)]
    pub model: String,
    /// Where to run the model: cpu, or wgpu (needs a build with `--features wgpu`).
    #[arg(long, default_value = "cpu")]
    pub device: DeviceKind,
}

impl ModelArgs {
    pub fn checkpoint(&self) -> anyhow::Result<Checkpoint> {
        Checkpoint::resolve(&self.model).with_context(|| format!("--model {}", self.model))
    }
}
