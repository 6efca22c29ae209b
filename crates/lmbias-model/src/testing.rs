//! Hooks for lmbias's own tests (feature `testing`, enabled by the `lmbias-tests` crate
//! and by this crate's own integration tests): numbers the public traits do not expose.
//! Not a stable API.

use lmbias_core::Layer;

use crate::checkpoint::Checkpoint;
use crate::device::DeviceKind;

/// The unpooled hidden states of one token-id sequence after `layer`,
/// `[seq][hidden]`, on the CPU: what transformers' `hidden_states[layer]` holds.
pub fn hidden_states(
    checkpoint: &Checkpoint,
    ids: &[u32],
    layer: Layer,
) -> Result<Vec<Vec<f32>>, Box<dyn std::error::Error + Send + Sync>> {
    let model = crate::load::any_embedder(checkpoint, DeviceKind::Cpu.into())?;
    Ok(model.hidden_states(ids, layer)?)
}
