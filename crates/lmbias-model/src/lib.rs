//! Hugging Face checkpoints in Burn: resolution, loading, BERT (encoder + MLM
//! head), implementing lmbias-encoder's traits.

pub mod bert;
pub mod checkpoint;
pub mod device;
pub mod encoder;
pub mod error;
mod weights;

pub use bert::{Bert, BertConfig, BertInput};
pub use checkpoint::{Architecture, Checkpoint, WeightsFormat};
pub use device::DeviceKind;
pub use encoder::{BertEmbedder, BertMaskedLm};
pub use error::ModelError;
