//! Masked-language-model training: continue a BERT checkpoint on new
//! text (domain adaptation) or train one from scratch, then write a Hugging
//! Face folder that lmbias and transformers both load.
//!
//! The recipe is BERT's (Devlin et al. 2019, §3.1) as transformers' `run_mlm.py`
//! runs it: passages packed into blocks of `max_len`, 15 % of the tokens chosen
//! (80 % `[MASK]`, 10 % random, 10 % kept; special tokens never), the loss at
//! the chosen positions only, AdamW with linear warm-up and decay, the gradient
//! clipped to a global norm, dropout in train mode. The network is the
//! `BertForMaskedLm` that inference loads. On the CPU its training step runs
//! written out by hand (lmbias-kernels' `bert::Step`; its speed against Burn's
//! graph and PyTorch is in docs/benchmarks.md) on the parameters copied to the host
//! (`params`), which AdamW updates in place; the module gets them back for a
//! checkpoint, the evaluation and the export. On a GPU, or for a network the
//! hand-written step does not cover (`BertForMaskedLm::layout`), Burn's graph
//! computes the gradients. `equivalence` holds the two to the same numbers.

mod checkpoint;
mod data;
#[cfg(test)]
mod equivalence;
mod error;
mod evaluate;
mod export;
mod params;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use lmbias_core::quote;
use lmbias_kernels::AdamW;
use lmbias_kernels::bert::{self as kernels, Step};
use lmbias_text::{SplitWord, Tokenizer};
use serde::{Deserialize, Serialize};

pub use crate::bert::BertShape;
use crate::bert::{BertConfig, BertForMaskedLm};
use crate::checkpoint::{Architecture, Checkpoint};
use crate::device::DeviceKind;
use crate::error::ModelError;
use crate::network::{Batch, MaskedNetwork, Network};
use crate::weights::WeightsFile;
pub use error::TrainError;
pub use evaluate::{HeldOutScores, PPPL_SEQUENCES};

use data::{Blocks, Masking, Order};
use params::Store;

/// What the model starts from.
#[derive(Debug, Clone)]
pub enum Start {
    /// A BERT checkpoint lmbias loads; one without an MLM head (a
    /// sentence-transformers encoder) gets a fresh head, decoder tied to its
    /// word embeddings.
    Continue(Checkpoint),
    /// Random weights of `shape`, with the tokenizer of folder `tokenizer`.
    Scratch {
        /// A folder holding tokenizer.json, vocab.txt or spiece.model.
        tokenizer: PathBuf,
        /// Layers, widths and positions.
        shape: BertShape,
    },
}

/// Every setting of a run; two runs with equal settings, corpus and start
/// compute the same model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainSettings {
    /// Tokens per sequence, `[CLS]`/`[SEP]` of each passage included.
    pub max_len: usize,
    /// Sequences per step.
    pub batch: usize,
    /// Optimizer steps.
    pub steps: usize,
    /// Peak learning rate.
    pub lr: f64,
    /// Steps of linear warm-up from 0 to `lr`; then linear decay to 0 at `steps`.
    pub warmup_steps: usize,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f64,
    /// The global gradient norm is clipped to this (0: no clipping).
    pub clip: f64,
    /// Seeds the split, the order, the masking, dropout and fresh weights.
    pub seed: u64,
    /// Share of tokens chosen for prediction.
    pub mlm_probability: f64,
    /// Choose whole words rather than pieces.
    pub whole_word: bool,
    /// Share of passages held out for evaluation.
    pub held_out: f64,
    /// Steps between two checkpoints (0: none).
    pub checkpoint_every: usize,
    /// Whole words made vocabulary entries of their own before training.
    #[serde(default, skip_serializing_if = "AddWords::is_none")]
    pub add_words: AddWords,
}

/// Whole words added to a WordPiece vocabulary before training (`--add-words`): a period
/// model can propose *hath* only if *hath* is one piece. Each new embedding row starts as the
/// mean of the rows of the pieces the word was cut into (see `weights::Grown`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddWords {
    /// The vocabulary as it is.
    #[default]
    None,
    /// The N most frequent words of the training passages that the tokenizer cuts into two or
    /// more pieces (`--add-words N`).
    MostFrequent(usize),
    /// The words of a list (`--add-words FILE`): its path, and each word with its line.
    Listed {
        /// The list's path, for messages.
        file: String,
        /// (line, word), in file order.
        words: Vec<(usize, String)>,
    },
}

impl AddWords {
    fn is_none(&self) -> bool {
        *self == AddWords::None
    }

    /// `--add-words N|FILE` read as a count: `None` when `arg` is a word list's path (anything
    /// but a number), an error when it is a number that is no count (negative, too large, not
    /// whole: 1e3 is a count mistyped, not a file's name). Reading the list is the caller's
    /// (lmbias-runs' `train::add_words`): training takes the words, not a file format.
    pub fn count(arg: &str) -> Option<Result<AddWords, TrainError>> {
        let arg = arg.trim();
        let refuse = |message: String| TrainError::Setting {
            flag: "--add-words",
            value: lmbias_core::shorten(arg).into_owned(),
            message,
        };
        let digits = arg.strip_prefix(['+', '-']).unwrap_or(arg);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            if arg.starts_with('-') {
                return Some(Err(refuse("a count of words must be at least 1".into())));
            }
            return Some(
                digits
                    .parse::<usize>()
                    .map(AddWords::MostFrequent)
                    .map_err(|_| {
                        refuse(format!("a count of words must be at most {}", usize::MAX))
                    }),
            );
        }
        (arg.parse::<f64>().is_ok() && !std::path::Path::new(arg).exists()).then(|| {
            Err(refuse(
                "a count of words must be a whole number (or give a word list's path)".into(),
            ))
        })
    }
}

