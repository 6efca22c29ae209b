//! One entry point per capability, choosing the model family from config.json,
//! so callers (the CLI, xtask) accept any supported checkpoint without naming
//! its family. Adding a family is one line in each table below.

use lmbias_core::{Embedder, MaskedLm};

use crate::adapter::{Adapter, AnyEmbedder};
use crate::bert::{Bert, BertForMaskedLm};
use crate::checkpoint::{Architecture, Checkpoint};
use crate::compute::Compute;
use crate::deberta_v2::{DebertaV2, DebertaV2ForMaskedLm};
use crate::error::ModelError;
use crate::modernbert::{ModernBert, ModernBertForMaskedLm};
use crate::t5::T5Encoder;

/// The encoder of any supported checkpoint (an MLM head, if present, is not read), on
/// `compute`'s device and in its precision (a `DeviceKind` alone: f32).
pub fn load_embedder(
    checkpoint: &Checkpoint,
    compute: impl Into<Compute>,
) -> Result<Box<dyn Embedder + Send + Sync>, ModelError> {
    Ok(any_embedder(checkpoint, compute.into())?)
}

/// [`load_embedder`] with the crate-private extras of [`AnyEmbedder`].
pub(crate) fn any_embedder(
    checkpoint: &Checkpoint,
    compute: Compute,
) -> Result<Box<dyn AnyEmbedder>, ModelError> {
    Ok(match checkpoint.architecture() {
        Architecture::T5Encoder => Box::new(Adapter::<T5Encoder>::load(checkpoint, compute)?),
        Architecture::ModernBertEncoder | Architecture::ModernBertMaskedLm => {
            Box::new(Adapter::<ModernBert>::load(checkpoint, compute)?)
        }
        Architecture::DebertaV2Encoder | Architecture::DebertaV2MaskedLm => {
            Box::new(Adapter::<DebertaV2>::load(checkpoint, compute)?)
        }
        // BERT and its descendants (`Variant`).
        _ => Box::new(Adapter::<Bert>::load(checkpoint, compute)?),
    })
}

/// A checkpoint with a masked-language-modelling head; any other is an error
/// naming it before any weight is read. The head's vocabulary projection stays f32 in
/// every precision (it runs on the masked rows alone).
pub fn load_masked_lm(
    checkpoint: &Checkpoint,
    compute: impl Into<Compute>,
) -> Result<Box<dyn MaskedLm + Send + Sync>, ModelError> {
    let compute = compute.into();
    let no_head = || ModelError::NoMlmHead {
        name: checkpoint.name().to_string(),
        architectures: checkpoint.architectures().to_vec(),
    };
    if !checkpoint.architecture().has_mlm_head() {
        return Err(no_head());
    }
    Ok(match checkpoint.architecture() {
        Architecture::ModernBertMaskedLm => Box::new(
            Adapter::<ModernBertForMaskedLm>::load_masked(checkpoint, compute)?,
        ),
        Architecture::DebertaV2MaskedLm => Box::new(Adapter::<DebertaV2ForMaskedLm>::load_masked(
            checkpoint, compute,
        )?),
        // BERT and its descendants (`Variant`).
        _ => Box::new(Adapter::<BertForMaskedLm>::load_masked(
            checkpoint, compute,
        )?),
    })
}
