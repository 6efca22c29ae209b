//! The three studies, called as `lmbias seat`, `lmbias valence` and `lmbias probe` call
//! lmbias-studies, returning rows as plain dicts (`pandas.DataFrame(rows)`); what the CLI
//! says on stderr (lost examples, refused tests) becomes a Python warning.

use std::ffi::CString;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use anyhow::Context;
use lmbias_data::Role;
use lmbias_data::association::{self, AssociationTest, LoadOptions, SetSpec, TestSpec};
use lmbias_data::probe::{load_templates, load_word_list};
use lmbias_data::valence::ValenceDataset;
use lmbias_encoder::Layer;
use lmbias_metrics::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED, Options};
use lmbias_studies::probe::{Probe, ProbeStep, embed_words, word_vectors};
use lmbias_studies::seat::{self as seat_study, Battery, BatteryResult, Copies, Lost, SeatOptions};
use lmbias_studies::valence::{self as valence_study, DEFAULT_TOP_K};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

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

/// A test to run: read from a file (then named by it in errors) or built from a dict.
struct Loaded {
    test: AssociationTest,
    file: Option<PathBuf>,
    lowercased: Option<AssociationTest>,
}

/// One test, a directory of them, or a dict as `load_test` returns; or a list of these.
enum TestArg {
    Path(PathBuf),
    Dict(AssociationTest),
}

fn test_args(obj: &Bound<'_, PyAny>) -> PyResult<Vec<TestArg>> {
    let one = |item: &Bound<'_, PyAny>| -> PyResult<Option<TestArg>> {
        if let Ok(dict) = item.cast::<PyDict>() {
            return Ok(Some(TestArg::Dict(test_from_dict(dict)?)));
        }
        if item.is_instance_of::<PyString>() || item.hasattr("__fspath__")? {
            return Ok(Some(TestArg::Path(item.extract()?)));
        }
        Ok(None)
    };
    if let Some(arg) = one(obj)? {
        return Ok(vec![arg]);
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

/// Every test, in the order given, as `lmbias seat --test` loads them (a directory sorted by
/// name, each test with its lower-cased copy); two tests with one name are refused.
fn load_tests(args: Vec<TestArg>) -> PyResult<Vec<Loaded>> {
    let options = LoadOptions::default();
    let mut out: Vec<Loaded> = Vec::new();
    for arg in args {
        let loaded: Vec<Loaded> = match arg {
            TestArg::Dict(test) => vec![Loaded {
                test,
                file: None,
                lowercased: None,
            }],
            // A file or a folder, with lower-cased copies, as `lmbias seat --test` reads them.
            TestArg::Path(path) => association::load_battery(&[path], &options)
                .map_err(|e| to_py(e.into()))?
                .into_iter()
                .map(|b| Loaded {
                    test: b.test,
                    file: Some(b.file),
                    lowercased: b.lowercased,
                })
                .collect(),
        };
        for l in loaded {
            if let Some(other) = out.iter().find(|o| o.test.name() == l.test.name()) {
                let origin = |l: &Loaded| {
                    l.file
                        .as_ref()
                        .map_or_else(|| "a dict".to_owned(), |f| f.display().to_string())
                };
                return Err(value_error(format!(
                    "{}: test {} is already loaded from {}",
                    origin(&l),
                    l.test.name(),
                    origin(other)
                )));
            }
            out.push(l);
        }
    }
    Ok(out)
}

/// SEAT: a battery of association tests on one or more models, one row per (model, test).
#[pyfunction]
#[pyo3(signature = (model, tests, *, pooling = None, layer = None, n_samples = DEFAULT_N_SAMPLES.into(), seed = DEFAULT_SEED.into(), also_lowercased_copy = false))]
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
) -> PyResult<Bound<'py, PyAny>> {
    let (n_samples, seed) = (unsigned("n_samples", n_samples)?, unsigned("seed", seed)?);
    let models = models(model)?;
    let copies = if also_lowercased_copy {
        Copies::AlsoLowercased
    } else {
        Copies::AsWritten
    };
    let tests = test_args(tests)?;
    let loaded = work::run(py, |_| load_tests(tests))??;
    // The study names the test; the file it came from is ours to add, as the CLI adds it.
    let with_file = |e: seat_study::SeatError| match e
        .test()
        .and_then(|name| loaded.iter().find(|l| l.test.name() == name))
        .and_then(|l| l.file.as_ref())
    {
        Some(file) => anyhow::Error::new(e).context(file.display().to_string()),
        None => anyhow::Error::new(e),
    };
    let battery = Battery::new(
        loaded
            .iter()
            .map(|l| (l.test.clone(), l.lowercased.clone()))
            .collect(),
    )
    .map_err(|e| to_py(with_file(e)))?;
    let mut result = BatteryResult::default();
    for model in &models {
        let model = model.get();
        let embedder = model.loaded_embedder(py)?;
        let options = SeatOptions {
            pooling: convert::pooling(pooling, embedder.as_ref())?,
            layer: LayerArg::from_py(layer)?.resolve(embedder.as_ref())?,
            weat: Options {
                n_samples,
                seed,
                ..Options::default()
            },
            // A static model has no vector for a word outside its vocabulary: drop such examples.
            lost: if model.is_static() {
                Lost::Drop
            } else {
                Lost::Keep
            },
        };
        let rows = work::run(py, |cancel| {
            seat_study::run_battery_cancellable(
                embedder.as_ref(),
                &battery,
                &options,
                copies,
                cancel,
            )
        })?
        .map_err(|e| to_py(with_file(e)))?;
        result.append(rows);
    }
    for row in result.rows.iter().filter(|r| !r.lost.is_empty()) {
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
    for refused in &result.refused {
        warn(py, &refused.to_string())?;
    }
    to_python(py, &result.rows)
}

