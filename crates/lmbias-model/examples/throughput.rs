//! Sentences per second of `BertEmbedder::embed` (mean pooling, tokenization
//! included) on a batch of ~10-token sentences. Run by scripts/bench-model.sh
//! back to back with scripts/bench_torch.py, which does the same in PyTorch.
//!
//! Usage: throughput MODEL_DIR BATCH SECONDS [cpu|wgpu]

use std::time::Instant;

use lmbias_encoder::{Embedder, Layer, Pooling};
use lmbias_model::{BertEmbedder, Checkpoint, DeviceKind};

/// Shared with bench_torch.py: 10 to 12 tokens each with [CLS]/[SEP] (bert-base-uncased vocab).
const SENTENCES: [&str; 8] = [
    "The doctor said she would be late today.",
    "Thou art more lovely and more temperate.",
    "He works as an engineer in the city.",
    "The children played football in the park.",
    "She teaches mathematics at the local school.",
    "Love and peace make life more pleasant.",
    "The nurse helped the old man walk home.",
    "Researchers measure bias in language models.",
];

/// The CPU backend compiled in (the lib's features are the example's).
const BACKEND: &str = if cfg!(feature = "flex") {
    "flex"
} else if cfg!(feature = "ndarray") {
    "ndarray"
} else {
    "none"
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, batch, seconds, rest @ ..] = args.as_slice() else {
        return Err("usage: throughput MODEL_DIR BATCH SECONDS [cpu|wgpu]".into());
    };
    let batch: usize = batch.parse()?;
    let seconds: f64 = seconds.parse()?;
    let device: DeviceKind = rest.first().map_or("cpu", String::as_str).parse()?;
    let model = BertEmbedder::load(&Checkpoint::resolve(dir)?, device)?;
    let texts: Vec<&str> = SENTENCES.iter().cycle().take(batch).copied().collect();
    let seq_len = texts
        .iter()
        .map(|t| model.tokenizer().encode(t, true).map(|e| e.len()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .max()
        .unwrap_or(0);
    // Warm-up: first-call allocation (and kernel compilation on wgpu).
    model.embed(&texts, Pooling::Mean, Layer::Last)?;
    let start = Instant::now();
    let mut batches = 0usize;
    while start.elapsed().as_secs_f64() < seconds || batches < 3 {
        let out = model.embed(&texts, Pooling::Mean, Layer::Last)?;
        assert_eq!(out.len(), batch);
        batches += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{{\"impl\": \"lmbias-{}-{BACKEND}\", \"model\": {:?}, \"batch\": {batch}, \"seq_len\": {seq_len}, \"batches\": {batches}, \"seconds\": {elapsed:.3}, \"sentences_per_s\": {:.1}}}",
        device.as_str(),
        dir,
        (batches * batch) as f64 / elapsed
    );
    Ok(())
}
