//! One entry point per capability, choosing the model family from config.json,
//! so callers (the CLI, xtask) accept any supported checkpoint without naming
//! its family. Adding a family is one line in each table below.

use lmbias_encoder::{Embedder, MaskedLm};

use crate::adapter::{Adapter, AnyEmbedder};
use crate::bert::{Bert, BertForMaskedLm};
use crate::checkpoint::{Architecture, Checkpoint};
use crate::deberta_v2::{DebertaV2, DebertaV2ForMaskedLm};
use crate::device::DeviceKind;
use crate::error::ModelError;
use crate::modernbert::{ModernBert, ModernBertForMaskedLm};
use crate::t5::T5Encoder;

/// The encoder of any supported checkpoint (an MLM head, if present, is not read).
pub fn load_embedder(
    checkpoint: &Checkpoint,
    device: DeviceKind,
) -> Result<Box<dyn Embedder + Send + Sync>, ModelError> {
    Ok(any_embedder(checkpoint, device)?)
}

/// [`load_embedder`] with the crate-private extras of [`AnyEmbedder`].
pub(crate) fn any_embedder(
    checkpoint: &Checkpoint,
    device: DeviceKind,
) -> Result<Box<dyn AnyEmbedder>, ModelError> {
    let device = device.device()?;
    Ok(match checkpoint.architecture() {
        Architecture::T5Encoder => Box::new(Adapter::<T5Encoder>::load(checkpoint, &device)?),
        Architecture::ModernBertEncoder | Architecture::ModernBertMaskedLm => {
            Box::new(Adapter::<ModernBert>::load(checkpoint, &device)?)
        }
        Architecture::DebertaV2Encoder | Architecture::DebertaV2MaskedLm => {
            Box::new(Adapter::<DebertaV2>::load(checkpoint, &device)?)
        }
        // BERT and its descendants (`Variant`).
        _ => Box::new(Adapter::<Bert>::load(checkpoint, &device)?),
    })
}

/// A checkpoint with a masked-language-modelling head; any other is an error
/// naming it before any weight is read.
pub fn load_masked_lm(
    checkpoint: &Checkpoint,
    device: DeviceKind,
) -> Result<Box<dyn MaskedLm + Send + Sync>, ModelError> {
    let no_head = || ModelError::NoMlmHead {
        name: checkpoint.name().to_string(),
        architectures: checkpoint.architectures().to_vec(),
    };
    let device = || device.device();
    if !checkpoint.architecture().has_mlm_head() {
        return Err(no_head());
    }
    Ok(match checkpoint.architecture() {
        Architecture::ModernBertMaskedLm => Box::new(
            Adapter::<ModernBertForMaskedLm>::load_masked(checkpoint, &device()?)?,
        ),
        Architecture::DebertaV2MaskedLm => Box::new(Adapter::<DebertaV2ForMaskedLm>::load_masked(
            checkpoint,
            &device()?,
        )?),
        // BERT and its descendants (`Variant`).
        _ => Box::new(Adapter::<BertForMaskedLm>::load_masked(
            checkpoint,
            &device()?,
        )?),
    })
}
