//! The T5 / mT5 encoder against transformers 5.24: the tiny mT5 fixture from both
//! weight formats (reference/tiny-mt5.json, tests/fixtures/generate/tiny_mt5.py),
//! and the extra poolings, layers and word vectors of tiny-mt5 and the ReLU
//! tiny-t5-relu (reference/tiny-t5-encoders.json, generate/tiny_t5_encoders.py).

use std::path::{Path, PathBuf};

use lmbias_core::{Embedder, EncoderError, Layer, Pooling, WordInContext};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder, load_masked_lm};
use lmbias_testing::{floats, ids, max_abs_diff, model_dir, reference};
use lmbias_text::Tokenizer;
use safetensors::SafeTensors;
use safetensors::tensor::TensorView;
use serde_json::Value;

/// transformers' own single-vs-batched spread on this fixture is 1.95e-6
/// (reference/tiny-mt5.json "batched"); 1e-4 is the parity bar of the task.
const TOLERANCE: f32 = 1e-4;

fn checkpoint(dir: &Path) -> Checkpoint {
    Checkpoint::resolve(dir.to_str().unwrap()).unwrap()
}

fn load_t5(dir: &Path) -> Box<dyn Embedder + Send + Sync> {
    load_embedder(&checkpoint(dir), DeviceKind::Cpu).unwrap()
}

/// Every sentence of tiny-mt5.json through the model in `dir`: token ids, `cls`
/// (= the reference's position-0 `first`) and `mean`, batched and one at a time,
/// and the full last hidden state of the four `full_hidden` sentences. Returns
/// the worst difference.
fn check_tiny_mt5(dir: &Path) -> f32 {
    let model = load_t5(dir);
    assert_eq!((model.hidden_size(), model.num_layers()), (32, 2));
    assert_eq!(model.default_pooling(), Pooling::Mean);
    let tokenizer = Tokenizer::from_dir(dir).unwrap();
    let reference = reference("tiny-mt5");
    let sentences = reference["sentences"].as_array().unwrap();
    assert_eq!(sentences.len(), 31);
    let texts: Vec<&str> = sentences
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    let mut worst = 0f32;
    for (s, text) in sentences.iter().zip(&texts) {
        let id = s["id"].as_str().unwrap();
        let expected = ids(&s["ids"]);
        let enc = tokenizer.encode(text, true).unwrap();
        assert_eq!(enc.ids(), expected, "{id}: token ids");
        // tiny-mt5.json has no slow/fast disagreement: SentencePiece's own ids agree too.
        assert_eq!(enc.ids(), ids(&s["slow_ids"]), "{id}: sentencepiece ids");
        let pieces: Vec<u32> = model.tokenize(text).unwrap().iter().map(|p| p.id).collect();
        assert_eq!(
            pieces,
            expected[..expected.len() - 1],
            "{id}: ids without </s>"
        );
    }
    for pooling in [Pooling::Cls, Pooling::Mean] {
        let key = if pooling == Pooling::Cls {
            "first"
        } else {
            "mean"
        };
        let batched = model.embed(&texts, pooling, Layer::Last).unwrap();
        for (i, s) in sentences.iter().enumerate() {
            let id = s["id"].as_str().unwrap();
            let single = model.embed(&[texts[i]], pooling, Layer::Last).unwrap();
            let expected = floats(&s[key]);
            for (how, got) in [("batched", &batched[i]), ("single", &single[0])] {
                let diff = max_abs_diff(got, &expected);
                assert!(
                    diff < TOLERANCE,
                    "{id} {pooling} {how}: max abs diff {diff}"
                );
                worst = worst.max(diff);
            }
        }
    }
    for full in reference["full_hidden"].as_array().unwrap() {
        let id = full["id"].as_str().unwrap();
        let s = sentences.iter().find(|s| s["id"] == id).unwrap();
        let hidden =
            lmbias_model::testing::hidden_states(&checkpoint(dir), &ids(&s["ids"]), Layer::Last)
                .unwrap();
        let rows = full["last_hidden_state"].as_array().unwrap();
        assert_eq!(hidden.len(), rows.len(), "{id}: sequence length");
        for (t, row) in rows.iter().enumerate() {
            let diff = max_abs_diff(&hidden[t], &floats(row));
            assert!(diff < TOLERANCE, "{id} token {t}: max abs diff {diff}");
            worst = worst.max(diff);
        }
    }
    worst
}

