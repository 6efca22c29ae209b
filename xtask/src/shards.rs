//! A sweep split over machines: `reproduce-paper --shard K/N` saves its slice of
//! the models' outcomes in a shard file, and `merge-shards` reads all N files and
//! writes what one run over every model writes, byte for byte.
//!
//! Shard files are CBOR (serde, via ciborium): every f64 comes back exactly, which
//! JSON read by serde_json does not guarantee, and the merged tables must equal a
//! single run's. Each is stamped ([`lmbias_studies::shard::Stamp`]) with its format,
//! the lmbias version, every setting, and the sha256 of every file under the
//! datasets folder of each study it ran, so that a merge refuses shards of
//! different runs, naming what differs.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use lmbias_studies::shard::{self, Shard, Stamp};
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

/// The command a shard file names as its writer.
const KIND: &str = "cargo xtask reproduce-paper --shard";

/// What a merge holds the shards to: every setting, and every file under
/// `datasets/STUDY/` of each study run (a file edited between shards changes its digest).
fn stamp(settings: &Settings, datasets: &Path) -> Result<Stamp> {
    let mut stamp = Stamp::new(KIND);
    let fields = serde_json::to_value(settings).context("encoding the settings")?;
    for (name, value) in fields.as_object().into_iter().flatten() {
        stamp.option(name.as_str(), value);
    }
    for study in &settings.studies {
        let dir = datasets.join(study.as_str());
        let mut stack = vec![dir];
        while let Some(dir) = stack.pop() {
            let entries =
                std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
            for entry in entries {
                let path = entry
                    .with_context(|| format!("reading {}", dir.display()))?
                    .path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let bytes =
                    std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
                let name = path.strip_prefix(datasets).unwrap_or(&path);
                stamp.digest(format!("datasets/{}", name.display()), &bytes);
            }
        }
    }
    Ok(stamp)
}

/// Saves `file`, stamped with its settings and the digests of the `datasets` it read.
pub fn save(path: &Path, file: &ShardFile, datasets: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let bytes = shard::encode(&stamp(&file.settings, datasets)?, file)
        .with_context(|| format!("encoding {}", path.display()))?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn load(path: &Path) -> Result<(Stamp, ShardFile)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    shard::decode(&bytes, KIND).with_context(|| path.display().to_string())
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
/// once, none missing.
pub fn merge(inputs: &[PathBuf]) -> Result<Merged> {
    let paths = shard_files(inputs)?;
    let (stamps, files): (Vec<Stamp>, Vec<ShardFile>) = paths
        .iter()
        .map(|p| load(p))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let set: Vec<Shard> = files.iter().map(|f| f.shard).collect();
    shard::check_set(&set).map_err(|err| match err.at() {
        Some(at) => anyhow::Error::new(err).context(paths[at].display().to_string()),
        None => anyhow::Error::new(err),
    })?;
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let named: Vec<(&str, &Stamp)> = names.iter().map(String::as_str).zip(&stamps).collect();
    shard::check_stamps(&named)?;
    let first = &files[0];
    for (path, file) in paths.iter().zip(&files) {
        if file.models != first.models || file.skipped != first.skipped {
            bail!(
                "{}: its models differ from those of {} (the shards of a sweep run on the \
                 same models: the same --models, and the same ones found)",
                path.display(),
                paths[0].display()
            );
        }
        let mine: Vec<usize> = file.shard.select(0..file.models.len());
        let ran: Vec<usize> = file.outcomes.iter().map(|o| o.model).collect();
        if ran != mine {
            let list = |models: &[usize]| {
                let names: Vec<&str> = models
                    .iter()
                    .map(|&m| file.models[m].name.as_str())
                    .collect();
                names.join(", ")
            };
            bail!(
                "{}: shard {} holds the outcomes of models {}, not of its slice {}",
                path.display(),
                file.shard,
                list(&ran),
                list(&mine)
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
