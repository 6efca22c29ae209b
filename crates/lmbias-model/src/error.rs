//! Why a checkpoint could not be found or loaded. Every message is one line
//! and names the file (and tensor) at fault, so a user can fix the folder.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(
        "model {name:?} not found: it is neither a folder nor in the Hugging Face cache {cache}{download}; \
         run `huggingface-cli download {name}` on a machine with network access, then copy the \
         folder into {cache} or pass its path with --model"
    )]
    NotFound {
        name: String,
        cache: PathBuf,
        /// Empty, or why the hub download (feature `hub`) failed, e.g. no network.
        download: String,
    },
    #[error("model {name:?}: downloading {url} failed: {message}")]
    Hub {
        name: String,
        url: String,
        message: String,
    },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{path}: invalid config: {message}")]
    Config { path: PathBuf, message: String },
    #[error("{path}: unsupported architecture: {message}")]
    Architecture { path: PathBuf, message: String },
    #[error(
        "{path}: unsupported activation {name:?} (field hidden_act): expected gelu, gelu_new or relu"
    )]
    Activation { path: PathBuf, name: String },
    #[error("{dir}: no model.safetensors or pytorch_model.bin")]
    NoWeights { dir: PathBuf },
    #[error("{path}: cannot read weights: {message}")]
    Weights { path: PathBuf, message: String },
    #[error("{path}: missing tensor {tensor}")]
    MissingTensor { path: PathBuf, tensor: String },
    #[error("{path}: tensor {tensor} has shape {found:?}, expected {expected:?}")]
    Shape {
        path: PathBuf,
        tensor: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    #[error("{path}: tensor {tensor} has dtype {dtype}, expected f32, f16 or bf16")]
    DType {
        path: PathBuf,
        tensor: String,
        dtype: String,
    },
    #[error(
        "{name}: this checkpoint has no masked-language-modelling head (architectures {architectures:?}): \
         fill-mask needs one, e.g. bert-base-uncased"
    )]
    NoMlmHead {
        name: String,
        architectures: Vec<String>,
    },
    #[error("device {0:?} is not available: rebuild lmbias with `--features wgpu`")]
    DeviceUnavailable(String),
    #[error("unknown device {0:?}: expected cpu or wgpu")]
    UnknownDevice(String),
    #[error("tokenizer of {path}: {message}")]
    Tokenizer { path: PathBuf, message: String },
}
