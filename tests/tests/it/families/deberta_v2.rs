//! DeBERTa-v2/v3: disentangled attention over a log-bucketed relative-position table.

use super::check_family;

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
