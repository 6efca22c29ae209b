//! `lmbias train-mlm`: continue a BERT checkpoint on a corpus, or train one
//! from scratch, into a Hugging Face folder (lmbias_model::train does the work).

use std::path::PathBuf;

use anyhow::Context;
use lmbias_frontend::Bar;
use lmbias_runs::DeviceKind;
use lmbias_runs::data::corpus::Corpus;
use lmbias_runs::train::{AddWords, BertShape, CorpusText, Progress, Run, Start, TrainSettings};

use crate::output::outln;

#[derive(clap::Args, Debug)]
pub struct TrainMlmArgs {
    /// Training text: one passage a line (blank lines skipped), or .jsonl with a "text" field.
    #[arg(long)]
    corpus: PathBuf,
    /// The folder to write (must not exist); it appears only when complete.
    #[arg(long)]
    output: PathBuf,
    /// Continue this BERT checkpoint (folder, HF cache or hub id); an encoder without an MLM head gets a fresh one, tied to its word embeddings.
    #[arg(long, required_unless_present = "scratch", conflicts_with = "scratch")]
    from: Option<String>,
    /// Train from random weights, with the tokenizer of --tokenizer.
    #[arg(long, requires = "tokenizer")]
    scratch: bool,
    /// A folder with tokenizer.json, vocab.txt or spiece.model (with --scratch).
    #[arg(long, requires = "scratch")]
    tokenizer: Option<PathBuf>,
    /// Transformer layers (with --scratch).
    #[arg(long, default_value_t = 2)]
    layers: usize,
    /// Hidden size (with --scratch).
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    /// Attention heads (with --scratch).
    #[arg(long, default_value_t = 2)]
    heads: usize,
    /// Feed-forward size (with --scratch).
    #[arg(long, default_value_t = 512)]
    intermediate: usize,
    /// Learned positions, the longest input (with --scratch).
    #[arg(long, default_value_t = 128)]
    max_positions: usize,
    /// Tokens per packed sequence.
    #[arg(long, default_value_t = TrainSettings::default().max_len)]
    max_len: usize,
    /// Sequences per step.
    #[arg(long, default_value_t = TrainSettings::default().batch)]
    batch: usize,
    /// Optimizer steps.
    #[arg(long, default_value_t = TrainSettings::default().steps)]
    steps: usize,
    /// Peak learning rate (AdamW).
    #[arg(long, default_value_t = TrainSettings::default().lr)]
    lr: f64,
    /// Linear warm-up steps; then linear decay to 0.
    #[arg(long, default_value_t = TrainSettings::default().warmup_steps)]
    warmup_steps: usize,
    /// AdamW weight decay.
    #[arg(long, default_value_t = TrainSettings::default().weight_decay)]
    weight_decay: f64,
    /// Clip the global gradient norm to this (0: off).
    #[arg(long, default_value_t = TrainSettings::default().clip)]
    clip: f64,
    /// Seed of the split, order, masking, dropout and fresh weights.
    #[arg(long, default_value_t = TrainSettings::default().seed)]
    seed: u64,
    /// Share of tokens chosen for prediction (80 % [MASK], 10 % random, 10 % kept).
    #[arg(long, default_value_t = TrainSettings::default().mlm_probability)]
    mlm_probability: f64,
    /// Choose whole words instead of pieces.
    #[arg(long)]
    whole_word: bool,
    /// Make whole words vocabulary entries first (WordPiece): N, the N most frequent words of the training text that the tokenizer cuts into pieces; or FILE, a list (one word a line). Each new embedding starts as the mean of its pieces'.
    #[arg(long, value_name = "N|FILE")]
    add_words: Option<String>,
    /// Share of passages held out for accuracy and pseudo-perplexity.
    #[arg(long, default_value_t = TrainSettings::default().held_out)]
    held_out: f64,
    /// Print one line every N steps when stderr is not a terminal.
    #[arg(long, default_value_t = 50)]
    log_every: usize,
    /// Save a checkpoint (OUTPUT.checkpoint/) every N steps (0: never).
    #[arg(long, default_value_t = TrainSettings::default().checkpoint_every)]
    checkpoint_every: usize,
    /// Continue from the checkpoint in OUTPUT.checkpoint/.
    #[arg(long)]
    resume: bool,
    /// cpu, or wgpu (a build with the `wgpu` feature).
    #[arg(long, default_value = "cpu")]
    device: DeviceKind,
}

