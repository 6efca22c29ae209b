//! One entry point per capability, choosing the model type from config.json, so
//! callers (the CLI, xtask) accept any supported checkpoint without naming its family.

use lmbias_encoder::{Embedder, MaskedLm};

use crate::checkpoint::{Architecture, Checkpoint};
use crate::device::DeviceKind;
use crate::encoder::{BertEmbedder, BertMaskedLm};
use crate::error::ModelError;
use crate::t5_encoder::T5Embedder;

/// The encoder of any supported checkpoint (an MLM head, if present, is not read).
pub fn load_embedder(
    checkpoint: &Checkpoint,
    device: DeviceKind,
) -> Result<Box<dyn Embedder + Send + Sync>, ModelError> {
    Ok(match checkpoint.architecture() {
        Architecture::BertEncoder | Architecture::BertMaskedLm => {
            Box::new(BertEmbedder::load(checkpoint, device)?)
        }
        Architecture::T5Encoder => Box::new(T5Embedder::load(checkpoint, device)?),
    })
}

/// A checkpoint with a masked-language-modelling head; any other is an error
/// naming it before any weight is read.
pub fn load_masked_lm(
    checkpoint: &Checkpoint,
    device: DeviceKind,
) -> Result<Box<dyn MaskedLm + Send + Sync>, ModelError> {
    match checkpoint.architecture() {
        Architecture::BertMaskedLm => Ok(Box::new(BertMaskedLm::load(checkpoint, device)?)),
        Architecture::BertEncoder | Architecture::T5Encoder => Err(ModelError::NoMlmHead {
            name: checkpoint.name().to_string(),
            architectures: checkpoint.architectures().to_vec(),
        }),
    }
}
