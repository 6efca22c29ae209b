//! Support for lmbias's tests, shared by every crate's test binary: fixture paths
//! (`tests/fixtures/`), the reference numbers generated there, float comparisons and
//! a loopback Hugging Face hub ([`hub_server`]).
//!
//! It depends on no lmbias crate, so a crate's tests can use it without a cycle
//! (lmbias-model's tests included); a helper that needs lmbias's API lives in the
//! test binary that uses it.

use std::path::{Path, PathBuf};

pub mod hostile;
pub mod hub_server;

/// The repository root (datasets live under it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/lmbias-testing is two folders below the root")
        .to_path_buf()
}

/// `tests/fixtures/` in this repository.
pub fn fixtures() -> PathBuf {
    repo_root().join("tests").join("fixtures")
}

/// The tiny checkpoints of every family besides BERT and T5 (written by
/// `tests/fixtures/generate/tiny_families*.py` and `tiny_deberta.py`), each with whether it has a masked-LM
/// head: the folders every entry-point test runs.
pub const FAMILY_FIXTURES: [(&str, bool); 13] = [
    ("tiny-roberta-mlm", true),
    ("tiny-roberta-base", false),
    ("tiny-xlmr-mlm", true),
    ("tiny-camembert-mlm", true),
    ("tiny-distilbert-mlm", true),
    ("tiny-electra-generator", true),
    ("tiny-electra-discriminator", false),
    ("tiny-albert-mlm", true),
    ("tiny-albert-groups", true),
    ("tiny-modernbert-mlm", true),
    ("tiny-deberta-v3-mlm", true),
    ("tiny-deberta-v2-conv", true),
    ("tiny-deberta-v2-base", false),
];

/// A fixture model folder, `tests/fixtures/models/NAME`.
pub fn model_dir(name: &str) -> PathBuf {
    fixtures().join("models").join(name)
}

/// The ~300 passages the tiny fixtures' vocabularies were built from
/// (`tests/fixtures/generate/corpus.txt`, blank lines dropped): the training tests' corpus.
pub fn fixture_passages() -> Vec<String> {
    let path = fixtures().join("generate").join("corpus.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An error and its causes on one line, as the CLI prints them (`{:#}`).
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut line = err.to_string();
    let mut cause = err.source();
    while let Some(e) = cause {
        line.push_str(&format!(": {e}"));
        cause = e.source();
    }
    line
}

/// A writable copy of fixture model `name` in a fresh temporary folder named by
/// `tag` (unique per test), for tests that break a file and load the folder.
pub fn copy_fixture(name: &str, tag: &str) -> PathBuf {
    let dst = std::env::temp_dir().join(format!("lmbias-fixture-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).unwrap();
    for entry in std::fs::read_dir(model_dir(name)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
    }
    dst
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

/// The complete checkpoint of a training run under `output`'s checkpoint folder
/// (`OUTPUT.checkpoint`, or a copy an interrupted replacement left beside it, `.tmp-PID` or
/// `.prev-PID`): one whose `digest.json` lists every file it holds with its sha256. Checked
/// here from the files alone, as a user could, not through the trainer's own check.
pub fn complete_checkpoint(output: &Path) -> Option<PathBuf> {
    use sha2::{Digest, Sha256};
    let parent = output.parent()?;
    let name = format!("{}.checkpoint", output.file_name()?.to_string_lossy());
    let verifies = |dir: &Path| -> bool {
        let Ok(text) = std::fs::read_to_string(dir.join("digest.json")) else {
            return false;
        };
        let Ok(digests) = serde_json::from_str::<serde_json::Value>(&text) else {
            return false;
        };
        let Some(listed) = digests["sha256"].as_object() else {
            return false;
        };
        listed.iter().all(|(file, want)| {
            std::fs::read(dir.join(file)).is_ok_and(|bytes| {
                Some(format!("{:x}", Sha256::digest(bytes)).as_str()) == want.as_str()
            })
        }) && ["state.json", "model/model.safetensors"]
            .iter()
            .all(|f| listed.contains_key(*f))
    };
    std::fs::read_dir(parent)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n == name
                || n.starts_with(&format!("{name}.tmp-"))
                || n.starts_with(&format!("{name}.prev-"))
        })
        .find(|p| verifies(p))
}