#[test]
fn tiny_mt5_safetensors_matches_transformers() {
    let worst = check_tiny_mt5(&model_dir("tiny-mt5"));
    eprintln!("tiny-mt5 (safetensors): worst max abs diff {worst:e}");
}

/// The `.bin` folder as shipped: the full state dict (`embed_tokens` copies
/// included) and only `spiece.model` for the tokenizer (lmbias-text's SentencePiece path).
#[test]
fn tiny_mt5_pytorch_bin_with_spiece_matches_transformers() {
    let worst = check_tiny_mt5(&model_dir("tiny-mt5-bin"));
    eprintln!("tiny-mt5-bin (pytorch_model.bin, spiece.model): worst max abs diff {worst:e}");
}

/// `first` without `</s>`, block-1 output, and word vectors, for the gated-GELU
/// mT5 and the ReLU T5 (d_kv·heads ≠ d_model, 16 buckets, max_distance 12).
#[test]
fn poolings_layers_and_words_match_transformers() {
    let extra = reference("tiny-t5-encoders");
    let texts = reference("tiny-mt5")["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_string(),
                s["text"].as_str().unwrap().to_string(),
            )
        })
        .collect::<std::collections::HashMap<_, _>>();
    for m in extra["models"].as_array().unwrap() {
        let folder = m["folder"].as_str().unwrap();
        // Through the dispatcher, as the CLI loads it.
        let model = load_embedder(&checkpoint(&model_dir(folder)), DeviceKind::Cpu).unwrap();
        let mut worst = 0f32;
        let mut check = |what: String, got: &[f32], expected: &Value| {
            let diff = max_abs_diff(got, &floats(expected));
            assert!(diff < TOLERANCE, "{folder} {what}: max abs diff {diff}");
            worst = worst.max(diff);
        };
        for s in m["sentences"].as_array().unwrap() {
            let id = s["id"].as_str().unwrap();
            let text = texts[id].as_str();
            let pieces: Vec<u32> = model.tokenize(text).unwrap().iter().map(|p| p.id).collect();
            assert_eq!(pieces, ids(&s["ids_no_special"]), "{folder} {id}");
            let embed = |pooling, layer| model.embed(&[text], pooling, layer).unwrap().remove(0);
            check(
                format!("{id} cls"),
                &embed(Pooling::Cls, Layer::Last),
                &s["cls"],
            );
            check(
                format!("{id} mean"),
                &embed(Pooling::Mean, Layer::Last),
                &s["mean"],
            );
            let last = Layer::Index(model.num_layers());
            check(
                format!("{id} mean at layer L"),
                &embed(Pooling::Mean, last),
                &s["mean"],
            );
            check(
                format!("{id} layer-1 mean"),
                &embed(Pooling::Mean, Layer::Index(1)),
                &s["layer1_mean"],
            );
            if s["first"].is_null() {
                let err = model
                    .embed(&[text], Pooling::First, Layer::Last)
                    .unwrap_err();
                assert!(matches!(err, EncoderError::EmptyText { index: 0 }), "{err}");
            } else {
                check(
                    format!("{id} first"),
                    &embed(Pooling::First, Layer::Last),
                    &s["first"],
                );
            }
        }
        let words = m["words"].as_array().unwrap();
        let items: Vec<WordInContext<'_>> = words
            .iter()
            .map(|w| {
                let text = texts[w["sentence_id"].as_str().unwrap()].as_str();
                let start = text
                    .char_indices()
                    .nth(w["char_start"].as_u64().unwrap() as usize)
                    .unwrap()
                    .0;
                let word = w["word"].as_str().unwrap();
                assert_eq!(&text[start..start + word.len()], word);
                WordInContext {
                    text,
                    word: start..start + word.len(),
                }
            })
            .collect();
        let vectors = model.embed_words(&items, Layer::Last).unwrap();
        for (w, v) in words.iter().zip(&vectors) {
            check(format!("word {}", w["word"]), v, &w["vector"]);
        }
        eprintln!("{folder}: worst max abs diff {worst:e}");
    }
}

