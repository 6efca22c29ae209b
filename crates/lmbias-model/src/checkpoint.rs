//! Finding a Hugging Face model folder and learning what it holds.
//!
//! A model is named either by a folder (`./models/bert-base-uncased`) or by its
//! hub id (`bert-base-uncased`, `google/mt5-small`), which is looked up in the
//! Hugging Face cache layout that `huggingface-cli download` fills:
//! `$HF_HUB_CACHE` or `$HF_HOME/hub` (default `~/.cache/huggingface/hub`),
//! `models--ORG--NAME/snapshots/REV/`, REV being the one `refs/main` names.
//! Downloading is not implemented: these machines have no hub access.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::ModelError;

/// The weight file formats a folder may hold, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightsFormat {
    Safetensors,
    /// `pytorch_model.bin` (a torch pickle, read without Python).
    PytorchBin,
}

/// Which model family the folder holds: decides the Rust type that loads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// BERT encoder only (`BertModel`, sentence-transformers models).
    BertEncoder,
    /// BERT with its masked-language-modelling head (`BertForMaskedLM`, `BertForPreTraining`).
    BertMaskedLm,
    /// The encoder of a T5 / T5 v1.1 / mT5 checkpoint (any decoder or LM head is ignored).
    T5Encoder,
}

/// A resolved model folder: its name for reports, its config and its weights.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    name: String,
    dir: PathBuf,
    architecture: Architecture,
    architectures: Vec<String>,
    weights: PathBuf,
    format: WeightsFormat,
}

#[derive(Deserialize)]
struct ArchitectureFields {
    model_type: Option<String>,
    #[serde(default)]
    architectures: Vec<String>,
}

impl Checkpoint {
    /// Resolve `model` as a folder if one exists at that path, else in the Hugging Face
    /// cache, else (feature `hub`, unless `HF_HUB_OFFLINE` is set) by downloading it there.
    pub fn resolve(model: &str) -> Result<Self, ModelError> {
        let path = Path::new(model);
        if path.is_dir() {
            return Self::from_dir(model, path);
        }
        let cache = hf_hub_cache();
        if let Some(dir) = cached_snapshot(&cache, model) {
            return Self::from_dir(model, &dir);
        }
        let download = match download_from_hub(model, &cache) {
            Ok(Some(dir)) => return Self::from_dir(model, &dir),
            Ok(None) => String::new(),
            // Offline or refused: still "not found", with the reason, and how to get it.
            Err(err) => format!(", and the hub download failed ({err})"),
        };
        Err(ModelError::NotFound {
            name: model.to_string(),
            cache,
            download,
        })
    }

