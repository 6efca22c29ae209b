//! The studies, called as `lmbias seat`, `lmbias valence`, `lmbias probe` and `lmbias crows` call
//! lmbias-runs, returning the runs' rows as plain dicts (`pandas.DataFrame(rows)`) with the
//! keys of the CLI's JSON, and with `provenance=True` what produced them; what the CLI says
//! on stderr (lost examples, refused tests) becomes a Python warning.

use std::ffi::CString;
use std::num::NonZeroUsize;
use std::path::PathBuf;

use lmbias_runs::crows::{CrowsOutput, CrowsSettings, Pairs};
use lmbias_runs::data::Role;
use lmbias_runs::data::association::{AssociationTest, LoadOptions, SetSpec, TestSpec};
use lmbias_runs::inputs::{TestSource, Tests};
use lmbias_runs::metrics::log_odds::Thresholds;
use lmbias_runs::metrics::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED};
use lmbias_runs::metrics::wefe::Metrics;
use lmbias_runs::probe::{Lists, ProbeSettings};
use lmbias_runs::seat::{SeatOutput, SeatSettings};
use lmbias_runs::studies::crows::Measures;
use lmbias_runs::studies::seat::{Copies, Wefe};
use lmbias_runs::studies::valence::{DEFAULT_MAX_UNANNOTATED_SHARE, DEFAULT_TOP_K};
use lmbias_runs::valence::{CorpusSettings, Dataset, Inputs, PeriodCorpora, ValenceSettings};
use lmbias_runs::{Ctx, Provenance};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::convert::{self, LayerArg, to_python, unsigned};
use crate::errors::{to_py, value_error};
use crate::model::Model;
use crate::work;

/// One `Model` or a sequence of them.
fn models<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, Model>>> {
    if let Ok(model) = obj.cast::<Model>() {
        return Ok(vec![model.clone()]);
    }
    obj.try_iter()?
        .map(|item| {
            item?.cast_into::<Model>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(
                    "model must be an lmbias.Model or a sequence of them",
                )
            })
        })
        .collect()
}

/// A Python warning, as the CLI's `warning:` lines on stderr.
fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let message = CString::new(message.replace('\0', " "))?;
    PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 2)
}

/// The rows, or `(rows, provenance)` with one provenance dict per model run when asked.
fn answer<'py, 'a>(
    py: Python<'py>,
    rows: Bound<'py, PyAny>,
    provenance: impl IntoIterator<Item = &'a Provenance>,
    wanted: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if !wanted {
        return Ok(rows);
    }
    let provenance: Vec<&Provenance> = provenance.into_iter().collect();
    Ok(PyTuple::new(py, [rows, to_python(py, &provenance)?])?.into_any())
}

/// One test, a directory of them, or a dict as `load_test` returns; or a list of these.
fn test_sources(obj: &Bound<'_, PyAny>) -> PyResult<Vec<TestSource>> {
    let one = |item: &Bound<'_, PyAny>| -> PyResult<Option<TestSource>> {
        if let Ok(dict) = item.cast::<PyDict>() {
            return Ok(Some(TestSource::Test(test_from_dict(dict)?)));
        }
        if item.is_instance_of::<PyString>() || item.hasattr("__fspath__")? {
            return Ok(Some(TestSource::Path(item.extract()?)));
        }
        Ok(None)
    };
    if let Some(source) = one(obj)? {
        return Ok(vec![source]);
    }
    obj.try_iter()?
        .map(|item| {
            one(&item?)?.ok_or_else(|| {
                pyo3::exceptions::PyTypeError::new_err(
                    "tests must be a path, a dict from lmbias.load_test, or a list of them",
                )
            })
        })
        .collect()
}

/// A test from `{"name": …, "targ1": {"category": …, "examples": […]}, …}`, validated as a file.
fn test_from_dict(dict: &Bound<'_, PyDict>) -> PyResult<AssociationTest> {
    let name: String = match dict.get_item("name")? {
        Some(name) => name.extract()?,
        None => "test".to_owned(),
    };
    let set = |role: Role| -> PyResult<SetSpec> {
        let item = dict
            .get_item(role.key())?
            .ok_or_else(|| value_error(format!("test {name}: no {} set", role.key())))?;
        Ok(SetSpec {
            category: item.get_item("category")?.extract()?,
            examples: item.get_item("examples")?.extract()?,
        })
    };
    let spec = TestSpec {
        targ1: set(Role::Targ1)?,
        targ2: set(Role::Targ2)?,
        attr1: set(Role::Attr1)?,
        attr2: set(Role::Attr2)?,
    };
    AssociationTest::new(&name, spec, &LoadOptions::default()).map_err(|e| to_py(e.into()))
}

