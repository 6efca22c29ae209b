//! BERT against transformers: the tiny BERT fixtures (every checkpoint variant) and the
//! real all-MiniLM-L6-v2. References: tests/fixtures/reference/
//! (written by tests/fixtures/generate/*.py with transformers 5.24, eager attention).

use std::path::Path;

use lmbias_core::{Embedder, EncoderError, Layer, MaskedLm, Pooling, WordInContext};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder, load_masked_lm};
use lmbias_testing::{floats, ids, max_abs_diff, model_dir, reference};
use lmbias_text::Tokenizer;
use serde_json::Value;

/// The cosine of two vectors, in f64.
pub(super) fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let na: f64 = a.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

pub(super) fn embedder(dir: &Path) -> Box<dyn Embedder + Send + Sync> {
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    load_embedder(&checkpoint, DeviceKind::Cpu).unwrap()
}

fn mlm(dir: &Path) -> Box<dyn MaskedLm + Send + Sync> {
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    load_masked_lm(&checkpoint, DeviceKind::Cpu).unwrap()
}

/// Byte range of the word starting at Python character index `char_start`.
fn word_bytes(text: &str, char_start: usize, word: &str) -> std::ops::Range<usize> {
    let start = text.char_indices().nth(char_start).unwrap().0;
    assert_eq!(&text[start..start + word.len()], word);
    start..start + word.len()
}

