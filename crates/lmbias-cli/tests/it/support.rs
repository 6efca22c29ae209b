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
