//! Hugging Face checkpoints in Burn: resolution (a folder, the HF cache, else a
//! download from the hub into that cache, each recorded as the checkpoint's [`Origin`]),
//! weight loading (safetensors or `.bin`, f32/f16/bf16),
//! and the BERT (encoder + MLM head) and T5 / mT5 encoders, answering
//! lmbias-core's traits.
//!
//! ```no_run
//! use lmbias_core::Layer;
//! use lmbias_model::{Checkpoint, DeviceKind, load_embedder};
//!
//! let model = load_embedder(&Checkpoint::resolve("bert-base-uncased")?, DeviceKind::Cpu)?;
//! let vectors = model.embed(&["Thou art more lovely."], model.default_pooling(), Layer::Last)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The model types themselves are private: a loader returns a boxed trait
//! object, so callers never name a family, and every text-taking method
//! answers with a one-line [`EncoderError`](lmbias_core::EncoderError)
//! instead of panicking or returning NaN. See docs/adding-a-family.md for how the
//! pieces fit.

mod adapter;
mod bert;
mod checkpoint;
mod compute;
mod config_file;
mod deberta_v2;
mod dense;
mod device;
mod error;
mod gelu;
mod load;
mod modernbert;
mod network;
mod sentence_transformers;
mod t5;
#[cfg(feature = "testing")]
pub mod testing;
pub mod train;
mod weights;

pub use checkpoint::{Architecture, Checkpoint, HUB_FILES, Origin};
pub use compute::{Compute, Precision};
pub use device::{DeviceKind, wgpu_adapter};
pub use error::ModelError;
pub use lmbias_fetch::hub::{DownloadError, HubError, HubMiss, HubSettings, Stall};
pub use load::{load_embedder, load_masked_lm};
