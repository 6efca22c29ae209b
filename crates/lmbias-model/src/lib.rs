//! Hugging Face checkpoints in Burn: resolution, loading, BERT (encoder + MLM
//! head) and T5 / mT5 encoders, implementing lmbias-encoder's traits.

pub mod bert;
pub mod checkpoint;
pub mod device;
pub mod encoder;
pub mod error;
#[cfg(feature = "hub")]
pub mod hub;
pub mod load;
pub mod t5;
pub mod t5_encoder;
mod weights;

pub use bert::{Bert, BertConfig, BertInput};
pub use checkpoint::{Architecture, Checkpoint, WeightsFormat};
pub use device::DeviceKind;
pub use encoder::{BertEmbedder, BertMaskedLm};
pub use error::ModelError;
pub use load::{load_embedder, load_masked_lm};
pub use t5::{T5Config, T5Encoder};
pub use t5_encoder::T5Embedder;
