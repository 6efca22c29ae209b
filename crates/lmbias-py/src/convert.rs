//! Python values in and out: array-likes to vectors, texts, layers, poolings, and the
//! libraries' serialisable results to plain dicts and lists.

use lmbias_runs::encoder::Embedder;
use lmbias_runs::metrics::weat::{Alternative, StdKind};
use lmbias_runs::{Layer, Pooling};
use numpy::PyReadonlyArray2;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde::Serialize;

use crate::errors::value_error;

/// Rows of a 2-D array-like (numpy array of any real dtype, nested lists), as f64.
///
/// float32 and float64 convert to f64 exactly, as the CLI reads its JSON and text files.
pub(crate) struct Matrix {
    values: Vec<f64>,
    rows: usize,
    cols: usize,
}

impl Matrix {
    /// `numpy.ascontiguousarray(obj, dtype="float64")`, which must be 2-D; `name` says which
    /// argument in an error.
    pub(crate) fn from_array_like(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Matrix> {
        let py = obj.py();
        let kwargs = PyDict::new(py);
        kwargs.set_item("dtype", "float64")?;
        let array = py
            .import("numpy")?
            .call_method("ascontiguousarray", (obj,), Some(&kwargs))?;
        let ndim: usize = array.getattr("ndim")?.extract()?;
        if ndim != 2 {
            let shape = array.getattr("shape")?.repr()?;
            return Err(value_error(format!(
                "{name} must be 2-D (one row per word or sentence), got shape {shape}"
            )));
        }
        let array: PyReadonlyArray2<'_, f64> = array.extract()?;
        let (rows, cols) = array.as_array().dim();
        Ok(Matrix {
            values: array.as_slice()?.to_vec(),
            rows,
            cols,
        })
    }

    /// One slice per row (a row of width 0 is an empty slice).
    pub(crate) fn rows(&self) -> Vec<&[f64]> {
        (0..self.rows)
            .map(|i| &self.values[i * self.cols..(i + 1) * self.cols])
            .collect()
    }
}

/// A count or seed taken as a Python int of any size, so that a negative one is the
/// `ValueError` it is documented to be (pyo3's `u64` would raise `OverflowError`).
pub(crate) fn unsigned(name: &str, value: i128) -> PyResult<u64> {
    u64::try_from(value).map_err(|_| {
        value_error(format!(
            "{name} must be between 0 and 2**64 - 1, got {value}"
        ))
    })
}

/// `ddof` as the standard deviation that divides WEAT's d.
pub(crate) fn std_kind(ddof: i64) -> PyResult<StdKind> {
    match ddof {
        0 => Ok(StdKind::Population),
        1 => Ok(StdKind::Sample),
        other => Err(value_error(format!(
            "ddof {other}: expected 1 (sample std, sent-bias and Caliskan) or 0 (population std, WEFE)"
        ))),
    }
}

/// `alternative` as the tails of WEAT's permutation p.
pub(crate) fn alternative(name: &str) -> PyResult<Alternative> {
    match name {
        "greater" => Ok(Alternative::Greater),
        "two-sided" => Ok(Alternative::TwoSided),
        other => Err(value_error(format!(
            "alternative {other:?} is not supported: expected \"greater\" (sent-bias's one-sided test) or \"two-sided\""
        ))),
    }
}

/// A list of texts from a `str` (one text) or any iterable of `str`.
pub(crate) fn texts(obj: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if obj.is_instance_of::<PyString>() {
        return Ok(vec![obj.extract()?]);
    }
    obj.try_iter()?
        .map(|item| {
            item?.extract::<String>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err("texts must be a str or an iterable of str")
            })
        })
        .collect()
}

/// `None` for the model's own pooling, else `cls`, `mean` or `first`.
pub(crate) fn pooling(name: Option<&str>, model: &dyn Embedder) -> PyResult<Pooling> {
    Ok(pooling_choice(name)?.unwrap_or_else(|| model.default_pooling()))
}

/// `cls`, `mean` or `first`; `None` leaves it to each model.
pub(crate) fn pooling_choice(name: Option<&str>) -> PyResult<Option<Pooling>> {
    name.map(|name| name.parse().map_err(value_error))
        .transpose()
}

/// A layer as Python indexes `hidden_states`: `-1` (or `"last"`) is the last block's output,
/// `0` the embedding output, `-2` the block before the last, and so on.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LayerArg {
    Index(i64),
    Last,
}

impl LayerArg {
    /// An int or `"last"`; `None` (the argument left out) is -1, the last layer.
    pub(crate) fn from_py(obj: Option<&Bound<'_, PyAny>>) -> PyResult<LayerArg> {
        let Some(obj) = obj else {
            return Ok(LayerArg::Last);
        };
        if obj.is_instance_of::<PyString>() {
            let text: String = obj.extract()?;
            return match text.as_str() {
                "last" => Ok(LayerArg::Last),
                other => Err(value_error(format!(
                    "expected `last` or a layer number, got {other:?}"
                ))),
            };
        }
        Ok(LayerArg::Index(obj.extract()?))
    }

    /// The library's [`Layer`] on `model`; only a negative index other than -1 needs its depth.
    pub(crate) fn resolve(self, model: &dyn Embedder) -> PyResult<Layer> {
        match self {
            LayerArg::Last | LayerArg::Index(-1) => Ok(Layer::Last),
            LayerArg::Index(i) if i >= 0 => Ok(Layer::Index(i as usize)),
            LayerArg::Index(i) => {
                let count = model.num_layers() as i64 + 1;
                if i + count < 0 {
                    return Err(value_error(format!(
                        "layer {i} does not exist: the model has layers 0..={} (or -{count}..=-1)",
                        count - 1
                    )));
                }
                Ok(Layer::Index((i + count) as usize))
            }
        }
    }
}

/// A serialisable result as plain Python objects, keys in the struct's field order: the
/// JSON the CLI prints, read back by Python's `json` (floats round-trip exactly).
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    value: &impl Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}