/// Temporal valence (Cuscito et al.): one row per (model, sentence) with B, A and the scored
/// proposals.
#[pyfunction]
#[pyo3(signature = (model, dataset, top_k = DEFAULT_TOP_K.get() as i128))]
pub(crate) fn valence<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    dataset: PathBuf,
    top_k: i128,
) -> PyResult<Bound<'py, PyList>> {
    let models = models(model)?;
    let top_k = NonZeroUsize::new(unsigned("top_k", top_k)? as usize)
        .ok_or_else(|| value_error("top_k must be at least 1"))?;
    let dataset =
        work::run(py, |_| ValenceDataset::load(&dataset))?.map_err(|e| to_py(e.into()))?;
    let rows = PyList::empty(py);
    for model in &models {
        let model = model.get();
        let result = work::run(py, |_| {
            let lm = model.masked_lm()?;
            valence_study::run(lm.as_ref(), &dataset, top_k).map_err(|e| to_py(e.into()))
        })??;
        for sentence in &result.sentences {
            let row = PyDict::new(py);
            row.set_item("model", &result.model)?;
            row.set_item("dataset", &result.dataset)?;
            row.set_item("top_k", result.top_k)?;
            let fields = to_python(py, sentence)?;
            row.update(fields.cast::<PyDict>()?.as_mapping())?;
            rows.append(row)?;
        }
    }
    Ok(rows)
}

/// Dusi 2024's categorical-association probe: one row per size n of the most relevant
/// dimensions (n, dims, rows, cols, table, chi2, dof, p_value).
#[pyfunction]
#[pyo3(signature = (model, protected, stereotyped, *, templates = None, layer = None, n = None))]
pub(crate) fn probe<'py>(
    py: Python<'py>,
    model: &Bound<'py, Model>,
    protected: PathBuf,
    stereotyped: PathBuf,
    templates: Option<PathBuf>,
    layer: Option<&Bound<'py, PyAny>>,
    n: Option<i128>,
) -> PyResult<Bound<'py, PyList>> {
    let model = model.get();
    if !model.is_static() && templates.is_none() {
        return Err(value_error(format!(
            "model {} needs templates (only static word vectors do not)",
            model.name()
        )));
    }
    let embedder = model.loaded_embedder(py)?;
    let layer: Layer = LayerArg::from_py(layer)?.resolve(embedder.as_ref())?;
    let probe = work::run(py, |_| -> anyhow::Result<Probe> {
        let protected_list = load_word_list(&protected)?;
        let stereotyped_list = load_word_list(&stereotyped)?;
        // Static word vectors have no context: each word is its own vector, no templates.
        let templates = match &templates {
            Some(path) if !model.is_static() => Some(load_templates(path)?),
            _ => None,
        };
        let embed = |list, path: &Path| {
            match &templates {
                Some(templates) => embed_words(embedder.as_ref(), list, templates, layer),
                None => word_vectors(embedder.as_ref(), list, layer),
            }
            .with_context(|| path.display().to_string())
        };
        Ok(Probe::fit(
            embed(&protected_list, &protected)?,
            embed(&stereotyped_list, &stereotyped)?,
        )?)
    })?
    .map_err(to_py)?;
    let steps: Vec<ProbeStep> = match n {
        Some(n) if n < 1 || n > probe.hidden_size() as i128 => {
            return Err(value_error(format!(
                "n {n}: must be between 1 and the hidden size {}",
                probe.hidden_size()
            )));
        }
        Some(n) => vec![probe.step(n as usize).map_err(|e| to_py(e.into()))?],
        None => work::run(py, |_| probe.sweep())?.map_err(|e| to_py(e.into()))?,
    };
    let rows = PyList::empty(py);
    for step in &steps {
        let row = PyDict::new(py);
        row.set_item("model", model.name())?;
        let fields = to_python(py, step)?;
        row.update(fields.cast::<PyDict>()?.as_mapping())?;
        rows.append(row)?;
    }
    Ok(rows)
}
