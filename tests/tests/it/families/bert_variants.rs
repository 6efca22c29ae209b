//! BERT's descendants, which lmbias-model computes as variants of BERT (`src/bert/variant.rs`):
//! RoBERTa (and XLM-R and CamemBERT on its network), DistilBERT, ALBERT and ELECTRA, on tiny
//! checkpoints with pad id 1 and positions offset by it, eps, gelu_new, an untied decoder,
//! embeddings narrower than the layers, no token types and shared layers.

use lmbias_core::{Layer, Pooling};
use lmbias_model::{Architecture, Checkpoint};
use lmbias_testing::model_dir;

use super::check_family;

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
