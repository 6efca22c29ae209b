//! `hold_out`, `draw_sentences` and `draw_pairs`: what `lmbias hold-out` / `draw-sentences` /
//! `draw-pairs` write, from one's own parallel corpora, written to `out` and returned (the
//! split's files and counts, the dataset as a dict, the pairs as rows).

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use lmbias_runs::draw::{self, Parallel, SentenceSettings};
use pyo3::prelude::*;

use crate::convert::{to_python, unsigned};
use crate::errors::{to_py, value_error};
use crate::work;

/// Refuses an `out` that would destroy one of the corpora, a folder or a device, before any work.
fn check_out(
    out: &Path,
    held_out: &(PathBuf, PathBuf),
    training: &(PathBuf, PathBuf),
) -> PyResult<()> {
    let inputs = [
        ("held_out", held_out.0.as_path()),
        ("held_out", held_out.1.as_path()),
        ("training", training.0.as_path()),
        ("training", training.1.as_path()),
    ];
    lmbias_runs::check_output("out", out, &inputs).map_err(|e| to_py(e.into()))
}

fn load(held_out: &(PathBuf, PathBuf), training: &(PathBuf, PathBuf)) -> PyResult<Parallel> {
    Parallel::load([&held_out.0, &held_out.1], [&training.0, &training.1])
        .map_err(|e| to_py(e.into()))
}

fn positive(name: &str, value: i128) -> PyResult<NonZeroUsize> {
    usize::try_from(unsigned(name, value)?)
        .ok()
        .and_then(NonZeroUsize::new)
        .ok_or_else(|| value_error(format!("{name} {value}: must be at least 1")))
}

/// A valence dataset drawn from the held-out passages of two period corpora (Early Modern,
/// Modern), rated by their training corpora; written to `out` as `lmbias draw-sentences`
/// writes it, and returned as a dict.
#[pyfunction]
#[pyo3(signature = (held_out, training, *, out, per_group = 300, seed = 34, mask = "[MASK]".to_owned(), name = "drawn".to_owned(), description = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_sentences<'py>(
    py: Python<'py>,
    held_out: (PathBuf, PathBuf),
    training: (PathBuf, PathBuf),
    out: PathBuf,
    per_group: i128,
    seed: i128,
    mask: String,
    name: String,
    description: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let defaults = SentenceSettings::default();
    let settings = SentenceSettings {
        per_group: positive("per_group", per_group)?,
        seed: unsigned("seed", seed)?,
        mask,
        name,
        description: description.unwrap_or(defaults.description.clone()),
        ..defaults
    };
    check_out(&out, &held_out, &training)?;
    let json = work::run(py, |_| {
        let json = draw::sentences(&load(&held_out, &training)?, &settings)
            .map_err(|e| to_py(e.into()))?;
        lmbias_runs::write_atomically(&out, &json).map_err(|e| to_py(e.into()))?;
        Ok::<_, PyErr>(json)
    })??;
    let value: serde_json::Value =
        serde_json::from_str(&json).map_err(|e| value_error(e.to_string()))?;
    to_python(py, &value)
}

/// The minimal pairs among the held-out passages of two period corpora: passages whose two
/// wordings differ in 1 … `max_words` words; written to `out` in CrowS-Pairs' CSV (as
/// `lmbias draw-pairs` writes it, for `lmbias.crows`) and returned as rows.
#[pyfunction]
#[pyo3(signature = (held_out, training, *, out, max_words = 3))]
pub(crate) fn draw_pairs<'py>(
    py: Python<'py>,
    held_out: (PathBuf, PathBuf),
    training: (PathBuf, PathBuf),
    out: PathBuf,
    max_words: i128,
) -> PyResult<Bound<'py, PyAny>> {
    let max_words = positive("max_words", max_words)?;
    check_out(&out, &held_out, &training)?;
    let rows = work::run(py, |_| {
        let rows =
            draw::pairs(&load(&held_out, &training)?, max_words).map_err(|e| to_py(e.into()))?;
        lmbias_runs::write_atomically(&out, draw::pairs_csv(&rows)).map_err(|e| to_py(e.into()))?;
        Ok::<_, PyErr>(rows)
    })??;
    to_python(py, &rows)
}

/// Splits two aligned corpora (Early Modern, Modern) into training text and held-out passages,
/// written into the folder `out` as `lmbias hold-out` writes them; returns the four files'
/// paths and the counts.
#[pyfunction]
#[pyo3(signature = (corpora, *, out, share = 0.06, seed = 34))]
pub(crate) fn hold_out<'py>(
    py: Python<'py>,
    corpora: (PathBuf, PathBuf),
    out: PathBuf,
    share: f64,
    seed: i128,
) -> PyResult<Bound<'py, PyAny>> {
    let seed = unsigned("seed", seed)?;
    let files = draw::SPLIT_FILES.map(|name| out.join(name));
    lmbias_runs::check_dir("out", &out).map_err(|e| to_py(e.into()))?;
    let inputs = [
        ("corpora", corpora.0.as_path()),
        ("corpora", corpora.1.as_path()),
    ];
    for file in &files {
        lmbias_runs::check_output("out", file, &inputs).map_err(|e| to_py(e.into()))?;
    }
    let split = work::run(py, |_| {
        let split =
            draw::split([&corpora.0, &corpora.1], share, seed).map_err(|e| to_py(e.into()))?;
        for (path, text) in files.iter().zip(split.texts()) {
            lmbias_runs::write_atomically(path, text).map_err(|e| to_py(e.into()))?;
        }
        Ok::<_, PyErr>(split)
    })??;
    let answer = serde_json::json!({
        "early_training": files[0],
        "modern_training": files[1],
        "early_held_out": files[2],
        "modern_held_out": files[3],
        "held": split.held,
        "passages": split.passages,
    });
    to_python(py, &answer)
}
