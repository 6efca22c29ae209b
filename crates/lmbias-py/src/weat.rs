//! `lmbias.weat`: one association test on the caller's vectors, with what `lmbias weat` runs
//! (lmbias-metrics' `Associations::from_vectors` and `weat`), so both give the same numbers.

use lmbias_runs::metrics::weat::{
    Alternative, Associations, DEFAULT_N_SAMPLES, DEFAULT_SEED, Options, weat_cancellable,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{self, Matrix, unsigned};
use crate::errors::to_py;
use crate::work;

/// The outcome of `lmbias.weat`: effect size, test statistic and permutation test.
#[pyclass(module = "lmbias", frozen)]
pub(crate) struct WeatResult {
    /// Cohen's d; None when every association score is equal (0/0).
    #[pyo3(get)]
    effect_size: Option<f64>,
    /// The permutation p-value (ties count, as in sent-bias).
    #[pyo3(get)]
    p_value: f64,
    /// True when every split of X ∪ Y was enumerated; False when splits were sampled.
    #[pyo3(get)]
    exact: bool,
    /// How many equal splits of X ∪ Y exist, C(|X|+|Y|, |X|); None beyond 2^128.
    #[pyo3(get)]
    n_partitions: Option<u128>,
    /// Splits evaluated: all of them when exact, else n_samples (one of them imagined).
    #[pyo3(get)]
    n_evaluated: u64,
    /// Splits at least as extreme as the observed one.
    #[pyo3(get)]
    n_extreme: u64,
    /// Caliskan's s(X, Y, A, B) = Σ_X s(x, A, B) − Σ_Y s(y, A, B).
    #[pyo3(get)]
    test_statistic: f64,
    /// The ddof of the standard deviation dividing the effect size (1 = sample, as sent-bias).
    #[pyo3(get)]
    ddof: usize,
    /// "greater" (sent-bias's one-sided test) or "two-sided".
    #[pyo3(get)]
    alternative: &'static str,
    /// The seed of the sampled splits; None for an exact test.
    #[pyo3(get)]
    seed: Option<u64>,
    /// The n_samples asked for (exact enumeration when n_partitions ≤ n_samples).
    #[pyo3(get)]
    n_samples: u64,
    /// (|X|, |Y|).
    #[pyo3(get)]
    sizes: (usize, usize),
}

#[pymethods]
impl WeatResult {
    /// Every field as a plain dict (JSON-serialisable; keys as in `lmbias weat --json`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("effect_size", self.effect_size)?;
        dict.set_item("p_value", self.p_value)?;
        dict.set_item("exact", self.exact)?;
        dict.set_item("n_partitions", self.n_partitions)?;
        dict.set_item("n_evaluated", self.n_evaluated)?;
        dict.set_item("n_extreme", self.n_extreme)?;
        dict.set_item("test_statistic", self.test_statistic)?;
        dict.set_item(
            "std",
            if self.ddof == 0 {
                "population"
            } else {
                "sample"
            },
        )?;
        dict.set_item("ddof", self.ddof)?;
        dict.set_item("alternative", self.alternative)?;
        dict.set_item("n_samples", self.n_samples)?;
        dict.set_item("seed", self.seed)?;
        let sizes = PyDict::new(py);
        sizes.set_item("x", self.sizes.0)?;
        sizes.set_item("y", self.sizes.1)?;
        dict.set_item("sizes", sizes)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let dict = self.to_dict(py)?;
        let mut fields = Vec::new();
        for key in [
            "effect_size",
            "p_value",
            "exact",
            "n_partitions",
            "n_evaluated",
        ] {
            let value = dict
                .get_item(key)?
                .map_or(Ok(String::new()), |v| v.repr().map(|r| r.to_string()))?;
            fields.push(format!("{key}={value}"));
        }
        Ok(format!("WeatResult({})", fields.join(", ")))
    }
}

/// WEAT on four 2-D array-likes (rows are the vectors of X, Y, A, B).
#[pyfunction]
#[pyo3(signature = (x, y, a, b, /, *, n_samples = DEFAULT_N_SAMPLES.into(), seed = DEFAULT_SEED.into(), ddof = 1, alternative = "greater", allow_unequal_sizes = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn weat(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    n_samples: i128,
    seed: i128,
    ddof: i64,
    alternative: &str,
    allow_unequal_sizes: bool,
) -> PyResult<WeatResult> {
    let (std, alternative) = (convert::std_kind(ddof)?, convert::alternative(alternative)?);
    let (n_samples, seed) = (unsigned("n_samples", n_samples)?, unsigned("seed", seed)?);
    let options = Options {
        n_samples,
        seed,
        std,
        alternative,
        allow_unequal_sizes,
    };
    let [x, y, a, b] = [("X", x), ("Y", y), ("A", a), ("B", b)]
        .map(|(name, obj)| Matrix::from_array_like(name, obj));
    let (x, y, a, b) = (x?, y?, a?, b?);
    // An exact test can enumerate billions of splits: without the GIL, and Ctrl-C stops it.
    let result = work::run(py, |cancel| {
        let assoc = Associations::from_vectors(&x.rows(), &y.rows(), &a.rows(), &b.rows())?;
        weat_cancellable(&assoc, &options, cancel)
    })?
    .map_err(|e| to_py(e.into()))?;
    let p = result.permutation;
    Ok(WeatResult {
        effect_size: result.effect_size,
        p_value: p.p_value,
        exact: p.exact,
        n_partitions: p.n_partitions,
        n_evaluated: p.n_evaluated,
        n_extreme: p.n_extreme,
        test_statistic: result.test_statistic,
        ddof: result.std.ddof(),
        alternative: match p.alternative {
            Alternative::Greater => "greater",
            Alternative::TwoSided => "two-sided",
        },
        seed: p.seed,
        n_samples,
        sizes: (result.sizes.x, result.sizes.y),
    })
}
