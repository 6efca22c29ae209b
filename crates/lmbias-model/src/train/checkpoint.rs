//! Checkpoints of a run in `OUTPUT.checkpoint/`: the model as a Hugging Face
//! folder (`model/`, which lmbias itself can load), the optimizer's state and
//! the step reached, then `digest.json` (the sha256 of every other file),
//! written last. A checkpoint is believed only when its digest verifies.
//!
//! A new checkpoint is written under `OUTPUT.checkpoint.tmp-PID`; the old one
//! steps aside to `OUTPUT.checkpoint.prev-PID` and the new one takes its place,
//! then the old one is removed. Whatever signal arrives when, at least one
//! complete checkpoint is on disk, and `--resume` finds it under any of the
//! three names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use burn::optim::ModuleOptimizer;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::export::Folder;
use super::{TrainError, TrainSettings};

/// What a checkpoint must match to be resumed: the same start, corpus and settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Fingerprint {
    pub(super) start: String,
    pub(super) corpus_sha256: String,
    pub(super) settings: TrainSettings,
}

/// state.json of a checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct State {
    pub(super) fingerprint: Fingerprint,
    /// Optimizer steps done.
    pub(super) step: usize,
    /// The loss of each of them.
    pub(super) losses: Vec<f64>,
}

/// A checkpoint found on disk, its digest verified.
pub(super) struct Found {
    dir: PathBuf,
}

/// digest.json: the sha256 of each file of the checkpoint, by its path inside it.
#[derive(Debug, Serialize, Deserialize)]
struct Digests {
    sha256: BTreeMap<String, String>,
}

const DIGESTS: &str = "digest.json";

/// The files every checkpoint has; its digest must list them.
const REQUIRED: [&str; 4] = [
    "state.json",
    "optimizer.bpk",
    "model/config.json",
    "model/model.safetensors",
];

fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    std::io::copy(&mut std::fs::File::open(path)?, &mut hasher)?;
    Ok(format!("{:x}", hasher.finalize()))
}

