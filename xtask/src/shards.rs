//! A sweep split over machines: `reproduce-paper --shard K/N` saves its slice of
//! the models' outcomes in a shard file, and `merge-shards` reads all N files and
//! writes what one run over every model writes, byte for byte.
//!
//! Shard files are CBOR (serde, via ciborium): every f64 comes back exactly, which
//! JSON read by serde_json does not guarantee, and the merged tables must equal a
//! single run's.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use lmbias_studies::shard::{self, Shard};
use serde::{Deserialize, Serialize};

use crate::models::{ModelInfo, Skipped};
use crate::reproduce::{ModelOutcome, Settings};

/// Everything one shard ran and what the report needs besides: the settings and
/// the full model list, so that the merge needs neither the models nor the options.
#[derive(Serialize, Deserialize)]
pub struct ShardFile {
    pub shard: Shard,
    pub settings: Settings,
    /// Every available model, the shard's and the others', in order.
    pub models: Vec<ModelInfo>,
    pub skipped: Vec<Skipped>,
    /// The outcomes of this shard's models only.
    pub outcomes: Vec<ModelOutcome>,
}

/// What the merge gives back: the whole sweep, as one run would hold it.
pub struct Merged {
    pub settings: Settings,
    pub models: Vec<ModelInfo>,
    pub skipped: Vec<Skipped>,
    pub outcomes: Vec<ModelOutcome>,
}

/// Where shard K of N of a run writing to `out` saves itself.
pub fn path(out: &Path, shard: Shard) -> PathBuf {
    out.join("shards")
        .join(format!("{}-of-{}.cbor", shard.index(), shard.count()))
}

pub fn save(path: &Path, file: &ShardFile) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut bytes = Vec::new();
    ciborium::into_writer(file, &mut bytes)
        .with_context(|| format!("encoding {}", path.display()))?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn load(path: &Path) -> Result<ShardFile> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    ciborium::from_reader(bytes.as_slice()).with_context(|| {
        format!(
            "{}: not a shard file of this version of `cargo xtask reproduce-paper --shard`",
            path.display()
        )
    })
}

/// The shard files among `inputs`: a file as given, a folder's `*.cbor` by name.
fn shard_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(input)
                .with_context(|| format!("reading {}", input.display()))?
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<_, _>>()
                .with_context(|| format!("reading {}", input.display()))?;
            found.retain(|p| p.extension().is_some_and(|e| e == "cbor"));
            if found.is_empty() {
                bail!(
                    "{}: no shard files (*.cbor) in this folder",
                    input.display()
                );
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    Ok(files)
}

/// Reads the shard files (or folders of them) and checks that they are the N
/// shards of one sweep: the same N, settings and models, each K once, none missing.
pub fn merge(inputs: &[PathBuf]) -> Result<Merged> {
    let paths = shard_files(inputs)?;
    let files: Vec<ShardFile> = paths.iter().map(|p| load(p)).collect::<Result<_>>()?;
    let set: Vec<Shard> = files.iter().map(|f| f.shard).collect();
    shard::check_set(&set).map_err(|err| match err.at() {
        Some(at) => anyhow::Error::new(err).context(paths[at].display().to_string()),
        None => anyhow::Error::new(err),
    })?;
    let first = &files[0];
    for (path, file) in paths.iter().zip(&files) {
        let differs = |what: &str| {
            anyhow::anyhow!(
                "{}: {what} differ from those of {} (the shards of a sweep run with the same \
                 options on the same models)",
                path.display(),
                paths[0].display()
            )
        };
        if file.settings != first.settings {
            return Err(differs("settings"));
        }
        if file.models != first.models || file.skipped != first.skipped {
            return Err(differs("models"));
        }
        let mine: Vec<usize> = file.shard.select(0..file.models.len());
        let ran: Vec<usize> = file.outcomes.iter().map(|o| o.model).collect();
        if ran != mine {
            bail!(
                "{}: shard {} holds the outcomes of models {ran:?}, not of its slice {mine:?}",
                path.display(),
                file.shard
            );
        }
    }
    let mut files = files.into_iter();
    let first = files.next().expect("check_set refuses an empty set");
    let mut outcomes = first.outcomes;
    for file in files {
        outcomes.extend(file.outcomes);
    }
    Ok(Merged {
        settings: first.settings,
        models: first.models,
        skipped: first.skipped,
        outcomes,
    })
}
