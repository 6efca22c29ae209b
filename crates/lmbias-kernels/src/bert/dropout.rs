//! Dropout masks: numbered draws, the parts of a mask drawn by the cores at once.

use rayon::prelude::*;

/// Dropout keep-masks as numbered draws of one stream per step: the sites take
/// consecutive draws in the order the forward pass applies them (the embeddings'
/// `[batch, seq, hidden]`; then per layer the attention probabilities'
/// `[batch, heads, seq, seq]`, the attention output's and the feed-forward output's
/// `[batch, seq, hidden]`; a site with probability 0 takes none). Numbered draws
/// let the cores draw a mask's parts at once, where one sequential generator took a
/// tenth of a step.
pub trait Dropout: Sync {
    /// Draws `first .. first + out.len()` of the stream into `out`: 1.0 (kept) with
    /// probability `keep`, else 0.0.
    fn fill(&self, first: u64, keep: f64, out: &mut [f32]);
}

/// A dropout site's mask and scale (`None` when its probability is 0).
pub(super) struct Drop {
    pub(super) mask: Vec<f32>,
    pub(super) scale: f32,
}

/// Draws a site's mask into `slot` (its buffer kept from the last step) from draw
/// `*first` on, and moves `*first` past it.
pub(super) fn draw(
    slot: &mut Option<Drop>,
    source: &dyn Dropout,
    first: &mut u64,
    len: usize,
    prob: f64,
) {
    if prob <= 0.0 {
        *slot = None;
        return;
    }
    const CHUNK: usize = 1 << 16;
    let keep = 1.0 - prob;
    let mut mask = slot.take().map(|d| d.mask).unwrap_or_default();
    mask.resize(len, 0.0);
    let start = *first;
    mask.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, out)| source.fill(start + (c * CHUNK) as u64, keep, out));
    *first += len as u64;
    *slot = Some(Drop {
        mask,
        scale: (1.0 / keep) as f32,
    });
}

/// `x · mask · scale` in place, as Burn's dropout computes it.
pub(super) fn apply_drop(x: &mut [f32], drop: &Option<Drop>) {
    if let Some(d) = drop {
        x.par_chunks_mut(1 << 14)
            .zip(d.mask.par_chunks(1 << 14))
            .for_each(|(x, m)| {
                for (x, &m) in x.iter_mut().zip(m) {
                    *x = *x * m * d.scale;
                }
            });
    }
}
