//! lmbias-static's tests, one binary; every test's path starts with `static_`, so
//! `cargo test --workspace -- static` runs them all.

mod static_formats;
mod static_glove;
mod static_model;
mod static_open;
mod static_tokenize;

use std::path::{Path, PathBuf};

/// `tests/fixtures/static/NAME` of the workspace, its one fixtures root.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/static")
        .join(name)
}

/// Writes `bytes` to a fresh file named `name` in this process's scratch folder.
fn scratch(name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-static-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    path
}

/// A `.npy` file's bytes (format 1.0) for a header dict and raw data.
fn npy_bytes(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.to_owned();
    // Padded with spaces to a multiple of 64 bytes (with the 10-byte preamble), ending in \n.
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn f32_le(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