    /// Read `config.json` in `dir` and find its weights; `name` is kept for reports.
    pub fn from_dir(name: &str, dir: &Path) -> Result<Self, ModelError> {
        let config_path = dir.join("config.json");
        let fields: ArchitectureFields = read_json(&config_path)?;
        let architecture = architecture_of(&config_path, &fields)?;
        let (weights, format) = if dir.join("model.safetensors").is_file() {
            (dir.join("model.safetensors"), WeightsFormat::Safetensors)
        } else if dir.join("pytorch_model.bin").is_file() {
            (dir.join("pytorch_model.bin"), WeightsFormat::PytorchBin)
        } else {
            return Err(ModelError::NoWeights {
                dir: dir.to_path_buf(),
            });
        };
        Ok(Self {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            architecture,
            architectures: fields.architectures,
            weights,
            format,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn config_path(&self) -> PathBuf {
        self.dir.join("config.json")
    }
    pub fn architecture(&self) -> Architecture {
        self.architecture
    }
    /// The `architectures` list of config.json, for error messages.
    pub fn architectures(&self) -> &[String] {
        &self.architectures
    }
    pub fn weights_path(&self) -> &Path {
        &self.weights
    }
    pub fn weights_format(&self) -> WeightsFormat {
        self.format
    }
}

/// Parse a JSON file, naming the file in any error.
pub(crate) fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| ModelError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    serde_json::from_str(&text).map_err(|e| ModelError::Config {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn architecture_of(path: &Path, fields: &ArchitectureFields) -> Result<Architecture, ModelError> {
    let unsupported = |message: String| ModelError::Architecture {
        path: path.to_path_buf(),
        message,
    };
    match fields.model_type.as_deref() {
        Some("bert") => {}
        Some("t5" | "mt5") => return t5_architecture(fields, unsupported),
        Some(other) => {
            return Err(unsupported(format!(
                "model_type {other:?} (supported: bert, t5, mt5)"
            )));
        }
        None => return Err(unsupported("no model_type field".to_string())),
    }
    // No `architectures` (older exports) means the bare encoder.
    let mut kind = Architecture::BertEncoder;
    for arch in &fields.architectures {
        match arch.as_str() {
            "BertModel" => {}
            "BertForMaskedLM" | "BertForPreTraining" => kind = Architecture::BertMaskedLm,
            other => {
                return Err(unsupported(format!(
                    "architectures contains {other:?} (supported: BertModel, BertForMaskedLM, BertForPreTraining)"
                )));
            }
        }
    }
    Ok(kind)
}

/// T5 and mT5 checkpoints of any of the classes that hold the encoder.
fn t5_architecture(
    fields: &ArchitectureFields,
    unsupported: impl Fn(String) -> ModelError,
) -> Result<Architecture, ModelError> {
    const ENCODERS: [&str; 6] = [
        "T5Model",
        "T5EncoderModel",
        "T5ForConditionalGeneration",
        "MT5Model",
        "MT5EncoderModel",
        "MT5ForConditionalGeneration",
    ];
    match fields
        .architectures
        .iter()
        .find(|a| !ENCODERS.contains(&a.as_str()))
    {
        Some(other) => Err(unsupported(format!(
            "architectures contains {other:?} (supported for T5: {})",
            ENCODERS.join(", ")
        ))),
        None => Ok(Architecture::T5Encoder),
    }
}

/// A hub id downloaded into `cache` (feature `hub`, unless `HF_HUB_OFFLINE` is set);
/// `None` when no download is attempted.
#[cfg(feature = "hub")]
fn download_from_hub(model: &str, cache: &Path) -> Result<Option<PathBuf>, ModelError> {
    if crate::hub::offline() || !crate::hub::is_hub_id(model) {
        return Ok(None);
    }
    crate::hub::download(model, &crate::hub::endpoint(), cache).map(Some)
}

#[cfg(not(feature = "hub"))]
fn download_from_hub(_model: &str, _cache: &Path) -> Result<Option<PathBuf>, ModelError> {
    Ok(None)
}

/// The hub cache folder, as huggingface_hub computes it.
pub fn hf_hub_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("HF_HUB_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(home) = std::env::var_os("HF_HOME") {
        return PathBuf::from(home).join("hub");
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("huggingface").join("hub")
}

/// The snapshot of hub id `model` in `cache`: the one `refs/main` names, else the
/// most recently modified one.
pub fn cached_snapshot(cache: &Path, model: &str) -> Option<PathBuf> {
    let repo = cache.join(format!("models--{}", model.replace('/', "--")));
    let snapshots = repo.join("snapshots");
    if let Ok(rev) = std::fs::read_to_string(repo.join("refs").join("main")) {
        let dir = snapshots.join(rev.trim());
        if dir.is_dir() {
            return Some(dir);
        }
    }
    std::fs::read_dir(&snapshots)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .map(|e| e.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn cache_lookup_follows_refs_main() {
        let cache = std::env::temp_dir().join(format!("lmbias-hub-{}", std::process::id()));
        let repo = cache.join("models--org--tiny");
        write(&repo.join("snapshots/aaa/config.json"), "{}");
        write(&repo.join("snapshots/bbb/config.json"), "{}");
        write(&repo.join("refs/main"), "aaa\n");
        assert_eq!(
            cached_snapshot(&cache, "org/tiny"),
            Some(repo.join("snapshots/aaa"))
        );
        // Without refs/main the only remaining snapshot is taken.
        std::fs::remove_file(repo.join("refs/main")).unwrap();
        std::fs::remove_dir_all(repo.join("snapshots/aaa")).unwrap();
        assert_eq!(
            cached_snapshot(&cache, "org/tiny"),
            Some(repo.join("snapshots/bbb"))
        );
        assert_eq!(cached_snapshot(&cache, "org/other"), None);
        std::fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn architecture_comes_from_config() {
        let p = Path::new("config.json");
        let f = |t: Option<&str>, a: &[&str]| ArchitectureFields {
            model_type: t.map(str::to_string),
            architectures: a.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(
            architecture_of(p, &f(Some("bert"), &["BertModel"])).unwrap(),
            Architecture::BertEncoder
        );
        assert_eq!(
            architecture_of(p, &f(Some("bert"), &["BertForMaskedLM"])).unwrap(),
            Architecture::BertMaskedLm
        );
        let err = architecture_of(p, &f(Some("gpt2"), &[])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "config.json: unsupported architecture: model_type \"gpt2\" (supported: bert, t5, mt5)"
        );
        let err = architecture_of(p, &f(Some("bert"), &["BertForSequenceClassification"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("BertForSequenceClassification"), "{err}");
        for (t, a) in [
            ("mt5", &[][..]),
            ("mt5", &["MT5EncoderModel"]),
            ("t5", &["T5ForConditionalGeneration"]),
        ] {
            assert_eq!(
                architecture_of(p, &f(Some(t), a)).unwrap(),
                Architecture::T5Encoder
            );
        }
        let err = architecture_of(p, &f(Some("mt5"), &["MT5ForQuestionAnswering"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("MT5ForQuestionAnswering"), "{err}");
    }
}