impl Default for TrainSettings {
    /// The settings of the period models (docs/benchmarks.md).
    fn default() -> Self {
        Self {
            max_len: 32,
            batch: 32,
            steps: 600,
            lr: 5e-4,
            warmup_steps: 60,
            weight_decay: 0.01,
            clip: 1.0,
            seed: 0,
            mlm_probability: 0.15,
            whole_word: false,
            held_out: 0.05,
            checkpoint_every: 200,
            add_words: AddWords::None,
        }
    }
}

impl TrainSettings {
    /// What to change when the loss stops being finite: the weight decay when it is past the
    /// usual range (0.01–0.1; above 1) and AdamW's decoupled decay alone (each weight times
    /// 1 − lr·decay per step) no longer shrinks the weights toward 0, else the learning rate.
    fn divergence_advice(&self) -> String {
        let factor = 1.0 - self.lr * self.weight_decay;
        if factor <= 0.0 && self.weight_decay > 1.0 {
            format!(
                "lower --weight-decay (now {}: with --lr {} each step multiplies every weight \
                 by 1 - lr × decay = {factor})",
                self.weight_decay, self.lr
            )
        } else {
            format!("lower --lr (now {})", self.lr)
        }
    }
}

/// The corpus a run reads: passages, with the name and digest its report keeps.
#[derive(Debug, Clone, Copy)]
pub struct CorpusText<'a> {
    /// Its path, for messages and the report.
    pub name: &'a str,
    /// sha256 of the file, for the report and for `--resume` to check.
    pub sha256: &'a str,
    /// One passage each.
    pub passages: &'a [String],
}

/// One optimizer step, for a progress display.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Steps done.
    pub step: usize,
    /// Steps in all.
    pub steps: usize,
    /// The step's loss (mean cross-entropy at the chosen tokens).
    pub loss: f64,
    /// The step's learning rate.
    pub lr: f64,
    /// Training tokens per second so far in this process.
    pub tokens_per_s: f64,
}

/// The file beside training.json that holds the run's [`Timing`]: how long it took on this
/// machine, which says nothing about what the model is, so a folder's digest leaves it out.
pub const TIMING_FILE: &str = "timing.json";

/// How long this process's share of a run took: written as [`TIMING_FILE`] beside
/// training.json, never inside it, so that the same weights trained on another machine or
/// at another load have the same training.json and folder digest.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Seconds of training in this process (evaluation excluded).
    pub seconds: f64,
    /// Training tokens per second (the report's `tokens / seconds`).
    pub tokens_per_s: f64,
}

/// What a run returns: what defines the model (training.json) and how long it took
/// (timing.json).
#[derive(Debug, Clone)]
pub struct Trained {
    /// training.json.
    pub report: TrainingReport,
    /// timing.json.
    pub timing: Timing,
    /// Copies of the checkpoint that interrupted runs left beside it and this run removed
    /// (half-written ones, and complete ones of fewer steps than the one resumed).
    pub removed: Vec<PathBuf>,
}

/// What a run did and how well the model predicts held-out text: written as
/// training.json (and training.md) into the output folder. Nothing in it depends on the
/// clock (that is [`Timing`]): the same inputs give the same report on every machine that
/// computes the same numbers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainingReport {
    /// The base checkpoint's name, or "scratch".
    pub start: String,
    /// The corpus's path and sha256.
    pub corpus: String,
    /// sha256 of the corpus file.
    pub corpus_sha256: String,
    /// Passages for training / held out.
    pub passages: [usize; 2],
    /// Sequences of `max_len` for training / held out.
    pub sequences: [usize; 2],
    /// The settings.
    pub settings: TrainSettings,
    /// The device name (`cpu`, `wgpu`).
    pub device: String,
    /// Whether the MLM head was freshly initialised (an encoder-only base).
    pub fresh_head: bool,
    /// Tokens through the network (batch × max_len × steps), this process's share.
    pub tokens: usize,
    /// The loss of each step, step 1 first (resumed runs included).
    pub losses: Vec<f64>,
    /// Held-out masked-token accuracy and pseudo-perplexity (`None` with `--held-out 0`).
    pub held_out: Option<HeldOutScores>,
    /// The step a `--resume` continued from, if any.
    pub resumed_from: Option<usize>,
    /// The words `--add-words` made vocabulary entries, with their ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added_words: Vec<AddedWord>,
}

/// A word added to the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedWord {
    /// The word as the vocabulary holds it.
    pub word: String,
    /// Its new id.
    pub id: u32,
    /// The pieces the start's tokenizer cut it into (its embedding's starting point).
    pub pieces: Vec<String>,
    /// Its occurrences in the training passages (0 for a listed word).
    pub count: usize,
}

