//! Damaged copies of every file a model folder holds (config.json, tokenizer.json,
//! tokenizer_config.json, vocab.txt, spiece.model, spm.model, model.safetensors and its
//! header, pytorch_model.bin) and of word-vector files: each reader, fed a file cut short or
//! with bytes flipped, inserted, removed or repeated, answers with a one-line error or a model
//! that works, never a panic (#35). The number of inputs is bounded for CI;
//! `LMBIAS_FUZZ_CASES` sets it for the longer run recorded in docs/reliability.md.

use std::path::{Path, PathBuf};

use lmbias_core::{Layer, Pooling};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder, load_masked_lm};
use lmbias_static::StaticEmbeddings;
use lmbias_testing::hostile::{cases, damaged, on_disk};
use proptest::prelude::*;

/// A one-line message: every error lmbias prints is one.
fn one_line(err: &dyn std::error::Error) {
    let mut message = err.to_string();
    let mut cause = err.source();
    while let Some(e) = cause {
        message.push_str(&format!(": {e}"));
        cause = e.source();
    }
    assert!(!message.contains('\n'), "not one line: {message}");
    assert!(message.len() < 2000, "{} bytes: {message}", message.len());
}

/// A copy of fixture `model` in a fresh folder (one per test thread and file) with `file`
/// replaced by `bytes`.
fn folder_with(model: &str, file: &str, bytes: &[u8]) -> PathBuf {
    let tag = format!("hostile-{model}-{file}-{:?}", std::thread::current().id());
    let dir = lmbias_testing::copy_fixture(model, &tag.replace(['(', ')'], ""));
    std::fs::write(dir.join(file), bytes).unwrap();
    dir
}

/// Resolves and loads the folder as a masked LM and as an embedder, and runs each on a text:
/// every step either answers or fails with one line.
fn load_and_use(dir: &Path) {
    let checkpoint = match Checkpoint::resolve(dir.to_str().unwrap()) {
        Ok(c) => c,
        Err(e) => return one_line(&e),
    };
    match load_masked_lm(&checkpoint, DeviceKind::Cpu) {
        Ok(lm) => {
            let text = format!("thou art {} fair", lm.mask_token());
            if let Err(e) = lm.fill_mask(&[&text], 5) {
                one_line(&e);
            }
        }
        Err(e) => one_line(&e),
    }
    match load_embedder(&checkpoint, DeviceKind::Cpu) {
        Ok(model) => {
            if let Err(e) = model.embed(&["thou art fair"], Pooling::Mean, Layer::Last) {
                one_line(&e);
            }
        }
        Err(e) => one_line(&e),
    }
}

fn original(model: &str, file: &str) -> Vec<u8> {
    std::fs::read(lmbias_testing::model_dir(model).join(file)).unwrap()
}

/// The property: `model`'s folder with `file` damaged loads or fails with one line.
fn damaged_file(model: &'static str, file: &'static str) -> impl Strategy<Value = Vec<u8>> {
    damaged(original(model, file))
}

