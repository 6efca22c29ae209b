//! Hooks for lmbias's own tests (feature `testing`, enabled by the `lmbias-tests` crate
//! and by this crate's own integration tests): numbers the public traits do not expose,
//! and the hub's download and cache lookup on their own, which resolution otherwise hides.
//! Not a stable API.

use std::path::{Path, PathBuf};

use lmbias_encoder::Layer;

use crate::checkpoint::Checkpoint;
use crate::device::DeviceKind;
use crate::error::ModelError;
use crate::hub::HubSettings;

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

/// Downloads hub id `model` into `settings.cache` (what [`Checkpoint::resolve_with`] does
/// when the cache lacks it) and returns the snapshot folder, for the loopback-hub tests.
pub fn download(model: &str, settings: &HubSettings) -> Result<PathBuf, ModelError> {
    crate::hub::download(model, settings)
}

/// The snapshot of hub id `model` in `cache` that resolution would use, if any.
pub fn cached_snapshot(cache: &Path, model: &str) -> Option<PathBuf> {
    crate::hub::cached_snapshot(cache, model)
}

/// Whether `model` would be sent to the hub (a valid hub id).
pub fn is_hub_id(model: &str) -> bool {
    crate::hub::is_hub_id(model)
}