/// A run's inputs, checked.
pub struct Run<'a> {
    start: &'a Start,
    corpus: CorpusText<'a>,
    settings: TrainSettings,
    device: DeviceKind,
    cancel: Option<&'a AtomicBool>,
}

impl<'a> Run<'a> {
    /// Checks what can be checked before any file is read.
    pub fn new(
        start: &'a Start,
        corpus: CorpusText<'a>,
        settings: TrainSettings,
        device: DeviceKind,
    ) -> Result<Self, TrainError> {
        let bad = |flag, value: String, message: &str| TrainError::Setting {
            flag,
            value,
            message: message.to_owned(),
        };
        let s = &settings;
        if let Start::Scratch { shape, .. } = start
            && let Some(option) = shape.zero_size()
        {
            return Err(bad(option, "0".to_owned(), "must be at least 1"));
        }
        if s.max_len < 3 {
            return Err(bad(
                "--max-len",
                s.max_len.to_string(),
                "a sequence needs at least 3 tokens",
            ));
        }
        if s.batch == 0 || s.steps == 0 {
            return Err(bad(
                "--batch/--steps",
                format!("{}/{}", s.batch, s.steps),
                "both must be above 0",
            ));
        }
        if !(s.lr.is_finite() && s.lr > 0.0) {
            return Err(bad("--lr", s.lr.to_string(), "must be a positive number"));
        }
        if !(s.mlm_probability > 0.0 && s.mlm_probability < 1.0) {
            return Err(bad(
                "--mlm-probability",
                s.mlm_probability.to_string(),
                "must be in (0, 1)",
            ));
        }
        if !(0.0..1.0).contains(&s.held_out) {
            return Err(bad(
                "--held-out",
                s.held_out.to_string(),
                "must be in [0, 1)",
            ));
        }
        if !(s.clip >= 0.0 && s.weight_decay >= 0.0) {
            return Err(bad(
                "--clip/--weight-decay",
                format!("{}/{}", s.clip, s.weight_decay),
                "must be at least 0",
            ));
        }
        if s.add_words == AddWords::MostFrequent(0) {
            return Err(bad(
                "--add-words",
                "0".into(),
                "must be at least 1 (leave it out to keep the vocabulary)",
            ));
        }
        if corpus.passages.is_empty() {
            return Err(TrainError::Corpus {
                corpus: corpus.name.to_owned(),
                message: "the corpus has no passage".into(),
            });
        }
        Ok(Self {
            start,
            corpus,
            settings,
            device,
            cancel: None,
        })
    }