fn check(model: &str, file: &str, bytes: &[u8]) {
    let dir = folder_with(model, file, bytes);
    load_and_use(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// model.safetensors with its JSON header damaged and the length prefix made to match, so
/// that the header's reader sees the damage rather than a length that points nowhere.
fn damaged_header() -> impl Strategy<Value = Vec<u8>> {
    let bytes = original("tiny-bert-mlm", "model.safetensors");
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let (header, data) = (bytes[8..8 + n].to_vec(), bytes[8 + n..].to_vec());
    damaged(header).prop_map(move |header| {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&header);
        out.extend_from_slice(&data);
        out
    })
}

/// A GloVe-style text file of five words in four dimensions.
const VECTORS: &str =
    "the 0.1 0.2 0.3 0.4\nthou -1 0.5 2e-3 7\nart 1 1 1 1\nfair 0 0 0 0.5\n, 3 2 1 0\n";

/// The same five vectors in word2vec's binary format.
fn word2vec_binary() -> Vec<u8> {
    let mut out = b"5 4\n".to_vec();
    for line in VECTORS.lines() {
        let mut parts = line.split(' ');
        out.extend_from_slice(parts.next().unwrap().as_bytes());
        out.push(b' ');
        for v in parts {
            out.extend_from_slice(&v.parse::<f32>().unwrap().to_le_bytes());
        }
        out.push(b'\n');
    }
    out
}

fn use_vectors(result: Result<StaticEmbeddings, lmbias_static::StaticError>) {
    match result {
        Ok(v) => {
            assert!(v.dim() > 0 || v.is_empty());
            let _ = v.vector("thou");
        }
        Err(e) => one_line(&e),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    #[test]
    fn bert_config_json(bytes in damaged_file("tiny-bert-mlm", "config.json")) {
        check("tiny-bert-mlm", "config.json", &bytes);
    }

    #[test]
    fn bert_tokenizer_json(bytes in damaged_file("tiny-bert-mlm", "tokenizer.json")) {
        check("tiny-bert-mlm", "tokenizer.json", &bytes);
    }

    #[test]
    fn bert_tokenizer_config_json(bytes in damaged_file("tiny-bert-mlm", "tokenizer_config.json")) {
        check("tiny-bert-mlm", "tokenizer_config.json", &bytes);
    }

    #[test]
    fn bert_vocab_txt(bytes in damaged_file("tiny-bert-mlm", "vocab.txt")) {
        // Without tokenizer.json, so that vocab.txt is the file read.
        let dir = folder_with("tiny-bert-mlm", "vocab.txt", &bytes);
        std::fs::remove_file(dir.join("tokenizer.json")).unwrap();
        load_and_use(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bert_model_safetensors(bytes in damaged_file("tiny-bert-mlm", "model.safetensors")) {
        check("tiny-bert-mlm", "model.safetensors", &bytes);
    }

    #[test]
    fn bert_safetensors_header(bytes in damaged_header()) {
        check("tiny-bert-mlm", "model.safetensors", &bytes);
    }

    #[test]
    fn bert_pytorch_model_bin(bytes in damaged_file("tiny-bert-mlm-bin", "pytorch_model.bin")) {
        check("tiny-bert-mlm-bin", "pytorch_model.bin", &bytes);
    }

    #[test]
    fn t5_spiece_model(bytes in damaged_file("tiny-mt5", "spiece.model")) {
        // Without tokenizer.json, so that the SentencePiece model is the file read.
        let dir = folder_with("tiny-mt5", "spiece.model", &bytes);
        std::fs::remove_file(dir.join("tokenizer.json")).unwrap();
        load_and_use(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn deberta_spm_model(bytes in damaged_file("tiny-deberta-v3-mlm", "spm.model")) {
        check("tiny-deberta-v3-mlm", "spm.model", &bytes);
    }

    #[test]
    fn deberta_config_json(bytes in damaged_file("tiny-deberta-v3-mlm", "config.json")) {
        check("tiny-deberta-v3-mlm", "config.json", &bytes);
    }

    #[test]
    fn modernbert_config_json(bytes in damaged_file("tiny-modernbert-mlm", "config.json")) {
        check("tiny-modernbert-mlm", "config.json", &bytes);
    }

    #[test]
    fn t5_config_json(bytes in damaged_file("tiny-mt5", "config.json")) {
        check("tiny-mt5", "config.json", &bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn word_vectors_text(bytes in damaged(VECTORS.as_bytes().to_vec())) {
        use_vectors(StaticEmbeddings::from_text(on_disk("vectors.txt", &bytes)));
    }

    #[test]
    fn word_vectors_binary(bytes in damaged(word2vec_binary())) {
        use_vectors(StaticEmbeddings::from_word2vec_binary(on_disk("vectors.bin", &bytes)));
    }
}