/// SEAT: a battery of association tests on one or more models, one row per (model, test).
#[pyfunction]
#[pyo3(signature = (model, tests, *, pooling = None, layer = None, n_samples = DEFAULT_N_SAMPLES.into(), seed = DEFAULT_SEED.into(), also_lowercased_copy = false, ddof = 1, alternative = "greater", metrics = Vec::new(), rnsb_holdout = false, provenance = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn seat<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    tests: &Bound<'py, PyAny>,
    pooling: Option<&str>,
    layer: Option<&Bound<'py, PyAny>>,
    n_samples: i128,
    seed: i128,
    also_lowercased_copy: bool,
    ddof: i64,
    alternative: &str,
    metrics: Vec<String>,
    rnsb_holdout: bool,
    provenance: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (n_samples, seed) = (unsigned("n_samples", n_samples)?, unsigned("seed", seed)?);
    let wefe = Wefe {
        metrics: Metrics::parse(&metrics.join(","))
            .map_err(|e| value_error(format!("metrics: {e}")))?,
        rnsb_holdout,
    };
    let (std, alternative) = (convert::std_kind(ddof)?, convert::alternative(alternative)?);
    let models = models(model)?;
    let copies = if also_lowercased_copy {
        Copies::AlsoLowercased
    } else {
        Copies::AsWritten
    };
    let sources = test_sources(tests)?;
    let tests = work::run(py, |_| Tests::new(sources).map_err(|e| to_py(e.into())))??;
    let mut runs = Vec::with_capacity(models.len());
    for model in &models {
        let model = model.get();
        // A negative layer counts from the model's last.
        let embedder = model.loaded_embedder(py)?;
        let settings = SeatSettings {
            pooling: convert::pooling_choice(pooling)?,
            layer: LayerArg::from_py(layer)?.resolve(embedder.as_ref())?,
            n_samples,
            seed,
            alternative,
            std,
            copies,
            lost: None,
            wefe,
        };
        let run = work::run(py, |cancel| {
            lmbias_runs::seat::run(
                model.model(),
                &tests,
                &settings,
                &Ctx {
                    cancel,
                    ..Ctx::none()
                },
            )
            .map_err(|e| model.error(e))
        })??;
        runs.push(run);
    }
    let out = SeatOutput::of(&runs);
    for row in out.rows.iter().filter(|r| !r.lost.is_empty()) {
        let lost: Vec<String> = row.lost.iter().map(ToString::to_string).collect();
        warn(
            py,
            &format!(
                "model {}: test {}: dropped, a word without a vector: {}",
                row.model,
                row.test,
                lost.join(", ")
            ),
        )?;
    }
    for refused in &out.refused {
        warn(py, &refused.to_string())?;
    }
    answer(py, to_python(py, &out.rows)?, out.provenance, provenance)
}

/// Temporal valence (Cuscito et al.): one row per (model, sentence) with B, A and the scored
/// proposals.
#[pyfunction]
#[pyo3(signature = (model, dataset, top_k = DEFAULT_TOP_K.get() as i128, *, lexicon = None, valence_from = None, valence_thresholds = None, valence_alpha0 = None, valence_min_context = None, valence_min_log_odds = None, max_unannotated_share = DEFAULT_MAX_UNANNOTATED_SHARE, provenance = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn valence<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    dataset: PathBuf,
    top_k: i128,
    lexicon: Option<PathBuf>,
    valence_from: Option<(PathBuf, PathBuf)>,
    valence_thresholds: Option<(f64, f64)>,
    valence_alpha0: Option<f64>,
    valence_min_context: Option<i128>,
    valence_min_log_odds: Option<f64>,
    max_unannotated_share: f64,
    provenance: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let models = models(model)?;
    let top_k = NonZeroUsize::new(unsigned("top_k", top_k)? as usize)
        .ok_or_else(|| value_error("top_k must be at least 1"))?;
    if !(0.0..=1.0).contains(&max_unannotated_share) {
        return Err(value_error(format!(
            "max_unannotated_share {max_unannotated_share}: expected a share from 0 to 1"
        )));
    }
    if lexicon.is_some() && valence_from.is_some() {
        return Err(value_error(
            "lexicon and valence_from: a lexicon rates every proposal, so corpora have none to rate",
        ));
    }
    let dataset = work::run(py, |_| {
        let dataset = Dataset::load(&dataset).map_err(|e| to_py(e.into()))?;
        match &lexicon {
            Some(lexicon) => dataset.rated_by(lexicon).map_err(|e| to_py(e.into())),
            None => Ok(dataset),
        }
    })??;
    let defaults = CorpusSettings::default();
    let settings = CorpusSettings {
        alpha0: valence_alpha0.unwrap_or(defaults.alpha0),
        thresholds: valence_thresholds.map_or(defaults.thresholds, |(half, full)| Thresholds {
            half,
            full,
        }),
        min_context: match valence_min_context {
            Some(n) => unsigned("valence_min_context", n)?,
            None => defaults.min_context,
        },
        min_log_odds: valence_min_log_odds.unwrap_or(defaults.min_log_odds),
    };
    let corpora = match &valence_from {
        None => None,
        Some((eme, me)) => Some(work::run(py, |_| {
            PeriodCorpora::load(eme, me, settings).map_err(|e| to_py(e.into()))
        })??),
    };
    let mut runs = Vec::with_capacity(models.len());
    for model in &models {
        let model = model.get();
        let run = work::run(py, |_| {
            lmbias_runs::valence::run(
                model.model(),
                &Inputs {
                    dataset: &dataset,
                    corpora: corpora.as_ref(),
                },
                &ValenceSettings {
                    top_k,
                    max_unannotated_share,
                },
                &Ctx::none(),
            )
            .map_err(|e| model.error(e))
        })??;
        runs.push(run);
    }
    let rows: Vec<_> = runs.iter().flat_map(|r| r.rows()).collect();
    answer(
        py,
        to_python(py, &rows)?,
        runs.iter().map(|r| &r.provenance),
        provenance,
    )
}

