//! Each model family against transformers 5.24, one file per family as lmbias-model keeps one
//! folder per family (`bert` also holds the real all-MiniLM-L6-v2; BERT's descendants, which
//! lmbias-model runs as variants of BERT, are `bert_variants`); what every family must do
//! alike (`--precision bf16`) is `every_family`. Tiny random checkpoints whose configs move
//! away from the defaults where a loader could go wrong; folders and references from
//! tests/fixtures/generate/ (tiny_families.py, tiny_families_2.py, tiny_deberta.py,
//! tiny_families_reference.py, tiny_mt5.py, tiny_t5_encoders.py, eager attention).

mod bert;
mod bert_variants;
mod deberta_v2;
mod every_family;
mod modernbert;
mod t5;

use lmbias_core::{Layer, Pooling};
use lmbias_model::{Checkpoint, testing};
use lmbias_testing::{floats, ids, max_abs_diff, model_dir, reference};

use bert::{check_embeddings, check_tiny_fill_mask};

/// The family's sentence vector: ALBERT's [CLS] (trained by sentence-order prediction,
/// as BERT's by next-sentence prediction), the mean for the others.
fn pooling(folder: &str) -> Pooling {
    if folder.starts_with("tiny-albert") {
        Pooling::Cls
    } else {
        Pooling::Mean
    }
}

/// Hidden states of every layer (0 = the embeddings' output), at every position, for the
/// sentences whose reference holds them; returns the worst difference.
fn check_every_layer(folder: &str) -> f32 {
    let reference = reference(folder);
    let checkpoint = Checkpoint::resolve(model_dir(folder).to_str().unwrap()).unwrap();
    let mut worst = 0f32;
    let mut checked = 0;
    for s in reference["sentences"].as_array().unwrap() {
        let Some(layers) = s.get("hidden_states") else {
            continue;
        };
        let token_ids = ids(&s["ids"]);
        for (layer, want) in layers.as_array().unwrap().iter().enumerate() {
            let got = testing::hidden_states(&checkpoint, &token_ids, Layer::Index(layer)).unwrap();
            let want: Vec<Vec<f32>> = want.as_array().unwrap().iter().map(floats).collect();
            assert_eq!(got.len(), want.len(), "{folder} {} layer {layer}", s["id"]);
            // 1e-5, or 1e-6 of the layer's largest value where that passes 10: a pre-norm
            // residual stream (ModernBERT's) grows past 10, where f32 rounding alone is
            // ~1e-6 relative. Post-norm layers (BERT's descendants) stay below 10.
            let scale = want.iter().flatten().fold(10f32, |m, x| m.max(x.abs()));
            let tolerance = 1e-6 * scale;
            for (row, want) in got.iter().zip(&want) {
                let diff = max_abs_diff(row, want);
                assert!(
                    diff <= tolerance,
                    "{folder} {} layer {layer}: max abs diff {diff} (values up to {scale})",
                    s["id"]
                );
                worst = worst.max(diff / scale * 10.0);
            }
        }
        checked += 1;
    }
    assert!(checked >= 2, "{folder}: too few sentences with every layer");
    worst
}

pub(super) fn check_family(folder: &str, has_head: bool) {
    let checkpoint = Checkpoint::resolve(model_dir(folder).to_str().unwrap()).unwrap();
    assert_eq!(
        checkpoint.architecture().has_mlm_head(),
        has_head,
        "{folder}"
    );
    let layers = check_every_layer(folder);
    let pooled = check_embeddings(folder, pooling(folder));
    // Seen with --nocapture: the figures the parity claims rest on.
    eprintln!("{folder}: every layer {layers:.2e} (scaled to 10), pooled and words {pooled:.2e}");
    if has_head {
        check_tiny_fill_mask(folder);
    }
}