pub fn run(args: TrainMlmArgs) -> anyhow::Result<()> {
    // The device first: a build or machine without it fails before the corpus is read.
    lmbias_runs::compute(args.device, lmbias_runs::Precision::F32)
        .with_context(|| format!("--device {}", args.device))?;
    let corpus = Corpus::read(&args.corpus)?;
    let start = match (&args.from, &args.tokenizer) {
        (Some(model), _) => Start::Continue(
            lmbias_runs::checkpoint(model).with_context(|| format!("--from {model}"))?,
        ),
        (None, Some(tokenizer)) => Start::Scratch {
            tokenizer: tokenizer.clone(),
            shape: BertShape {
                layers: args.layers,
                hidden: args.hidden,
                heads: args.heads,
                intermediate: args.intermediate,
                max_positions: args.max_positions,
            },
        },
        (None, None) => unreachable!("clap requires --from or --scratch --tokenizer"),
    };
    let add_words = match &args.add_words {
        Some(arg) => lmbias_runs::train::add_words(arg)?,
        None => AddWords::None,
    };
    let settings = TrainSettings {
        max_len: args.max_len,
        batch: args.batch,
        steps: args.steps,
        lr: args.lr,
        warmup_steps: args.warmup_steps,
        weight_decay: args.weight_decay,
        clip: args.clip,
        seed: args.seed,
        mlm_probability: args.mlm_probability,
        whole_word: args.whole_word,
        held_out: args.held_out,
        checkpoint_every: args.checkpoint_every,
        add_words,
    };
    let name = corpus.path().display().to_string();
    let text = CorpusText {
        name: &name,
        sha256: corpus.sha256(),
        passages: corpus.passages(),
    };
    let run = Run::new(&start, text, settings, args.device)?;
    let mut show = Display::new(args.steps, args.log_every);
    let trained = run.train(&args.output, args.resume, &mut |p| show.step(p))?;
    show.finish();
    for copy in &trained.removed {
        eprintln!(
            "removed {}: a copy of the checkpoint an interrupted run left",
            copy.display()
        );
    }
    let (report, timing) = (&trained.report, &trained.timing);
    match &report.held_out {
        Some(h) => outln!(
            "{}: {} steps, {:.0} tokens/s; held out: accuracy {:.4}, pseudo-perplexity {:.2}",
            args.output.display(),
            report.settings.steps,
            timing.tokens_per_s,
            h.accuracy,
            h.pseudo_perplexity
        )?,
        None => outln!(
            "{}: {} steps, {:.0} tokens/s",
            args.output.display(),
            report.settings.steps,
            timing.tokens_per_s
        )?,
    }
    Ok(())
}

/// A bar with loss and tokens/s on a terminal; one line per `every` steps otherwise.
enum Display {
    Bar(Bar),
    Lines { every: usize },
}

impl Display {
    fn new(steps: usize, every: usize) -> Self {
        if lmbias_frontend::is_terminal() {
            Display::Bar(Bar::count(Some(steps as u64), "steps"))
        } else {
            Display::Lines {
                every: every.max(1),
            }
        }
    }

    fn step(&mut self, p: &Progress) {
        match self {
            Display::Bar(bar) => {
                bar.set_position(p.step as u64);
                bar.set_message(format!(
                    "loss {:.3}, {:.0} tokens/s",
                    p.loss, p.tokens_per_s
                ));
            }
            Display::Lines { every } => {
                if p.step.is_multiple_of(*every) || p.step == p.steps {
                    eprintln!(
                        "step {}/{}: loss {:.4}, lr {:.2e}, {:.0} tokens/s",
                        p.step, p.steps, p.loss, p.lr, p.tokens_per_s
                    );
                }
            }
        }
    }

    fn finish(&self) {
        if let Display::Bar(bar) = self {
            bar.finish();
        }
    }
}