/// Dusi 2024's categorical-association probe: one row per size n of the most relevant
/// dimensions (model, pair, n, dims, rows, cols, table, chi2, dof, p_value).
#[pyfunction]
#[pyo3(signature = (model, protected, stereotyped, *, templates = None, layer = None, n = None, provenance = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn probe<'py>(
    py: Python<'py>,
    model: &Bound<'py, Model>,
    protected: PathBuf,
    stereotyped: PathBuf,
    templates: Option<PathBuf>,
    layer: Option<&Bound<'py, PyAny>>,
    n: Option<i128>,
    provenance: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let model = model.get();
    // A negative layer counts from the model's last.
    let embedder = model.loaded_embedder(py)?;
    let settings = ProbeSettings {
        layer: LayerArg::from_py(layer)?.resolve(embedder.as_ref())?,
        // A size no `usize` holds is refused as the run refuses one too large.
        n: n.map(|n| {
            usize::try_from(n).map_err(|_| {
                value_error(format!(
                    "n {n}: must be between 1 and the hidden size {}",
                    embedder.hidden_size()
                ))
            })
        })
        .transpose()?,
        pair: None,
    };
    let result = work::run(py, |_| {
        let lists = Lists::load(&protected, &stereotyped, templates.as_deref())
            .map_err(|e| to_py(e.into()))?;
        lmbias_runs::probe::run(model.model(), &lists, &settings, &Ctx::none())
            .map_err(|e| model.error(e))
    })??;
    answer(
        py,
        to_python(py, &result.rows())?,
        [&result.provenance],
        provenance,
    )
}

/// Likelihood measures on minimal pairs (the CrowS-Pairs metric, bias-bench's score, AUL,
/// AULA, and with `measures` mlm-bias's CRR, CRRA, ΔP, ΔPA and SSS): the CLI's `--json` as a
/// dict, {"results": [per model: provenance, summary, data_checks, pairs], "comparisons":
/// [exact McNemar tests of each pair of models]}, with `relative=True` also "relative".
#[pyfunction]
#[pyo3(signature = (model, pairs, *, group_terms = None, exclude_flagged = false, max_span_gap = CrowsSettings::default().max_span_gap as i128, measures = Vec::new(), relative = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn crows<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    pairs: PathBuf,
    group_terms: Option<PathBuf>,
    exclude_flagged: bool,
    max_span_gap: i128,
    measures: Vec<String>,
    relative: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let models = models(model)?;
    if relative && models.len() != 2 {
        return Err(value_error(format!(
            "relative=True takes two models, [base, other]; got {}",
            models.len()
        )));
    }
    let settings = CrowsSettings {
        exclude_flagged,
        max_span_gap: unsigned("max_span_gap", max_span_gap)? as usize,
        measures: Measures::parse(measures.iter().map(String::as_str))
            .map_err(|e| value_error(format!("measures: {e}")))?,
    };
    let pairs = work::run(py, |_| {
        Pairs::load(&pairs, group_terms.as_deref()).map_err(|e| to_py(e.into()))
    })??;
    let mut runs = Vec::with_capacity(models.len());
    for model in &models {
        let model = model.get();
        let run = work::run(py, |_| {
            lmbias_runs::crows::run(model.model(), &pairs, &settings, &Ctx::none())
                .map_err(|e| model.error(e))
        })??;
        runs.push(run);
    }
    let comparisons = lmbias_runs::crows::compare(&runs).map_err(|e| to_py(e.into()))?;
    let relative = if relative {
        Some(
            lmbias_runs::crows::relative(&runs[0], &runs[1])
                .map_err(|e| value_error(format!("relative: {e}")))?,
        )
    } else {
        None
    };
    to_python(
        py,
        &CrowsOutput {
            results: &runs,
            comparisons,
            relative,
        },
    )
}
