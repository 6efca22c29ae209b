//! lmbias-runs's integration tests: opening, resolution against a loopback hub, provenance,
//! the runs' defaults from the model, and sharded runs.

mod draw;
mod model;
mod probe;
mod resolve;
mod seat;
mod shards;

use std::path::PathBuf;

use sha2::{Digest, Sha256};

/// A fresh scratch folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-runs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// sha256 in hex, computed here independently of the crate's own code.
fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}
