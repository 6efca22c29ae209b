//! A run split over machines: each of N shards runs its slice of a list of models and
//! saves a [`ShardFile`]; [`merge`] reads all N and gives back the results in list order,
//! as one run over every model holds them. One format for `lmbias seat --save` and
//! `cargo xtask reproduce-paper --shard`: CBOR (every f64 exact) with a
//! [`Stamp`] of the inputs and of every setting (through serde), so that shards of different
//! runs are refused. The slices, the stamp and the file format are `format`'s; this module
//! saves and merges.

use std::path::{Path, PathBuf};

mod format;

pub use format::{
    FORMAT, LMBIAS_VERSION, Shard, ShardError, ShardFileError, ShardSetError, Stamp, StampMismatch,
    check_set, check_stamps, decode, encode,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::RunError;

/// What one shard saves: the whole list of models (every shard's, so that a merge needs
/// no models), what the run shares, and its own results, each at its position in the list.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardFile<M, C, T> {
    /// Which slice this is.
    pub shard: Shard,
    /// Every model of the run, in order.
    pub models: Vec<M>,
    /// What every shard of the run shares (settings, models that could not be had).
    pub shared: C,
    /// This shard's results, each with its model's position in `models`.
    pub results: Vec<(usize, T)>,
}

/// Writes `file` to `path`, stamped, under a temporary name renamed into place (a shard
/// cut short leaves no file a merge could take for a whole one).
pub fn save<M: Serialize, C: Serialize, T: Serialize>(
    path: &Path,
    stamp: &Stamp,
    file: &ShardFile<M, C, T>,
) -> Result<(), RunError> {
    let bytes = encode(stamp, file).map_err(|source| RunError::ShardFile {
        path: path.to_path_buf(),
        source,
    })?;
    crate::write_atomically(path, &bytes)
}

/// The results of all N shards of one run, in list order.
#[derive(Debug)]
pub struct Merged<M, C, T> {
    /// Every model of the run.
    pub models: Vec<M>,
    /// What the shards share.
    pub shared: C,
    /// Every result, with its model's position, by position.
    pub results: Vec<(usize, T)>,
}

/// Reads the shard files written under `kind` and checks that they are the N shards of one
/// run: the same N, lmbias, inputs, options, models and shared part; each K once, none
/// missing; each holding exactly its slice.
pub fn merge<M, C, T>(paths: &[PathBuf], kind: &str) -> Result<Merged<M, C, T>, RunError>
where
    M: DeserializeOwned + PartialEq,
    C: DeserializeOwned + PartialEq,
    T: DeserializeOwned,
{
    let mut stamps = Vec::with_capacity(paths.len());
    let mut files: Vec<ShardFile<M, C, T>> = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes =
            lmbias_data::read::read_capped(path, lmbias_data::read::SHARD).map_err(|e| {
                RunError::ShardIo {
                    path: path.clone(),
                    source: e.source,
                }
            })?;
        let (stamp, file) = decode(&bytes, kind).map_err(|source| RunError::ShardFile {
            path: path.clone(),
            source,
        })?;
        stamps.push(stamp);
        files.push(file);
    }
    let set: Vec<Shard> = files.iter().map(|f| f.shard).collect();
    check_set(&set).map_err(|source| match source.at() {
        Some(at) => RunError::ShardSetAt {
            path: paths[at].clone(),
            source,
        },
        None => RunError::ShardSet(source),
    })?;
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let named: Vec<(&str, &Stamp)> = names.iter().map(String::as_str).zip(&stamps).collect();
    check_stamps(&named)?;
    let first = &files[0];
    for (path, file) in paths.iter().zip(&files) {
        if file.models != first.models || file.shared != first.shared {
            return Err(RunError::ShardContent {
                path: path.clone(),
                what: format!(
                    "its models differ from those of {} (the shards of one run are given \
                     the same models, and find the same ones)",
                    paths[0].display()
                ),
            });
        }
        let mine = file.shard.select(0..file.models.len());
        let ran: Vec<usize> = file.results.iter().map(|(position, _)| *position).collect();
        if ran != mine {
            return Err(RunError::ShardContent {
                path: path.clone(),
                what: format!(
                    "shard {} holds the models at positions {}, not its slice {}",
                    file.shard,
                    positions(&ran),
                    positions(&mine)
                ),
            });
        }
    }
    let mut files = files.into_iter();
    let first = files.next().expect("check_set refuses an empty set");
    let mut results = first.results;
    for file in files {
        results.extend(file.results);
    }
    results.sort_by_key(|(position, _)| *position);
    Ok(Merged {
        models: first.models,
        shared: first.shared,
        results,
    })
}

/// Positions in the list, 1-based as a user counts them.
fn positions(list: &[usize]) -> String {
    if list.is_empty() {
        return "none".to_owned();
    }
    let names: Vec<String> = list.iter().map(|p| (p + 1).to_string()).collect();
    names.join(", ")
}
