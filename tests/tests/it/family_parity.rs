//! The families besides BERT and T5 against transformers: RoBERTa, XLM-R, CamemBERT, ELECTRA
//! (generator and discriminator), DistilBERT, ALBERT, ModernBERT and DeBERTa-v2/v3, on tiny
//! random checkpoints whose configs move away from the defaults where a loader could go
//! wrong (pad id 1, positions offset by it, eps, gelu_new, an untied decoder, embeddings
//! narrower than the layers, no token types, shared layers, windows and relative positions
//! shorter than the texts). Folders: tests/fixtures/generate/tiny_families.py,
//! tiny_families_2.py, tiny_deberta.py; references (transformers 5.24, eager attention):
//! tiny_families_reference.py.

use lmbias_encoder::{Layer, Pooling};
use lmbias_model::{Architecture, Checkpoint, testing};
use lmbias_testing::{floats, ids, max_abs_diff, model_dir, reference};

use crate::model_parity::{check_embeddings, check_tiny_fill_mask};

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

fn check_family(folder: &str, has_head: bool) {
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

#[test]
fn roberta_matches_transformers() {
    check_family("tiny-roberta-mlm", true);
    check_family("tiny-roberta-base", false);
    let checkpoint = Checkpoint::resolve(model_dir("tiny-roberta-base").to_str().unwrap()).unwrap();
    assert_eq!(checkpoint.architecture(), Architecture::RobertaEncoder);
}

#[test]
fn xlm_roberta_with_an_untied_decoder_matches_transformers() {
    check_family("tiny-xlmr-mlm", true);
}

#[test]
fn camembert_matches_transformers() {
    check_family("tiny-camembert-mlm", true);
}

#[test]
fn distilbert_matches_transformers() {
    check_family("tiny-distilbert-mlm", true);
}

/// One shared layer applied three times; and two groups of two layers over four steps,
/// whose every inner layer transformers 5 reports as a layer of its own.
#[test]
fn albert_with_shared_layers_matches_transformers() {
    check_family("tiny-albert-mlm", true);
    check_family("tiny-albert-groups", true);
}

/// Rotary positions, a local window (±4 tokens) shorter than most texts between global
/// layers, GeGLU, bias-free norms; padding changes no real token's output.
#[test]
fn modernbert_matches_transformers() {
    check_family("tiny-modernbert-mlm", true);
}

/// Disentangled attention three ways: v3's (log buckets past ±4, a normalised table
/// projected by the content's own query and key, no absolute positions, `lm_predictions`
/// head, 7 config rows beyond the tokenizer's ids); v2 xlarge's (a convolution beside layer
/// 0, positions clamped at ±6, own position projections, absolute positions, embeddings
/// narrower than the layers, `cls.predictions` head); content-to-position alone.
#[test]
fn deberta_v2_and_v3_match_transformers() {
    check_family("tiny-deberta-v3-mlm", true);
    check_family("tiny-deberta-v2-conv", true);
    check_family("tiny-deberta-v2-base", false);
}

#[test]
fn electra_generator_and_discriminator_match_transformers() {
    check_family("tiny-electra-generator", true);
    check_family("tiny-electra-discriminator", false);
}

/// RoBERTa's 66-row position table starts after the padding id (1): 64 tokens fit, 65
/// are refused in one line rather than read past the table.
#[test]
fn roberta_positions_start_after_the_padding_id() {
    let checkpoint = Checkpoint::resolve(model_dir("tiny-roberta-mlm").to_str().unwrap()).unwrap();
    let model = lmbias_model::load_embedder(&checkpoint, lmbias_model::DeviceKind::Cpu).unwrap();
    let fits = vec!["a"; 62].join(" "); // 62 pieces + <s> and </s>
    model
        .embed(&[fits.as_str()], Pooling::Mean, Layer::Last)
        .unwrap();
    let long = vec!["a"; 63].join(" ");
    let err = model
        .embed(&[long.as_str()], Pooling::Mean, Layer::Last)
        .unwrap_err()
        .to_string();
    assert!(err.contains("64"), "{err}");
}