#[test]
fn t5_has_no_masked_lm_and_bounded_layers() {
    let checkpoint = checkpoint(&model_dir("tiny-mt5"));
    let err = load_masked_lm(&checkpoint, DeviceKind::Cpu)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no masked-language-modelling head"), "{err}");
    assert!(err.contains("bert-base-uncased"), "{err}");
    let model = load_embedder(&checkpoint, DeviceKind::Cpu).unwrap();
    match model.embed(&["a"], Pooling::Mean, Layer::Index(3)) {
        Err(EncoderError::Layer {
            requested: 3,
            available: 2,
        }) => {}
        other => panic!("expected a layer error, got {other:?}"),
    }
}

fn load_error(dir: &Path) -> String {
    crate::load_error(dir, |c| load_embedder(c, DeviceKind::Cpu))
}

#[test]
fn unsupported_feed_forward_is_named() {
    let dir = lmbias_testing::copy_fixture("tiny-mt5", "ff");
    let config = dir.join("config.json");
    let text = std::fs::read_to_string(&config).unwrap();
    let broken = text.replace("\"gated-gelu\"", "\"gated-silu\"");
    assert_ne!(broken, text);
    std::fs::write(&config, broken).unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!(
            "{}: invalid config: feed_forward_proj \"gated-silu\" is not supported (expected gated-gelu or relu) at line ",
            config.display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Rewrite `model.safetensors` in `dir`, keeping each tensor under the name `rename`
/// gives it, dropping those it maps to `None`.
fn rewrite_safetensors(dir: &Path, rename: impl Fn(&str) -> Option<String>) -> PathBuf {
    let path = dir.join("model.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let kept: Vec<(String, TensorView<'_>)> = file
        .tensors()
        .into_iter()
        .filter_map(|(n, v)| rename(&n).map(|n| (n, v)))
        .collect();
    std::fs::write(&path, safetensors::serialize(kept, None).unwrap()).unwrap();
    path
}

#[test]
fn missing_relative_attention_bias_is_named() {
    let dir = lmbias_testing::copy_fixture("tiny-mt5", "bias");
    let name = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight";
    let path = rewrite_safetensors(&dir, |n| (n != name).then(|| n.to_string()));
    assert_eq!(
        load_error(&dir),
        format!("{}: missing tensor {name}", path.display())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An encoder-only export may store the embeddings as `encoder.embed_tokens.weight`
/// instead of `shared.weight`: same numbers.
#[test]
fn embeddings_stored_as_encoder_embed_tokens() {
    let dir = lmbias_testing::copy_fixture("tiny-mt5", "embed");
    rewrite_safetensors(&dir, |n| {
        Some(match n {
            "shared.weight" => "encoder.embed_tokens.weight".to_string(),
            other => other.to_string(),
        })
    });
    let model = load_embedder(&checkpoint(&dir), DeviceKind::Cpu).unwrap();
    let reference = reference("tiny-mt5");
    let s = &reference["sentences"][10];
    let got = model
        .embed(&[s["text"].as_str().unwrap()], Pooling::Mean, Layer::Last)
        .unwrap();
    let diff = max_abs_diff(&got[0], &floats(&s["mean"]));
    assert!(diff < TOLERANCE, "{}: max abs diff {diff}", s["id"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
