//! `lmbias.train_mlm`: `lmbias train-mlm` from Python, with the CLI's options as keyword
//! arguments, progress through a callback, and Ctrl-C leaving a checkpoint that
//! `resume=True` continues.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use anyhow::Context;
use lmbias_runs::DeviceKind;
use lmbias_runs::data::corpus::Corpus;
use lmbias_runs::train::{
    AddWords, BertShape, CorpusText, Progress, Run, Start, TrainError, TrainSettings,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{to_python, unsigned};
use crate::errors::{to_py, value_error};
use crate::work;

/// Where a training starts: `from_`'s checkpoint, or a new network of `shape` (layers,
/// hidden, heads, intermediate, max_positions) with `tokenizer`'s vocabulary.
fn start(
    py: Python<'_>,
    from_: Option<String>,
    scratch: bool,
    tokenizer: Option<PathBuf>,
    shape: [i128; 5],
) -> PyResult<Start> {
    let size = |name, v| unsigned(name, v).map(|v| v as usize);
    let [layers, hidden, heads, intermediate, max_positions] = shape;
    match (from_, scratch, tokenizer) {
        (Some(_), true, _) => Err(value_error("from_ and scratch=True exclude each other")),
        (Some(model), false, None) => Ok(Start::Continue(
            work::run(py, |_| {
                lmbias_runs::checkpoint(&model).with_context(|| format!("from_ {model}"))
            })?
            .map_err(to_py)?,
        )),
        (None, true, Some(tokenizer)) => Ok(Start::Scratch {
            tokenizer,
            shape: BertShape {
                layers: size("layers", layers)?,
                hidden: size("hidden", hidden)?,
                heads: size("heads", heads)?,
                intermediate: size("intermediate", intermediate)?,
                max_positions: size("max_positions", max_positions)?,
            },
        }),
        (Some(_), false, Some(_)) => Err(value_error(
            "tokenizer goes with scratch=True (from_ brings its own)",
        )),
        (None, _, _) => Err(value_error(
            "give from_ (a checkpoint), or scratch=True with tokenizer",
        )),
    }
}

/// `add_words`: an int is a count (bool is an int to Python: refused), anything else a word
/// list's path.
fn add_words_arg(add_words: Option<Bound<'_, PyAny>>) -> PyResult<AddWords> {
    match add_words {
        None => Ok(AddWords::None),
        Some(v) if v.is_instance_of::<pyo3::types::PyBool>() => Err(value_error(
            "add_words is a count or a word list's path, not a bool",
        )),
        Some(v) => {
            let arg = match v.extract::<i128>() {
                Ok(n) => n.to_string(),
                Err(_) => v
                    .extract::<PathBuf>()
                    .map_err(|_| value_error("add_words is a count or a word list's path"))?
                    .display()
                    .to_string(),
            };
            lmbias_runs::train::add_words(&arg).map_err(|e| to_py(e.into()))
        }
    }
}

/// Continues a BERT checkpoint (`from_`) on a corpus, or trains one from scratch (`scratch=True`
/// with `tokenizer`), into the Hugging Face folder `output`; returns training.json as a dict.
#[pyfunction]
#[pyo3(signature = (
    corpus, output, *, from_ = None, scratch = false, tokenizer = None,
    layers = 2, hidden = 128, heads = 2, intermediate = 512, max_positions = 128,
    max_len = TrainSettings::default().max_len as i128,
    batch = TrainSettings::default().batch as i128,
    steps = TrainSettings::default().steps as i128,
    lr = TrainSettings::default().lr,
    warmup_steps = TrainSettings::default().warmup_steps as i128,
    weight_decay = TrainSettings::default().weight_decay,
    clip = TrainSettings::default().clip,
    seed = TrainSettings::default().seed as i128,
    mlm_probability = TrainSettings::default().mlm_probability,
    whole_word = false,
    add_words = None,
    held_out = TrainSettings::default().held_out,
    checkpoint_every = TrainSettings::default().checkpoint_every as i128,
    resume = false,
    device = "cpu",
    progress = None,
))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn train_mlm<'py>(
    py: Python<'py>,
    corpus: PathBuf,
    output: PathBuf,
    from_: Option<String>,
    scratch: bool,
    tokenizer: Option<PathBuf>,
    layers: i128,
    hidden: i128,
    heads: i128,
    intermediate: i128,
    max_positions: i128,
    max_len: i128,
    batch: i128,
    steps: i128,
    lr: f64,
    warmup_steps: i128,
    weight_decay: f64,
    clip: f64,
    seed: i128,
    mlm_probability: f64,
    whole_word: bool,
    add_words: Option<Bound<'py, PyAny>>,
    held_out: f64,
    checkpoint_every: i128,
    resume: bool,
    device: &str,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let size = |name, v| unsigned(name, v).map(|v| v as usize);
    let shape = [layers, hidden, heads, intermediate, max_positions];
    let start = start(py, from_, scratch, tokenizer, shape)?;
    let add_words = add_words_arg(add_words)?;
    let settings = TrainSettings {
        max_len: size("max_len", max_len)?,
        batch: size("batch", batch)?,
        steps: size("steps", steps)?,
        lr,
        warmup_steps: size("warmup_steps", warmup_steps)?,
        weight_decay,
        clip,
        seed: unsigned("seed", seed)?,
        mlm_probability,
        whole_word,
        held_out,
        checkpoint_every: size("checkpoint_every", checkpoint_every)?,
        add_words,
    };
    let device: DeviceKind = device.parse().map_err(|e| to_py(anyhow::Error::new(e)))?;
    let progress: Option<Py<PyAny>> = progress.map(Bound::unbind);
    // An exception raised by the callback stops the run as Ctrl-C does, and is raised here.
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let report = work::run(py, |cancel| -> anyhow::Result<_> {
        let corpus = Corpus::read(&corpus)?;
        let name = corpus.path().display().to_string();
        let text = CorpusText {
            name: &name,
            sha256: corpus.sha256(),
            passages: corpus.passages(),
        };
        let run = Run::new(&start, text, settings, device)?.cancel_with(cancel);
        let mut report = |p: &Progress| {
            let Some(callback) = &progress else { return };
            let result = Python::attach(|py| -> PyResult<()> {
                let info = PyDict::new(py);
                info.set_item("step", p.step)?;
                info.set_item("steps", p.steps)?;
                info.set_item("loss", p.loss)?;
                info.set_item("lr", p.lr)?;
                info.set_item("tokens_per_s", p.tokens_per_s)?;
                callback.call1(py, (info,))?;
                Ok(())
            });
            if let Err(e) = result {
                *raised.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                stop(cancel);
            }
        };
        Ok(run.train(&output, resume, &mut report)?)
    });
    if let Some(e) = raised.lock().unwrap_or_else(PoisonError::into_inner).take() {
        return Err(e);
    }
    let trained = report?.map_err(|e| match e.downcast_ref::<TrainError>() {
        Some(TrainError::Interrupted { .. }) => {
            pyo3::exceptions::PyKeyboardInterrupt::new_err(format!("{e:#}"))
        }
        _ => to_py(e),
    })?;
    // training.json, with timing.json's numbers under "timing".
    #[derive(serde::Serialize)]
    struct Answer<'a> {
        #[serde(flatten)]
        report: &'a lmbias_runs::train::TrainingReport,
        timing: &'a lmbias_runs::train::Timing,
    }
    to_python(
        py,
        &Answer {
            report: &trained.report,
            timing: &trained.timing,
        },
    )
}

/// Sets the run's flag: work::run's is an `AtomicBool` it shares with the waiting thread.
fn stop(cancel: &AtomicBool) {
    cancel.store(true, Ordering::Relaxed);
}
