//! A sweep split over machines: `reproduce-paper --shard K/N` saves its slice of
//! the models' outcomes in a shard file, and `merge-shards` reads all N files and
//! writes what one run over every model writes, byte for byte.
//!
//! The shard files are lmbias-runs' ([`lmbias_runs::shards`]: CBOR, every f64 exact, so
//! that the merged tables equal a single run's). xtask decides what a file holds besides
//! the models' outcomes — the settings and the models that could not be had — and what
//! its stamp holds: its command, every setting, and the sha256 of every file under the
//! datasets folder of each study it ran, so that a merge refuses shards of different
//! runs, naming what differs.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use lmbias_runs::shards::{self, Merged};
use lmbias_runs::shards::{Shard, Stamp};
use serde::{Deserialize, Serialize};

use crate::models::{ModelInfo, Skipped};
use crate::reproduce::{ModelOutcome, Settings};

/// What every shard of a sweep shares besides the models: the settings, and the models
/// that could not be had, so that the merge needs neither the models nor the options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    pub settings: Settings,
    pub skipped: Vec<Skipped>,
}

/// One shard: every available model, what the sweep shares, and this shard's outcomes.
pub type ShardFile = shards::ShardFile<ModelInfo, Shared, ModelOutcome>;

/// Where shard K of N of a run writing to `out` saves itself.
pub fn path(out: &Path, shard: Shard) -> PathBuf {
    out.join("shards")
        .join(format!("{}-of-{}.cbor", shard.index(), shard.count()))
}

/// The command a shard file names as its writer.
const KIND: &str = "cargo xtask reproduce-paper --shard";

/// What a merge holds the shards to: every setting, and every file under
/// `datasets/` folder each study run reads (a file edited between shards changes its digest).
fn stamp(settings: &Settings, datasets: &Path) -> Result<Stamp> {
    let mut stamp = Stamp::new(KIND);
    stamp.settings(settings).context("encoding the settings")?;
    for study in &settings.studies {
        for folder in study.datasets() {
            stamp.folder(&format!("datasets/{folder}"), &datasets.join(folder))?;
        }
    }
    Ok(stamp)
}

/// Saves `file`, stamped with its settings and the digests of the `datasets` it read.
pub fn save(path: &Path, file: &ShardFile, datasets: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    shards::save(path, &stamp(&file.shared.settings, datasets)?, file)?;
    Ok(())
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
/// shards of one sweep: the same N, lmbias, settings, datasets and models, each K
/// once, none missing, each holding its slice.
pub fn merge(inputs: &[PathBuf]) -> Result<Merged<ModelInfo, Shared, ModelOutcome>> {
    Ok(shards::merge(&shard_files(inputs)?, KIND)?)
}