    /// Stops the run after the step during which `flag` is set, writing a checkpoint of
    /// that step first ([`TrainError::Interrupted`]): how the Python package's Ctrl-C
    /// leaves a run that `--resume` continues.
    pub fn cancel_with(mut self, flag: &'a AtomicBool) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// Trains, evaluates and writes the folder `output`, which appears only
    /// when complete. Checkpoints go to `output.checkpoint/` (see
    /// [`checkpoint_dir`]); `resume` continues from the one there.
    pub fn train(
        &self,
        output: &Path,
        resume: bool,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Trained, TrainError> {
        let s = &self.settings;
        export::check_output(output)?;
        let _lock = export::lock_output(output)?;
        let checkpoints = checkpoint_dir(output);
        let (resumed, removed) = checkpoint::find(&checkpoints, resume)?;

        let device = self.device.device()?.autodiff();
        let Prepared {
            loaded,
            train,
            held,
            masking,
            passages,
        } = self.prepare(&device, resumed.as_ref().map(|r| r.dir()).as_deref())?;
        let tokenizer = &loaded.tokenizer;

        let fingerprint = checkpoint::Fingerprint {
            start: self.start_name(),
            corpus_sha256: self.corpus.sha256.to_owned(),
            settings: s.clone(),
        };
        let mut model = loaded.model;
        let mut store = Store::of(&model);
        let mut optimizer = AdamW::new(store.values.iter().map(Vec::len), s.weight_decay);
        let (first_step, mut losses) = match &resumed {
            Some(found) => {
                let state = found.state(&fingerprint)?;
                found.optimizer(&mut optimizer, &store.shapes, &state)?;
                (state.step, state.losses)
            }
            None => (0, Vec::new()),
        };
        // The hand-written step where it computes this network on this device; Burn's
        // graph otherwise (a GPU, or a network it does not write out).
        let mut by_hand = match self.device {
            DeviceKind::Cpu if cfg!(feature = "flex") => model
                .layout()
                .map(|l| Step::new(l.map(|id| store.index(id)))),
            _ => None,
        };
        let mut grads = store.zeros();
        // The step of the checkpoint on disk, said when a write fails (a full disk).
        let mut kept_step = resumed.as_ref().map(|_| first_step);
        let kept = |step: Option<usize>| match step {
            Some(step) => format!(
                "the checkpoint of step {step} is kept: free space, then --resume continues from it"
            ),
            None => "no checkpoint was kept: the run must start again".to_owned(),
        };
        let mut order = Order::new(train.count(), s.batch, s.seed);
        let clock = Instant::now();
        let mut tokens = 0usize;
        for step in first_step..s.steps {
            let rows = order.rows(step);
            let masked = masking.apply(&train, &rows, &mut data::step_rng(s.seed, step));
            tokens += masked.tokens();
            let lr = learning_rate(s, step);
            if masked.positions.is_empty() {
                // Nothing chosen (a tiny batch): no loss to learn from at this step.
                losses.push(0.0);
                continue;
            }
            let value = match &mut by_hand {
                Some(by_hand) => {
                    step_by_hand(by_hand, &store, &mut grads, &masked, dropout_seed(s, step))
                }
                None => {
                    let value;
                    (model, value) = step_by_graph(
                        model,
                        &store,
                        &mut grads,
                        &masked,
                        &device,
                        dropout_seed(s, step),
                    );
                    value
                }
            };
            if !value.is_finite() {
                return Err(TrainError::Diverged {
                    step: step + 1,
                    loss: value,
                    advice: s.divergence_advice(),
                });
            }
            losses.push(value);
            optimizer.step(&mut store.values, &grads, lr, s.clip);
            let seconds = clock.elapsed().as_secs_f64();
            progress(&Progress {
                step: step + 1,
                steps: s.steps,
                loss: value,
                lr,
                tokens_per_s: tokens as f64 / seconds.max(1e-9),
            });
            let done = step + 1;
            let stop = done < s.steps && self.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
            let due = s.checkpoint_every > 0 && done.is_multiple_of(s.checkpoint_every);
            if (due || stop) && done < s.steps {
                // Written from a copy without autodiff: parameters put back into the
                // tracked network stay registered with its graph, a leak per checkpoint.
                let snapshot = store.put_into(model.valid());
                let state = checkpoint::State {
                    fingerprint: fingerprint.clone(),
                    step: done,
                    losses: losses.clone(),
                };
                let folder = self.folder(&snapshot, &loaded.base_config, tokenizer);
                checkpoint::save(&checkpoints, &folder, &optimizer, &store.shapes, &state)
                    .map_err(|e| e.keeping(&kept(kept_step)))?;
                kept_step = Some(done);
            }
            if stop {
                return Err(TrainError::Interrupted {
                    step: done,
                    checkpoint: checkpoints,
                });
            }
        }
        let seconds = clock.elapsed().as_secs_f64();

        let valid = store.put_into(model).valid();
        let held_out = evaluate::held_out(&valid, &held, &masking, s, &self.device.device()?);
        let folder = self.folder(&valid, &loaded.base_config, tokenizer);
        let trained = Trained {
            report: TrainingReport {
                start: self.start_name(),
                corpus: self.corpus.name.to_owned(),
                corpus_sha256: self.corpus.sha256.to_owned(),
                passages,
                sequences: [train.count(), held.count()],
                settings: s.clone(),
                device: self.device.as_str().to_owned(),
                fresh_head: loaded.fresh_head,
                tokens,
                losses,
                held_out,
                resumed_from: resumed.as_ref().map(|_| first_step),
                added_words: loaded.added_words,
            },
            timing: Timing {
                seconds,
                tokens_per_s: tokens as f64 / seconds.max(1e-9),
            },
            removed,
        };
        folder
            .write_final(output, &trained)
            .map_err(|e| e.keeping(&kept(kept_step)))?;
        checkpoint::remove(&checkpoints);
        Ok(trained)
    }

    /// The network (from `resume_dir` when resuming) on `device`, and the corpus
    /// packed into training and held-out sequences.
    fn prepare(&self, device: &Device, resume_dir: Option<&Path>) -> Result<Prepared, TrainError> {
        let s = &self.settings;
        let (train_passages, held_passages) = data::split(self.corpus.passages, s.held_out, s.seed);
        let loaded = self.load(device, resume_dir, &train_passages)?;
        let tokenizer = &loaded.tokenizer;
        let config = loaded.model.bert_config().clone();
        if s.max_len > config.max_positions() {
            return Err(TrainError::Setting {
                flag: "--max-len",
                value: s.max_len.to_string(),
                message: format!(
                    "above the model's {} positions (max_position_embeddings of its config.json)",
                    config.max_positions()
                ),
            });
        }
        let mask = tokenizer.mask().ok_or_else(|| {
            ModelError::Tokenizer(lmbias_text::TextError::NoMaskToken {
                tokenizer: tokenizer.dir().display().to_string(),
            })
        })?;
        let specials: Vec<u32> = [Some(tokenizer.pad()), tokenizer.mask(), tokenizer.unk()]
            .into_iter()
            .flatten()
            .map(|t| t.id)
            .collect();

        let train = Blocks::pack(tokenizer, &train_passages, s.max_len, &specials)?;
        let held = Blocks::pack(tokenizer, &held_passages, s.max_len, &specials)?;
        if train.count() == 0 || (s.held_out > 0.0 && held.count() == 0) {
            return Err(TrainError::Corpus {
                corpus: self.corpus.name.to_owned(),
                message: format!(
                    "{} passage(s) give {} training and {} held-out sequence(s) of {} tokens: too \
                     little text (each set needs at least one full sequence; lower --max-len or \
                     --held-out, or give more text)",
                    self.corpus.passages.len(),
                    train.count(),
                    held.count(),
                    s.max_len
                ),
            });
        }
        // Text the tokenizer reads as nothing (control characters, NULs, unknown pieces only)
        // packs into sequences of special tokens: a run on it would mask nothing, learn
        // nothing and still report success.
        let unmaskable = [(&train, "training"), (&held, "held-out")]
            .into_iter()
            .find(|(blocks, _)| blocks.count() > 0 && blocks.maskable_tokens() == 0);
        if let Some((blocks, set)) = unmaskable {
            return Err(TrainError::Corpus {
                corpus: self.corpus.name.to_owned(),
                message: format!(
                    "its {set} text gives no token that can be masked: the {} sequence(s) of {} \
                     tokens hold special tokens only ([CLS], [SEP], [UNK], padding), so there is \
                     nothing to learn (is the file text the tokenizer reads?)",
                    blocks.count(),
                    s.max_len
                ),
            });
        }
        if s.batch > train.count() {
            return Err(TrainError::Setting {
                flag: "--batch",
                value: s.batch.to_string(),
                message: format!(
                    "larger than the {} training sequence(s) of {} tokens: every batch would \
                     hold sequences more than once; use --batch {} or less, or give more text",
                    train.count(),
                    s.max_len,
                    train.count()
                ),
            });
        }
        let masking = Masking {
            probability: s.mlm_probability,
            whole_word: s.whole_word,
            mask_id: mask.id,
            vocab_size: config.vocab_size() as u32,
        };
        Ok(Prepared {
            passages: [train_passages.len(), held_passages.len()],
            loaded,
            train,
            held,
            masking,
        })
    }

    fn start_name(&self) -> String {
        match self.start {
            Start::Continue(checkpoint) => checkpoint.name().to_owned(),
            Start::Scratch { .. } => "scratch".to_owned(),
        }
    }

    fn folder<'m>(
        &self,
        model: &'m BertForMaskedLm,
        base_config: &'m Option<serde_json::Value>,
        tokenizer: &'m Tokenizer,
    ) -> export::Folder<'m> {
        export::Folder::new(model, base_config.as_ref(), tokenizer)
    }

