//! Helpers shared by xtask's test modules.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `dir`, by its path relative to `dir`, with its bytes.
pub(crate) fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    files
}

/// Runs the xtask binary offline (`HF_HUB_OFFLINE=1`) with `hf_home` as its Hugging Face home.
pub(crate) fn xtask(args: &[&str], hf_home: &Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env("HF_HOME", hf_home)
        .env_remove("HF_HUB_CACHE")
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap()
}
