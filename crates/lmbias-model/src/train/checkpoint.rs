//! Checkpoints of a run in `OUTPUT.checkpoint/`: the model as a Hugging Face
//! folder (`model/`, which lmbias itself can load), the optimizer's state and
//! the step reached, written under a temporary name and renamed, so a
//! checkpoint on disk is always whole.

use std::path::{Path, PathBuf};

use burn::optim::ModuleOptimizer;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};

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

/// A checkpoint found on disk.
pub(super) struct Found {
    dir: PathBuf,
}

/// The checkpoint in `dir`: `Some` when resuming; an error when one is there
/// but `--resume` was not given (it would be overwritten), or when `--resume`
/// finds none.
pub(super) fn find(dir: &Path, resume: bool) -> Result<Option<Found>, TrainError> {
    match (dir.join("state.json").is_file(), resume) {
        (true, true) => Ok(Some(Found {
            dir: dir.to_path_buf(),
        })),
        (false, false) => Ok(None),
        (true, false) => Err(TrainError::Output {
            path: dir.to_path_buf(),
            message:
                "a checkpoint of an earlier run is here: pass --resume to continue it, or remove it"
                    .into(),
            source: None,
        }),
        (false, true) => Err(TrainError::Output {
            path: dir.to_path_buf(),
            message: "--resume: no checkpoint here (state.json is missing)".into(),
            source: None,
        }),
    }
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

/// Replaces the checkpoint in `dir` with this one.
pub(super) fn save(
    dir: &Path,
    folder: &Folder<'_>,
    optimizer: &ModuleOptimizer,
    state: &State,
) -> Result<(), TrainError> {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    let staging = dir.with_file_name(name);
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
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&staging, dir)
        .map_err(|e| TrainError::io(dir, "cannot move the checkpoint into place", e))
}

/// Removes the checkpoints once the output folder is complete.
pub(super) fn remove(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}