    /// The network on `device` (from `resume_dir` when resuming), its tokenizer (grown by
    /// `--add-words`, whose words are counted in `train`) and the base's config.json.
    fn load(
        &self,
        device: &Device,
        resume_dir: Option<&Path>,
        train: &[&str],
    ) -> Result<Loaded, TrainError> {
        let s = &self.settings;
        let start_dir = match self.start {
            Start::Continue(c) => c.dir(),
            Start::Scratch { tokenizer, .. } => tokenizer.as_path(),
        };
        let start_tokenizer = Tokenizer::from_dir(start_dir).map_err(ModelError::from)?;
        let words = self.words_to_add(&start_tokenizer, train)?;
        let added_words = words
            .iter()
            .enumerate()
            .map(|(i, w)| AddedWord {
                word: w.word.clone(),
                id: (start_tokenizer.vocab_size() + i) as u32,
                pieces: w
                    .pieces
                    .iter()
                    .map(|&p| start_tokenizer.token(p).unwrap_or_default())
                    .collect(),
                count: w.count,
            })
            .collect();
        if let Some(dir) = resume_dir {
            // The checkpoint holds the grown tokenizer and the grown tables.
            let checkpoint = Checkpoint::from_dir(&self.start_name(), dir)?;
            let tokenizer = Tokenizer::from_dir(dir).map_err(ModelError::from)?;
            return self.load_checkpoint(device, &checkpoint, tokenizer, None, added_words);
        }
        let grown = if words.is_empty() {
            None
        } else {
            let dir = tempfile::Builder::new()
                .prefix("lmbias-tokenizer-")
                .tempdir()
                .map_err(|e| TrainError::io(std::env::temp_dir(), "cannot create a folder", e))?;
            let tokenizer = start_tokenizer
                .with_words(&words, dir.path())
                .map_err(ModelError::from)?;
            Some((tokenizer, dir, words))
        };
        let Start::Continue(checkpoint) = self.start else {
            let Start::Scratch { shape, .. } = self.start else {
                unreachable!("scratch only")
            };
            let (tokenizer, grown_dir) = match grown {
                Some((tokenizer, dir, _)) => (tokenizer, Some(dir)),
                None => (start_tokenizer, None),
            };
            let config =
                BertConfig::scratch(*shape, tokenizer.vocab_size()).map_err(|message| {
                    TrainError::Setting {
                        flag: "--scratch",
                        value: shape.to_string(),
                        message,
                    }
                })?;
            let file = WeightsFile::fresh(
                start_dir.to_path_buf(),
                config.initializer_range(),
                s.seed,
                device,
            );
            let model = BertForMaskedLm::load(config, file.root())?;
            return Ok(Loaded {
                model,
                tokenizer,
                base_config: None,
                fresh_head: true,
                added_words,
                _grown: grown_dir,
            });
        };
        match grown {
            Some((tokenizer, dir, words)) => {
                let growth = Growth {
                    old: start_tokenizer.vocab_size(),
                    pieces: words.into_iter().map(|w| w.pieces).collect(),
                    dir,
                };
                self.load_checkpoint(device, checkpoint, tokenizer, Some(growth), added_words)
            }
            None => self.load_checkpoint(device, checkpoint, start_tokenizer, None, added_words),
        }
    }

