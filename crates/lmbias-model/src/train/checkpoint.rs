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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use lmbias_core::read::{Cap, read_capped};
use lmbias_kernels::AdamW;
use safetensors::tensor::{Dtype, TensorView};
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
    /// The loss of each of them, as Rust writes an f64 (`"13.016684296"`): serde_json's
    /// reader can miss a number's last bit, and a resumed run must report the losses an
    /// uninterrupted one does.
    #[serde(with = "exact")]
    pub(super) losses: Vec<f64>,
}

/// f64s as strings that read back bit for bit.
mod exact {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub(super) fn serialize<S: Serializer>(values: &[f64], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(values.iter().map(f64::to_string))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|v| {
                v.parse()
                    .map_err(|_| D::Error::custom(format!("{v:?} is not a number")))
            })
            .collect()
    }
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

/// AdamW's moments (`{i}.exp_avg`, `{i}.exp_avg_sq` for the i-th parameter in the
/// model's visiting order, torch's names), its step count (metadata `step`: steps that
/// masked something) and the training step it was written at (`training_step`), which must
/// agree with state.json's.
const OPTIMIZER: &str = "optimizer.safetensors";

/// The files every checkpoint has; its digest must list them.
const REQUIRED: [&str; 4] = [
    "state.json",
    OPTIMIZER,
    "model/config.json",
    "model/model.safetensors",
];

fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let file = lmbias_core::read::open(path)?;
    // A FIFO or a device in a checkpoint folder would be read forever.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(lmbias_core::read::not_regular(
            &meta,
            "a checkpoint is verified by the sha256 of its files, so each must be a regular file",
        ));
    }
    std::io::copy(&mut { file }, &mut hasher)?;
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
    let incomplete = || "missing: the checkpoint is incomplete".to_owned();
    let bytes = match read_capped(&path, lmbias_core::read::CONFIG) {
        Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => {
            return Err((path, incomplete()));
        }
        Err(e) => return Err((path, format!("cannot read: {}", e.source))),
        Ok(bytes) => bytes,
    };
    let digests: Digests = serde_json::from_slice(&bytes)
        .map_err(|e| (path.clone(), format!("not a checkpoint digest: {e}")))?;
    if let Some(name) = REQUIRED.iter().find(|n| !digests.sha256.contains_key(**n)) {
        return Err((path, format!("does not list {name}")));
    }
    // The listing names exactly the files present: a name outside the folder (`../x`,
    // `/dev/zero`) is never opened, and a file the checkpoint did not write is not believed.
    let present = files(dir).map_err(|e| (dir.to_path_buf(), format!("cannot list: {e}")))?;
    if let Some(name) = present.iter().find(|n| !digests.sha256.contains_key(*n)) {
        return Err((
            dir.join(name),
            format!("not listed in {DIGESTS}: not written by the checkpoint"),
        ));
    }
    if let Some(name) = digests.sha256.keys().find(|n| !present.contains(n)) {
        if name.starts_with('/') || name.split('/').any(|part| part.is_empty() || part == "..") {
            return Err((
                path,
                "lists a path outside the checkpoint folder".to_owned(),
            ));
        }
        return Err((dir.join(name), incomplete()));
    }
    for (name, want) in &digests.sha256 {
        let file = dir.join(name);
        match sha256_of(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err((file, "missing: the checkpoint is incomplete".to_owned()));
            }
            Err(e) => return Err((file, format!("cannot read: {e}"))),
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

/// `dir` when it holds a state.json, and every copy a run left beside it (`.tmp-PID` being
/// written, `.prev-PID` stepping aside), complete or not.
fn candidates(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // Any entry named state.json (a FIFO, a link to nothing): verified, so its fault is said.
    if std::fs::symlink_metadata(dir.join("state.json")).is_ok() {
        out.push(dir.to_path_buf());
    }
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
    out
}

/// The step a verified checkpoint's state.json records (0 when unreadable).
fn step_of(dir: &Path) -> usize {
    read_capped(&dir.join("state.json"), lmbias_core::read::CONFIG)
        .ok()
        .and_then(|t| serde_json::from_slice::<State>(&t).ok())
        .map_or(0, |s| s.step)
}

/// The checkpoint of `dir`: `Some` when resuming; an error when one is there
/// but `--resume` was not given (it would be overwritten), or when `--resume`
/// finds none, or none whose digest verifies. A complete copy left beside `dir`
/// by an interrupted replacement (`.tmp-PID`, `.prev-PID`) counts: the one with
/// the most steps is moved into place and used. Every other copy beside `dir` is
/// removed (half-written ones, and complete ones of fewer steps once one is in
/// place), and returned, so that the run can say what it removed.
pub(super) fn find(dir: &Path, resume: bool) -> Result<(Option<Found>, Vec<PathBuf>), TrainError> {
    // Said now, not at the first checkpoint a run of hours writes.
    if dir.exists() && !dir.is_dir() {
        return Err(TrainError::Output {
            path: dir.to_path_buf(),
            message: "is not a folder, so no checkpoint can be written there: remove it or \
                      choose another --output"
                .into(),
            source: None,
        });
    }
    // `dir` itself is only ever complete (a checkpoint is renamed into place whole), so one
    // that does not verify was changed or damaged since: said. A copy beside it that does
    // not verify is what a run killed while writing it left: never a checkpoint.
    let mut complete = Vec::new();
    let mut broken = None;
    let mut debris = Vec::new();
    for candidate in candidates(dir) {
        match verify(&candidate) {
            Ok(()) => complete.push(candidate),
            Err(fault) if candidate == dir => broken = Some(fault),
            Err(_) => debris.push(candidate),
        }
    }
    if !resume {
        let earlier = match (complete.first(), &broken) {
            (Some(found), _) => Some(found.clone()),
            (None, Some(_)) => Some(dir.to_path_buf()),
            (None, None) => None,
        };
        if let Some(found) = earlier {
            return Err(TrainError::Output {
                path: found,
                message: "a checkpoint of an earlier run is here: pass --resume to continue it, \
                          or remove it"
                    .into(),
                source: None,
            });
        }
    }
    // The output is locked for this run: no other run is writing these.
    let mut removed = Vec::new();
    let mut clear = |leftover: PathBuf| {
        if std::fs::remove_dir_all(&leftover).is_ok() {
            removed.push(leftover);
        }
    };
    for leftover in debris {
        clear(leftover);
    }
    if !resume {
        return Ok((None, removed));
    }
    let best = complete.iter().max_by_key(|d| step_of(d)).cloned();
    for other in complete {
        if Some(&other) != best.as_ref() && other != dir {
            clear(other);
        }
    }
    let Some(best) = best else {
        return Err(match broken {
            Some((path, message)) => TrainError::Output {
                path,
                message: format!("--resume: {message}; remove the checkpoint to start anew"),
                source: None,
            },
            None => TrainError::Output {
                path: dir.to_path_buf(),
                message: "--resume: no complete checkpoint here (none was written, or the run was stopped while writing its first)".into(),
                source: None,
            },
        });
    };
    if best != dir {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::rename(&best, dir)
            .map_err(|e| TrainError::io(&best, "cannot move the checkpoint into place", e))?;
    }
    Ok((
        Some(Found {
            dir: dir.to_path_buf(),
        }),
        removed,
    ))
}

impl Found {
    /// The model folder of the checkpoint.
    pub(super) fn dir(&self) -> PathBuf {
        self.dir.join("model")
    }

    /// Its state, which must have been made by the same run.
    pub(super) fn state(&self, fingerprint: &Fingerprint) -> Result<State, TrainError> {
        let path = self.dir.join("state.json");
        let text = read_capped(&path, lmbias_core::read::CONFIG)
            .map_err(|e| TrainError::io(&path, "cannot read", e.source))?;
        let state: State = serde_json::from_slice(&text).map_err(|e| TrainError::Output {
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

    /// Puts the checkpoint's moments and step count into `optimizer`, whose
    /// parameters have `shapes`; they must have been written at `state`'s step.
    pub(super) fn optimizer(
        &self,
        optimizer: &mut AdamW,
        shapes: &[Vec<usize>],
        state: &State,
    ) -> Result<(), TrainError> {
        let path = self.dir.join(OPTIMIZER);
        let bad = |message: String| TrainError::Output {
            path: path.clone(),
            message,
            source: None,
        };
        // Two f32 moments per value, and room for the header.
        let values: usize = shapes.iter().map(|s| s.iter().product::<usize>()).sum();
        let cap = Cap {
            kind: "optimizer state",
            mib: ((values as u64 * 8) >> 20) + 16,
            start: lmbias_core::read::Start::Any,
        };
        let bytes = read_capped(&path, cap)
            .map_err(|e| bad(format!("cannot read the optimizer state: {e}")))?;
        let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes)
            .map_err(|e| bad(format!("not a safetensors file: {e}")))?;
        let number = |key: &str| {
            meta.metadata()
                .as_ref()
                .and_then(|m| m.get(key))
                .and_then(|s| s.parse::<usize>().ok())
                .ok_or_else(|| bad(format!("no {key:?} in the optimizer state's metadata")))
        };
        let time = number("step")?;
        let written_at = number("training_step")?;
        // A state.json edited to another step (its digest recomputed) would resume moments
        // of one step with the data order of another.
        if written_at != state.step || time > state.step {
            return Err(bad(format!(
                "written at step {written_at} ({time} optimizer steps), where state.json says \
                 step {}: the checkpoint's files disagree (remove the checkpoint to start anew)",
                state.step
            )));
        }
        let time = i32::try_from(time).map_err(|_| bad(format!("step count {time} too large")))?;
        let file = safetensors::SafeTensors::deserialize(&bytes)
            .map_err(|e| bad(format!("not a safetensors file: {e}")))?;
        let read = |name: String, shape: &[usize]| -> Result<Vec<f32>, TrainError> {
            let view = file
                .tensor(&name)
                .map_err(|_| bad(format!("no tensor {name:?} in the optimizer state")))?;
            if view.dtype() != Dtype::F32 || view.shape() != shape {
                return Err(bad(format!(
                    "{name:?} is {:?} {:?} where the model's parameter is F32 {shape:?}",
                    view.dtype(),
                    view.shape()
                )));
            }
            Ok(view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect())
        };
        for (i, shape) in shapes.iter().enumerate() {
            optimizer.moment_1[i] = read(format!("{i}.exp_avg"), shape)?;
            optimizer.moment_2[i] = read(format!("{i}.exp_avg_sq"), shape)?;
        }
        optimizer.time = time;
        Ok(())
    }
}

/// Writes `optimizer`'s moments and step count (see [`OPTIMIZER`]).
fn write_optimizer(
    path: &Path,
    optimizer: &AdamW,
    shapes: &[Vec<usize>],
    step: usize,
) -> Result<(), TrainError> {
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut tensors = Vec::with_capacity(2 * shapes.len());
    for (i, shape) in shapes.iter().enumerate() {
        tensors.push((format!("{i}.exp_avg"), shape, bytes(&optimizer.moment_1[i])));
        tensors.push((
            format!("{i}.exp_avg_sq"),
            shape,
            bytes(&optimizer.moment_2[i]),
        ));
    }
    let views = tensors.iter().map(|(name, shape, data)| {
        let view = TensorView::new(Dtype::F32, shape.to_vec(), data)
            .expect("the moments have their parameter's shape");
        (name.clone(), view)
    });
    let metadata = HashMap::from([
        ("step".to_owned(), optimizer.time.to_string()),
        ("training_step".to_owned(), step.to_string()),
    ]);
    safetensors::serialize_to_file(views, Some(metadata), path).map_err(|e| match e {
        safetensors::SafeTensorError::IoError(e) => {
            TrainError::io(path, "cannot write the optimizer state", e)
        }
        e => TrainError::Output {
            path: path.to_path_buf(),
            message: format!("cannot write the optimizer state: {e}"),
            source: None,
        },
    })
}

/// Replaces the checkpoint in `dir` with this one: written whole beside it with its
/// digest last, then put in its place, the old one stepping aside until the new one
/// is there (see the module's notes).
pub(super) fn save(
    dir: &Path,
    folder: &Folder<'_>,
    optimizer: &AdamW,
    shapes: &[Vec<usize>],
    state: &State,
) -> Result<(), TrainError> {
    let staging = beside(dir, "tmp");
    let _ = std::fs::remove_dir_all(&staging);
    let written = (|| {
        let model = staging.join("model");
        std::fs::create_dir_all(&model).map_err(|e| TrainError::io(&model, "cannot create", e))?;
        folder.write_into(&model)?;
        write_optimizer(&staging.join(OPTIMIZER), optimizer, shapes, state.step)?;
        let path = staging.join("state.json");
        let json = serde_json::to_string(state).expect("the state serialises");
        std::fs::write(&path, json).map_err(|e| TrainError::io(&path, "cannot write", e))?;
        write_digests(&staging)
    })();
    if let Err(e) = written {
        // Half a checkpoint is none (a full disk, say): it goes, and the space with it.
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e.staged_as(&staging, dir));
    }
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

/// Removes the checkpoints once the output folder is complete, every copy left beside
/// them by interrupted runs included, complete or not.
pub(super) fn remove(dir: &Path) {
    for candidate in candidates(dir) {
        let _ = std::fs::remove_dir_all(candidate);
    }
    let _ = std::fs::remove_dir_all(dir);
}