/// Each reference word vector (`reference["words"]`), one word at a time,
/// within `tolerance`; returns the worst difference.
fn check_word_vectors(model: &dyn Embedder, reference: &Value, tolerance: f32, label: &str) -> f32 {
    let mut worst = 0f32;
    for w in reference["words"].as_array().unwrap() {
        let text = reference["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == w["sentence_id"])
            .unwrap()["text"]
            .as_str()
            .unwrap();
        let word = w["word"].as_str().unwrap();
        let range = word_bytes(text, w["char_start"].as_u64().unwrap() as usize, word);
        let got = model
            .embed_words(&[WordInContext { text, word: range }], Layer::Last)
            .unwrap()
            .remove(0);
        let diff = max_abs_diff(&got, &floats(&w["vector"]));
        assert!(
            diff <= tolerance,
            "{label} word {word}: max abs diff {diff}"
        );
        worst = worst.max(diff);
    }
    worst
}

/// Pooled vectors, layer-1 CLS, token ids and word vectors of one tiny folder,
/// all one text at a time, against transformers. Returns the worst difference.
fn check_tiny_embeddings(folder: &str) -> f32 {
    check_embeddings(folder, Pooling::Cls)
}

/// [`check_tiny_embeddings`] for a folder whose family pools by `pooling`.
pub(crate) fn check_embeddings(folder: &str, pooling: Pooling) -> f32 {
    let reference = reference(folder);
    let model = embedder(&model_dir(folder));
    assert_eq!(model.default_pooling(), pooling, "{folder}");
    let tokenizer = Tokenizer::from_dir(model_dir(folder)).unwrap();
    let mut worst = 0f32;
    for s in reference["sentences"].as_array().unwrap() {
        let text = s["text"].as_str().unwrap();
        let id = s["id"].as_str().unwrap();
        let enc = tokenizer.encode(text, true).unwrap();
        assert_eq!(enc.ids(), ids(&s["ids"]), "{folder} {id}: token ids");
        for (pooling, key, layer) in [
            (Pooling::Cls, "cls", Layer::Last),
            (Pooling::Mean, "mean", Layer::Last),
            (Pooling::First, "first", Layer::Last),
            (Pooling::Cls, "layer1_cls", Layer::Index(1)),
        ] {
            let got = model.embed(&[text], pooling, layer).unwrap().remove(0);
            let diff = max_abs_diff(&got, &floats(&s[key]));
            assert!(diff <= 1e-5, "{folder} {id} {key}: max abs diff {diff}");
            worst = worst.max(diff);
        }
    }
    worst.max(check_word_vectors(&*model, &reference, 1e-5, folder))
}

/// Fill-mask on every masked reference sentence, in one batched call: the top-10 ids,
/// tokens and probabilities; the mask token is the reference's (`[MASK]` if unnamed).
pub(crate) fn check_tiny_fill_mask(folder: &str) {
    let reference = reference(folder);
    let model = mlm(&model_dir(folder));
    let mask = reference["mask_token"].as_str().unwrap_or("[MASK]");
    assert_eq!(model.mask_token(), mask);
    let masked: Vec<&Value> = reference["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("fill_mask").is_some())
        .collect();
    assert!(masked.len() >= 3, "{folder}: too few masked sentences");
    let texts: Vec<&str> = masked.iter().map(|s| s["text"].as_str().unwrap()).collect();
    // One batched call: padding must not change the predictions.
    let predictions = model.fill_mask(&texts, 10).unwrap();
    for (s, got) in masked.iter().zip(&predictions) {
        let want_ids = ids(&s["fill_mask"]["top10_ids"]);
        let got_ids: Vec<u32> = got.iter().map(|p| p.id).collect();
        assert_eq!(got_ids, want_ids, "{folder} {}: top-10 ids", s["id"]);
        let got_probs: Vec<f32> = got.iter().map(|p| p.prob).collect();
        let diff = max_abs_diff(&got_probs, &floats(&s["fill_mask"]["top10_probs"]));
        assert!(diff <= 1e-5, "{folder} {}: probs differ by {diff}", s["id"]);
        let tokens: Vec<&str> = got.iter().map(|p| p.token.as_str()).collect();
        let want_tokens: Vec<&str> = s["fill_mask"]["top10_tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(tokens, want_tokens);
    }
    // token_probs reads the distribution fill_mask ranks (same single-text run: equal bits).
    let single = model.fill_mask(&texts[..1], 3).unwrap().remove(0);
    let ids: Vec<u32> = single.iter().map(|p| p.id).collect();
    let probs = model.token_probs(texts[0], &ids).unwrap();
    assert_eq!(probs, single.iter().map(|p| p.prob).collect::<Vec<_>>());
    for e in reference["errors"].as_array().unwrap() {
        let text = e["text"].as_str().unwrap();
        let one = format!("Thou art {mask}.");
        let err = model.fill_mask(&[&one, text], 5).unwrap_err();
        assert!(
            matches!(err, EncoderError::MaskCount { index: 1, .. }),
            "{text}: {err}"
        );
    }
}

#[test]
fn tiny_mlm_f32_matches_transformers() {
    check_tiny_embeddings("tiny-bert-mlm");
    check_tiny_fill_mask("tiny-bert-mlm");
}

#[test]
fn tiny_mlm_f16_matches_transformers() {
    check_tiny_embeddings("tiny-bert-mlm-f16");
    check_tiny_fill_mask("tiny-bert-mlm-f16");
}

#[test]
fn tiny_mlm_bf16_matches_transformers() {
    check_tiny_embeddings("tiny-bert-mlm-bf16");
    check_tiny_fill_mask("tiny-bert-mlm-bf16");
}

#[test]
fn tiny_mlm_pytorch_bin_matches_transformers() {
    check_tiny_embeddings("tiny-bert-mlm-bin");
    check_tiny_fill_mask("tiny-bert-mlm-bin");
}

#[test]
fn tiny_mlm_gamma_beta_untied_decoder_matches_transformers() {
    check_tiny_embeddings("tiny-bert-mlm-gamma");
    check_tiny_fill_mask("tiny-bert-mlm-gamma");
}

#[test]
fn tiny_nohead_without_prefix_matches_transformers() {
    check_tiny_embeddings("tiny-bert-nohead");
    let checkpoint = Checkpoint::resolve(model_dir("tiny-bert-nohead").to_str().unwrap()).unwrap();
    let err = load_masked_lm(&checkpoint, DeviceKind::Cpu)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no masked-language-modelling head"), "{err}");
}

#[test]
fn tiny_cased_turkish_matches_transformers() {
    check_tiny_embeddings("tiny-bert-cased-tr");
}

#[test]
fn layers_out_of_range_are_refused() {
    let model = embedder(&model_dir("tiny-bert-mlm"));
    assert_eq!(model.num_layers(), 2);
    assert!(model.embed(&["a"], Pooling::Cls, Layer::Index(2)).is_ok());
    let err = model
        .embed(&["a"], Pooling::Cls, Layer::Index(3))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "layer 3 does not exist: the model has layers 0..=2"
    );
}

#[test]
fn minilm_matches_transformers() {
    let reference = reference("minilm");
    let dir = crate::minilm::minilm_dir();
    let model = embedder(&dir);
    let tokenizer = Tokenizer::from_dir(&dir).unwrap();
    let sentences = reference["sentences"].as_array().unwrap();
    assert!(sentences.len() >= 20);
    let texts: Vec<&str> = sentences
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    let (mut worst_diff, mut worst_cos) = (0f32, 1f64);
    for (pooling, key, layer) in [
        (Pooling::Cls, "cls", Layer::Last),
        (Pooling::Mean, "mean", Layer::Last),
        (Pooling::First, "first", Layer::Last),
        (Pooling::Cls, "layer3_cls", Layer::Index(3)),
    ] {
        let got = model.embed(&texts, pooling, layer).unwrap();
        for (s, v) in sentences.iter().zip(&got) {
            let want = floats(&s[key]);
            let (diff, cos) = (max_abs_diff(v, &want), cosine(v, &want));
            assert!(
                diff <= 1e-4 && cos >= 0.99999,
                "{} {key}: max abs diff {diff}, cosine {cos}",
                s["id"]
            );
            worst_diff = worst_diff.max(diff);
            worst_cos = worst_cos.min(cos);
        }
    }
    for s in sentences {
        let enc = tokenizer.encode(s["text"].as_str().unwrap(), true).unwrap();
        assert_eq!(enc.ids(), ids(&s["ids"]), "{}: token ids", s["id"]);
    }
    worst_diff = worst_diff.max(check_word_vectors(&*model, &reference, 1e-4, "MiniLM"));
    eprintln!("MiniLM: worst max abs diff {worst_diff:e}, worst cosine {worst_cos}");
}

#[test]
fn texts_longer_than_the_position_table_are_errors_not_panics() {
    // The tiny fixtures have max_position_embeddings = 64.
    let long = "thou art ".repeat(40);
    let texts = ["a short one", long.as_str()];
    let embedder = embedder(&model_dir("tiny-bert-mlm"));
    match embedder.embed(&texts, Pooling::Mean, Layer::Last) {
        Err(EncoderError::TooLong {
            index: 1,
            max: 64,
            tokens,
            ..
        }) => assert!(tokens > 64),
        other => panic!("expected TooLong for text 1, got {other:?}"),
    }
    let word = WordInContext {
        text: &long,
        word: 0..4,
    };
    assert!(matches!(
        embedder.embed_words(&[word], Layer::Last),
        Err(EncoderError::TooLong { index: 0, .. })
    ));
    let masked = format!("{long} [MASK] .");
    let mlm = mlm(&model_dir("tiny-bert-mlm"));
    assert!(matches!(
        mlm.fill_mask(&["thou [MASK] here .", &masked], 3),
        Err(EncoderError::TooLong { index: 1, .. })
    ));
}