/// Files under `dir` as paths relative to it with `/`, digest.json left out.
fn files(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        for entry in std::fs::read_dir(dir.join(&relative))? {
            let entry = entry?;
            let path = relative.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else {
                let name = path.to_string_lossy().replace('\\', "/");
                if name != DIGESTS {
                    out.push(name);
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Writes `dir`'s digest.json, last: until it exists, the checkpoint is incomplete.
fn write_digests(dir: &Path) -> Result<(), TrainError> {
    let mut sha256 = BTreeMap::new();
    for name in files(dir).map_err(|e| TrainError::io(dir, "cannot list", e))? {
        let path = dir.join(&name);
        let digest = sha256_of(&path).map_err(|e| TrainError::io(&path, "cannot read", e))?;
        sha256.insert(name, digest);
    }
    let path = dir.join(DIGESTS);
    let json = serde_json::to_string_pretty(&Digests { sha256 }).expect("digests serialise");
    std::fs::write(&path, json).map_err(|e| TrainError::io(&path, "cannot write", e))
}

/// Whether `dir` holds a complete, unchanged checkpoint: `Err` names the file at fault.
fn verify(dir: &Path) -> Result<(), (PathBuf, String)> {
    let path = dir.join(DIGESTS);
    let text = std::fs::read_to_string(&path).map_err(|_| {
        (
            path.clone(),
            "missing: the checkpoint is incomplete".to_owned(),
        )
    })?;
    let digests: Digests = serde_json::from_str(&text)
        .map_err(|e| (path.clone(), format!("not a checkpoint digest: {e}")))?;
    if let Some(name) = REQUIRED.iter().find(|n| !digests.sha256.contains_key(**n)) {
        return Err((path, format!("does not list {name}")));
    }
    for (name, want) in &digests.sha256 {
        let file = dir.join(name);
        match sha256_of(&file) {
            Err(_) => return Err((file, "missing: the checkpoint is incomplete".to_owned())),
            Ok(found) if found != *want => {
                return Err((
                    file,
                    "does not match the checkpoint's digest.json: it was changed after the \
                     checkpoint was written"
                        .to_owned(),
                ));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// `dir` renamed with `suffix` and this process's id (`OUTPUT.checkpoint.tmp-PID`).
fn beside(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}-{}", std::process::id()));
    dir.with_file_name(name)
}

/// `dir` and the copies a run left beside it (`.tmp-PID` being written, `.prev-PID`
/// stepping aside), those that hold a state.json.
fn candidates(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    let (tmp, prev) = (format!("{name}.tmp-"), format!("{name}.prev-"));
    if let Some(Ok(entries)) = dir.parent().map(|p| {
        std::fs::read_dir(if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        })
    }) {
        let mut beside: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(&tmp) || n.starts_with(&prev)
            })
            .map(|e| dir.with_file_name(e.file_name()))
            .collect();
        beside.sort();
        out.extend(beside);
    }
    out.retain(|d| d.join("state.json").is_file());
    out
}

/// The step a verified checkpoint's state.json records (0 when unreadable).
fn step_of(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("state.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<State>(&t).ok())
        .map_or(0, |s| s.step)
}

/// The checkpoint of `dir`: `Some` when resuming; an error when one is there
/// but `--resume` was not given (it would be overwritten), or when `--resume`
/// finds none, or none whose digest verifies. A complete copy left beside `dir`
/// by an interrupted replacement (`.tmp-PID`, `.prev-PID`) counts: the one with
/// the most steps is moved into place and used.
pub(super) fn find(dir: &Path, resume: bool) -> Result<Option<Found>, TrainError> {
    let candidates = candidates(dir);
    if !resume {
        return match candidates.first() {
            None => Ok(None),
            Some(found) => Err(TrainError::Output {
                path: found.clone(),
                message: "a checkpoint of an earlier run is here: pass --resume to continue it, \
                          or remove it"
                    .into(),
                source: None,
            }),
        };
    }
    let mut complete = Vec::new();
    let mut broken = None;
    for candidate in candidates {
        match verify(&candidate) {
            Ok(()) => complete.push(candidate),
            Err(fault) => {
                broken.get_or_insert(fault);
            }
        }
    }
    let Some(best) = complete.into_iter().max_by_key(|d| step_of(d)) else {
        return Err(match broken {
            Some((path, message)) => TrainError::Output {
                path,
                message: format!("--resume: {message}; remove the checkpoint to start anew"),
                source: None,
            },
            None => TrainError::Output {
                path: dir.to_path_buf(),
                message: "--resume: no checkpoint here (state.json is missing)".into(),
                source: None,
            },
        });
    };
    if best != dir {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::rename(&best, dir)
            .map_err(|e| TrainError::io(&best, "cannot move the checkpoint into place", e))?;
    }
    Ok(Some(Found {
        dir: dir.to_path_buf(),
    }))
}

impl Found {
    /// The model folder of the checkpoint.
    pub(super) fn dir(&self) -> PathBuf {
        self.dir.join("model")
    }

    /// Its state, which must have been made by the same run.
    pub(super) fn state(&self, fingerprint: &Fingerprint) -> Result<State, TrainError> {
        let path = self.dir.join("state.json");
        let text =
            std::fs::read_to_string(&path).map_err(|e| TrainError::io(&path, "cannot read", e))?;
        let state: State = serde_json::from_str(&text).map_err(|e| TrainError::Output {
            path: path.clone(),
            message: format!("not a checkpoint state: {e}"),
            source: None,
        })?;
        if state.fingerprint != *fingerprint {
            return Err(TrainError::Output {
                path,
                message:
                    "made by a run with another start, corpus or settings: --resume continues \
                          only the same run (remove the checkpoint to start anew)"
                        .into(),
                source: None,
            });
        }
        let steps = fingerprint.settings.steps;
        if state.step == 0 || state.step >= steps || state.losses.len() != state.step {
            return Err(TrainError::Output {
                path,
                message: format!(
                    "step {} with {} losses cannot be a checkpoint of a run of {steps} steps \
                     (remove the checkpoint to start anew)",
                    state.step,
                    state.losses.len()
                ),
                source: None,
            });
        }
        Ok(state)
    }

    /// The optimizer with the checkpoint's moments.
    pub(super) fn optimizer(
        &self,
        optimizer: ModuleOptimizer,
    ) -> Result<ModuleOptimizer, TrainError> {
        let path = self.dir.join("optimizer.bpk");
        let bytes = std::fs::read(&path).map_err(|e| TrainError::io(&path, "cannot read", e))?;
        optimizer
            .from_bytes(Bytes::from_bytes_vec(bytes))
            .map_err(|e| TrainError::Output {
                path,
                message: format!("cannot read the optimizer state: {e}"),
                source: None,
            })
    }
}

/// Replaces the checkpoint in `dir` with this one: written whole beside it with its
/// digest last, then put in its place, the old one stepping aside until the new one
/// is there (see the module's notes).
pub(super) fn save(
    dir: &Path,
    folder: &Folder<'_>,
    optimizer: &ModuleOptimizer,
    state: &State,
) -> Result<(), TrainError> {
    let staging = beside(dir, "tmp");
    let _ = std::fs::remove_dir_all(&staging);
    let model = staging.join("model");
    std::fs::create_dir_all(&model).map_err(|e| TrainError::io(&model, "cannot create", e))?;
    folder.write_into(&model)?;
    let bytes = optimizer.into_bytes().map_err(|e| TrainError::Output {
        path: staging.join("optimizer.bpk"),
        message: format!("cannot serialise the optimizer state: {e}"),
        source: None,
    })?;
    let path = staging.join("optimizer.bpk");
    std::fs::write(&path, &bytes[..]).map_err(|e| TrainError::io(&path, "cannot write", e))?;
    let path = staging.join("state.json");
    let json = serde_json::to_string(state).expect("the state serialises");
    std::fs::write(&path, json).map_err(|e| TrainError::io(&path, "cannot write", e))?;
    write_digests(&staging)?;
    let previous = beside(dir, "prev");
    let _ = std::fs::remove_dir_all(&previous);
    if dir.exists() {
        std::fs::rename(dir, &previous)
            .map_err(|e| TrainError::io(dir, "cannot move the old checkpoint aside", e))?;
    }
    std::fs::rename(&staging, dir)
        .map_err(|e| TrainError::io(dir, "cannot move the checkpoint into place", e))?;
    let _ = std::fs::remove_dir_all(&previous);
    Ok(())
}

/// Removes the checkpoints once the output folder is complete, copies left beside
/// them by interrupted runs included.
pub(super) fn remove(dir: &Path) {
    for candidate in candidates(dir) {
        let _ = std::fs::remove_dir_all(candidate);
    }
    let _ = std::fs::remove_dir_all(dir);
}
