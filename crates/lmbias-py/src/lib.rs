//! The Python package `lmbias`: the CLI's numbers from a notebook.
//!
//! A thin layer, like the CLI: each function converts its Python arguments, calls what the
//! CLI calls — lmbias-runs, which opens models and runs the studies (so `lmbias.weat` and
//! `lmbias weat` agree bit for bit) — and converts the answer back — numpy arrays for vectors, plain dicts and lists for tables, so
//! `pandas.DataFrame(rows)` works. Errors become Python exceptions of the right kind with the
//! CLI's one-line message (`errors`); model work runs with the GIL released.
//!
//! The API is documented for Python users in `lmbias.pyi` (the type stub shipped in the wheel).

use pyo3::prelude::*;

mod convert;
mod data;
mod draw;
mod errors;
mod model;
mod studies;
mod train;
mod weat;
mod work;

/// Measure social and historical bias in masked language models: WEAT/SEAT with exact
/// permutation tests, models (BERT, T5 encoders, static word vectors), and the three studies.
#[pymodule]
fn lmbias(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // numpy's C API loads on first use by importing numpy, which fails (and the numpy crate
    // panics) when a Ctrl-C is pending: load it now, where a failed import is an error.
    m.py().import("numpy")?;
    numpy::PyArray1::<f32>::zeros(m.py(), 0, false);
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<weat::WeatResult>()?;
    m.add_class::<model::Model>()?;
    m.add_function(wrap_pyfunction!(weat::weat, m)?)?;
    m.add_function(wrap_pyfunction!(data::load_test, m)?)?;
    m.add_function(wrap_pyfunction!(studies::seat, m)?)?;
    m.add_function(wrap_pyfunction!(studies::valence, m)?)?;
    m.add_function(wrap_pyfunction!(studies::probe, m)?)?;
    m.add_function(wrap_pyfunction!(studies::crows, m)?)?;
    m.add_function(wrap_pyfunction!(train::train_mlm, m)?)?;
    m.add_function(wrap_pyfunction!(draw::hold_out, m)?)?;
    m.add_function(wrap_pyfunction!(draw::draw_sentences, m)?)?;
    m.add_function(wrap_pyfunction!(draw::draw_pairs, m)?)?;
    Ok(())
}