    /// A BERT checkpoint with `tokenizer`, its vocabulary tables grown by `growth`.
    fn load_checkpoint(
        &self,
        device: &Device,
        checkpoint: &Checkpoint,
        tokenizer: Tokenizer,
        growth: Option<Growth>,
        added_words: Vec<AddedWord>,
    ) -> Result<Loaded, TrainError> {
        let s = &self.settings;
        let fresh_head = match checkpoint.architecture() {
            Architecture::BertMaskedLm => false,
            Architecture::BertEncoder => true,
            other => {
                return Err(TrainError::Setting {
                    flag: "--from",
                    value: checkpoint.name().to_owned(),
                    message: format!(
                        "train-mlm continues BERT checkpoints (this is {})",
                        match other {
                            Architecture::T5Encoder => "a T5 encoder",
                            Architecture::ModernBertEncoder | Architecture::ModernBertMaskedLm =>
                                "a ModernBERT",
                            Architecture::DebertaV2Encoder | Architecture::DebertaV2MaskedLm =>
                                "a DeBERTa-v2/v3",
                            _ =>
                                "one of BERT's descendants: RoBERTa, ELECTRA, DistilBERT or ALBERT",
                        }
                    ),
                });
            }
        };
        let mut config = BertForMaskedLm::config(checkpoint)?;
        let config_path = checkpoint.dir().join("config.json");
        let covered = growth.as_ref().map_or(tokenizer.vocab_size(), |g| g.old);
        if covered > config.vocab_size() {
            return Err(ModelError::ConfigValue {
                path: config_path,
                problem: format!(
                    "vocab_size {} does not cover its tokenizer's ids (the largest is {}): \
                     the tokenizer is not this model's",
                    config.vocab_size(),
                    covered - 1
                ),
            }
            .into());
        }
        let mut file = WeightsFile::open(checkpoint, device)?;
        if fresh_head {
            file = file.fresh_under("cls.predictions", config.initializer_range(), s.seed);
        }
        let grown_dir = match growth {
            Some(growth) => {
                // New ids follow the tokenizer's last; rows the table holds beyond it would
                // be taken by the new words with weights trained for something else.
                if growth.old != config.vocab_size() {
                    return Err(TrainError::Setting {
                        flag: "--add-words",
                        value: checkpoint.name().to_owned(),
                        message: format!(
                            "its config.json has vocab_size {} but its tokenizer {} ids: words \
                             are added after the last id only when the two agree",
                            config.vocab_size(),
                            growth.old
                        ),
                    });
                }
                config = config.with_more_words(growth.pieces.len());
                file = file.grow_vocabulary(
                    BertForMaskedLm::vocabulary_tensors(&config),
                    growth.old,
                    growth.pieces,
                );
                Some(growth.dir)
            }
            None => None,
        };
        let model = BertForMaskedLm::load(config, file.root())?;
        let base_config = crate::config_file::read_json(&config_path)?;
        Ok(Loaded {
            model,
            tokenizer,
            base_config: Some(base_config),
            fresh_head,
            added_words,
            _grown: grown_dir,
        })
    }

    /// The words `--add-words` asks for, cut by the start's tokenizer: the most frequent split
    /// words of the training passages, or a list's words, each checked.
    fn words_to_add(
        &self,
        tokenizer: &Tokenizer,
        train: &[&str],
    ) -> Result<Vec<SplitWord>, TrainError> {
        let bad = |value: String, message: String| TrainError::Setting {
            flag: "--add-words",
            value,
            message,
        };
        match &self.settings.add_words {
            AddWords::None => Ok(Vec::new()),
            AddWords::MostFrequent(n) => {
                let mut words = tokenizer.split_words(train).map_err(ModelError::from)?;
                if *n > words.len() {
                    return Err(bad(
                        n.to_string(),
                        format!(
                            "the training passages of {} hold only {} distinct words that the \
                             tokenizer cuts into pieces",
                            self.corpus.name,
                            words.len()
                        ),
                    ));
                }
                words.truncate(*n);
                Ok(words)
            }
            AddWords::Listed { file, words } => {
                // Each word's first line, by the word as the tokenizer has it: one look-up a
                // word, so that a list of 10^6 words is checked in linear time (issue #47).
                let mut first_line: std::collections::HashMap<String, usize> =
                    std::collections::HashMap::with_capacity(words.len());
                let mut found: Vec<SplitWord> = Vec::with_capacity(words.len());
                for (line, word) in words {
                    let split = tokenizer
                        .split_word(word)
                        .map_err(ModelError::from)?
                        .map_err(|problem| {
                            bad(
                                file.clone(),
                                format!("line {line}: {} {problem}", quote(word)),
                            )
                        })?;
                    if let Some(first) = first_line.get(&split.word) {
                        return Err(bad(
                            file.clone(),
                            format!(
                                "line {line}: {} is {} to this tokenizer, as line {first} is",
                                quote(word),
                                quote(&split.word)
                            ),
                        ));
                    }
                    first_line.insert(split.word.clone(), *line);
                    found.push(split);
                }
                Ok(found)
            }
        }
    }
}

/// Words added to a checkpoint's vocabulary: the rows its tables had, each new row's pieces,
/// and the folder of the grown tokenizer.
struct Growth {
    old: usize,
    pieces: Vec<Vec<u32>>,
    dir: tempfile::TempDir,
}

/// What a run trains on and with.
struct Prepared {
    loaded: Loaded,
    train: Blocks,
    held: Blocks,
    masking: Masking,
    /// Passages for training / held out.
    passages: [usize; 2],
}

struct Loaded {
    model: BertForMaskedLm,
    tokenizer: Tokenizer,
    base_config: Option<serde_json::Value>,
    fresh_head: bool,
    added_words: Vec<AddedWord>,
    /// The grown tokenizer's folder, removed when the run ends.
    _grown: Option<tempfile::TempDir>,
}

/// Where a run on `output` keeps its checkpoints: `output.checkpoint/` (see [`beside`]).
pub fn checkpoint_dir(output: &Path) -> PathBuf {
    beside(output, ".checkpoint")
}

/// The longest suffix a run puts after its output's name: `.checkpoint.prev-PID`, a process
/// id of up to 10 digits, and room to spare.
const LONGEST_SUFFIX: usize = 32;

/// The file a run writes beside `output`, named `output`'s name and `suffix` (`.lock`,
/// `.tmp-PID`, `.checkpoint`). Names may have 255 bytes: an output whose name leaves less
/// than [`LONGEST_SUFFIX`] of them gives its first bytes, `~` and 16 hex digits of the sha256
/// of its whole name instead, so that every legal output has room for what goes beside it
/// (a 250-byte `--output` was refused for its `.tmp-PID` name; issue #47).
pub(crate) fn beside(output: &Path, suffix: &str) -> PathBuf {
    use sha2::{Digest, Sha256};
    const NAME_MAX: usize = 255;
    let name = output.file_name().unwrap_or_default();
    let stem = if name.len() + LONGEST_SUFFIX <= NAME_MAX {
        name.to_string_lossy().into_owned()
    } else {
        let digest = format!("{:x}", Sha256::digest(name.as_encoded_bytes()));
        let lossy = name.to_string_lossy();
        let mut keep = NAME_MAX - LONGEST_SUFFIX - 17;
        while !lossy.is_char_boundary(keep) {
            keep -= 1;
        }
        format!("{}~{}", &lossy[..keep], &digest[..16])
    };
    output.with_file_name(format!("{stem}{suffix}"))
}

/// transformers' `get_linear_schedule_with_warmup` at optimizer step `step` (0-based).
fn learning_rate(s: &TrainSettings, step: usize) -> f64 {
    let (step, warmup, total) = (step as f64, s.warmup_steps as f64, s.steps as f64);
    if step < warmup {
        s.lr * step / warmup.max(1.0)
    } else {
        s.lr * ((total - step) / (total - warmup).max(1.0)).max(0.0)
    }
}

/// Mean cross-entropy at the chosen positions: the decoder runs on those rows
/// only (the full-vocabulary projection of every position would be most of the work).
fn mlm_loss(model: &BertForMaskedLm, masked: &data::MaskedBatch, device: &Device) -> Tensor<1> {
    let logits = masked_logits(model, masked, device);
    let m = masked.labels.len();
    let labels =
        Tensor::<2, Int>::from_data(TensorData::new(masked.labels.clone(), [m, 1]), device);
    log_softmax(logits, 1).gather(1, labels).mean().neg()
}

/// Vocabulary logits `[chosen, vocab]` at the chosen positions of `masked`.
fn masked_logits(
    model: &BertForMaskedLm,
    masked: &data::MaskedBatch,
    device: &Device,
) -> Tensor<2> {
    let sequences: Vec<&[u32]> = masked.input.chunks(masked.len).collect();
    let batch = Batch::new(&sequences, 0, device);
    let hidden = model.hidden_states(&batch, model.num_layers());
    let [b, seq, h] = hidden.dims();
    let m = masked.positions.len();
    let at = Tensor::<1, Int>::from_data(TensorData::new(masked.positions.clone(), [m]), device);
    model.mask_logits(hidden.reshape([b * seq, h]).select(0, at))
}

/// The dropout masks Burn's graph would draw on burn-flex, drawn without it: burn-flex's
/// generator is rand's `StdRng` (ChaCha12) seeded by `Backend::seed` with the step's
/// seed, and `burn::nn::Dropout` keeps each element with a Bernoulli draw, one `u64`
/// below `keep · 2⁶⁴` (rand's `Bernoulli`). ChaCha seeks: draw i is the stream's
/// words 2i and 2i + 1, so the cores draw a mask's parts at once. The equivalence
/// test holds the two to the same losses.
struct FlexDropout {
    seed: u64,
}

impl kernels::Dropout for FlexDropout {
    fn fill(&self, first: u64, keep: f64, out: &mut [f32]) {
        use chacha20::rand_core::{Rng as _, SeedableRng as _};
        let mut rng = chacha20::ChaCha12Rng::seed_from_u64(self.seed);
        rng.set_word_pos(u128::from(first) * 2);
        // rand's `Bernoulli::new(keep)` threshold (keep < 1 here: a site with dropout).
        let threshold = (keep * 2f64.powi(64)) as u64;
        for o in out {
            *o = f32::from(u8::from(rng.next_u64() < threshold));
        }
    }
}

/// The loss of `masked` through Burn's graph (a GPU, or a network the hand-written step does
/// not write out), its gradients into `grads`; dropout draws from the device's generator,
/// seeded for the step. The network comes back with the store's values in it.
fn step_by_graph(
    model: BertForMaskedLm,
    store: &Store,
    grads: &mut Vec<Vec<f32>>,
    masked: &data::MaskedBatch,
    device: &Device,
    dropout_seed: u64,
) -> (BertForMaskedLm, f64) {
    device.seed(dropout_seed);
    let model = store.put_into(model);
    let loss = mlm_loss(&model, masked, device);
    let value = f64::from(loss.clone().into_scalar::<f32>());
    *grads = store.gradients(
        &model,
        &GradientsParams::from_grads(loss.backward(), &model),
    );
    (model, value)
}

/// The loss of `masked` through the hand-written step, its gradients into `grads`.
fn step_by_hand(
    by_hand: &mut Step,
    store: &Store,
    grads: &mut [Vec<f32>],
    masked: &data::MaskedBatch,
    dropout_seed: u64,
) -> f64 {
    let positions: Vec<usize> = masked.positions.iter().map(|&p| p as usize).collect();
    let labels: Vec<usize> = masked.labels.iter().map(|&l| l as usize).collect();
    let batch = kernels::Batch {
        ids: &masked.input,
        seq: masked.len,
        positions: &positions,
        labels: &labels,
    };
    by_hand.forward_backward(
        &store.values,
        grads,
        &batch,
        &FlexDropout { seed: dropout_seed },
    )
}

/// The seed of step `step`'s dropout draws: a function of the step, so a resumed
/// run draws what the uninterrupted one would have.
fn dropout_seed(s: &TrainSettings, step: usize) -> u64 {
    s.seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(step as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_warms_up_then_decays_to_zero() {
        let s = TrainSettings {
            steps: 100,
            warmup_steps: 10,
            lr: 1e-3,
            ..TrainSettings::default()
        };
        assert_eq!(learning_rate(&s, 0), 0.0);
        assert!((learning_rate(&s, 5) - 5e-4).abs() < 1e-12);
        assert!((learning_rate(&s, 10) - 1e-3).abs() < 1e-12);
        assert!((learning_rate(&s, 55) - 5e-4).abs() < 1e-12);
        assert!(learning_rate(&s, 99) > 0.0 && learning_rate(&s, 99) < 2e-5);
    }

    /// burn-flex's generator, rand's StdRng, is the ChaCha12Rng the hand-written step
    /// seeks in: the same draws from the start and from a word position on.
    #[test]
    fn the_dropout_stream_is_burn_flexs() {
        use chacha20::rand_core::{Rng as _, SeedableRng as _};
        use kernels::Dropout as _;
        let mut std = <flex_rand::rngs::StdRng as flex_rand::SeedableRng>::seed_from_u64(42);
        let threshold = (0.9 * 2f64.powi(64)) as u64;
        let want: Vec<f32> = (0..1000)
            .map(|_| f32::from(u8::from(flex_rand::Rng::next_u64(&mut std) < threshold)))
            .collect();
        let mut got = vec![0f32; 1000];
        let dropout = FlexDropout { seed: 42 };
        dropout.fill(0, 0.9, &mut got[..333]);
        dropout.fill(333, 0.9, &mut got[333..]);
        assert_eq!(got, want);
        let kept = want.iter().filter(|&&k| k == 1.0).count();
        assert!((850..950).contains(&kept), "{kept} of 1000 kept at 0.9");
        let mut a = chacha20::ChaCha12Rng::seed_from_u64(7);
        let first: Vec<u64> = (0..40).map(|_| a.next_u64()).collect();
        let mut b = chacha20::ChaCha12Rng::seed_from_u64(7);
        b.set_word_pos(2 * 17);
        assert_eq!(b.next_u64(), first[17]);
    }

    #[test]
    fn checkpoints_sit_beside_the_output() {
        assert_eq!(
            checkpoint_dir(Path::new("/x/kjv")),
            Path::new("/x/kjv.checkpoint")
        );
        // A name of 250 bytes (legal) leaves no room for `.checkpoint.prev-PID`: its first
        // bytes and a digest stand for it, within the limit, and two such names differ.
        let long = |last: char| format!("/x/{}{last}", "é".repeat(120) + "abcdefghi");
        let (a, b) = (
            checkpoint_dir(Path::new(&long('a'))),
            checkpoint_dir(Path::new(&long('b'))),
        );
        let name = |p: &Path| p.file_name().unwrap().to_str().unwrap().to_owned();
        assert_eq!(long('a').len() - 3, 250);
        assert_ne!(a, b);
        assert!(
            name(&a).ends_with(".checkpoint") && name(&a).contains('~'),
            "{a:?}"
        );
        assert!(
            name(&a).len() + ".prev-4294967295".len() <= 255,
            "{}",
            name(&a).len()
        );
        assert!(name(&a).starts_with(&"é".repeat(100)));
    }
}
