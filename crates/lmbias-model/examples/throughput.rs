//! Sentences per second of `Embedder::embed` on a loaded BERT (mean pooling,
//! tokenization included) on a batch of ~10-token sentences. Run by
//! scripts/bench-model.sh back to back with scripts/bench_torch.py, which does
//! the same in PyTorch.
//!
//! Usage: throughput MODEL BATCH SECONDS [cpu|wgpu] [f32|bf16]
//!
//! MODEL is a folder, or `random:minilm` / `random:bert-base`: random weights of
//! that shape written to a temp folder (with the tiny fixture's tokenizer), fed
//! sentences of 9 words of that vocabulary (11 tokens with [CLS]/[SEP]) — a
//! forward-pass benchmark for machines that cannot get real weights (the GPU
//! check, scripts/gpu-check.sh).

use std::path::{Path, PathBuf};
use std::time::Instant;

use lmbias_core::{Layer, Pooling};
use lmbias_model::{Checkpoint, Compute, DeviceKind, Precision, load_embedder};
use lmbias_text::Tokenizer;

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

type Error = Box<dyn std::error::Error>;

/// (layers, hidden, heads, intermediate) of the named shape.
fn shape(name: &str) -> Result<(usize, usize, usize, usize), Error> {
    match name {
        "minilm" => Ok((6, 384, 12, 1536)),
        "bert-base" => Ok((12, 768, 12, 3072)),
        other => Err(format!("unknown shape {other:?}: expected minilm or bert-base").into()),
    }
}

/// A BertModel folder with N(0, 0.02) weights (LayerNorm 1/0), vocab 30522, in the temp dir.
fn random_checkpoint(name: &str) -> Result<PathBuf, Error> {
    let (layers, h, heads, m) = shape(name)?;
    let (v, p) = (30522, 512);
    let dir = std::env::temp_dir().join(format!("lmbias-random-{name}"));
    std::fs::create_dir_all(&dir)?;
    let config = format!(
        r#"{{"model_type": "bert", "architectures": ["BertModel"], "vocab_size": {v}, "hidden_size": {h},
        "num_hidden_layers": {layers}, "num_attention_heads": {heads}, "intermediate_size": {m},
        "max_position_embeddings": {p}, "type_vocab_size": 2, "hidden_act": "gelu"}}"#
    );
    std::fs::write(dir.join("config.json"), config)?;
    let mut tensors: Vec<(String, Vec<usize>)> = vec![
        ("embeddings.word_embeddings.weight".into(), vec![v, h]),
        ("embeddings.position_embeddings.weight".into(), vec![p, h]),
        ("embeddings.token_type_embeddings.weight".into(), vec![2, h]),
        ("embeddings.LayerNorm.weight".into(), vec![h]),
        ("embeddings.LayerNorm.bias".into(), vec![h]),
    ];
    for l in 0..layers {
        let q = format!("encoder.layer.{l}");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", m, h),
            ("output.dense", h, m),
        ] {
            tensors.push((format!("{q}.{name}.weight"), vec![out, inp]));
            tensors.push((format!("{q}.{name}.bias"), vec![out]));
        }
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            tensors.push((format!("{q}.{norm}.weight"), vec![h]));
            tensors.push((format!("{q}.{norm}.bias"), vec![h]));
        }
    }
    // safetensors: u64 header length, JSON header, little-endian f32 data.
    let mut header = Vec::new();
    let mut offset = 0usize;
    for (name, dims) in &tensors {
        let bytes = 4 * dims.iter().product::<usize>();
        header.push(format!(
            r#""{name}": {{"dtype": "F32", "shape": {dims:?}, "data_offsets": [{offset}, {}]}}"#,
            offset + bytes
        ));
        offset += bytes;
    }
    let header = format!("{{{}}}", header.join(", "));
    let mut file = Vec::with_capacity(8 + header.len() + offset);
    file.extend((header.len() as u64).to_le_bytes());
    file.extend(header.as_bytes());
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for (name, dims) in &tensors {
        for _ in 0..dims.iter().product::<usize>() {
            let value = if name.ends_with("LayerNorm.weight") {
                1.0
            } else if name.ends_with("LayerNorm.bias") {
                0.0
            } else {
                // xorshift, then a sum of uniforms: roughly N(0, 0.02), enough for timing.
                let mut sum = 0f32;
                for _ in 0..4 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    sum += (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                }
                sum * 0.02 * 3f32.sqrt()
            };
            file.extend(value.to_le_bytes());
        }
    }
    std::fs::write(dir.join("model.safetensors"), file)?;
    let tokenizer =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/models/tiny-bert-mlm");
    for name in ["vocab.txt", "tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(tokenizer.join(name), dir.join(name))?;
    }
    Ok(dir)
}

/// `batch` sentences of 9 whole words of the folder's vocab.txt, each one piece:
/// 11 tokens with [CLS] and [SEP], varied from sentence to sentence.
fn vocabulary_sentences(folder: &Path, batch: usize) -> Result<Vec<String>, Error> {
    let vocab = std::fs::read_to_string(folder.join("vocab.txt"))?;
    let words: Vec<&str> = vocab
        .lines()
        .filter(|w| w.len() > 1 && w.chars().all(|c| c.is_ascii_lowercase()))
        .collect();
    if words.is_empty() {
        return Err("the vocabulary has no whole lower-case words".into());
    }
    Ok((0..batch)
        .map(|b| {
            (0..9)
                .map(|i| words[(b * 31 + i * 97) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, batch, seconds, rest @ ..] = args.as_slice() else {
        return Err("usage: throughput MODEL BATCH SECONDS [cpu|wgpu] [f32|bf16]".into());
    };
    let batch: usize = batch.parse()?;
    let seconds: f64 = seconds.parse()?;
    let device: DeviceKind = rest.first().map_or("cpu", String::as_str).parse()?;
    let precision: Precision = rest.get(1).map_or("f32", String::as_str).parse()?;
    let compute = Compute::new(device, precision)?;
    let random = dir.strip_prefix("random:");
    let folder = match random {
        Some(name) => random_checkpoint(name)?,
        None => PathBuf::from(dir),
    };
    let model = load_embedder(&Checkpoint::from_dir(dir, &folder)?, compute)?;
    let texts: Vec<String> = match random {
        Some(_) => vocabulary_sentences(&folder, batch)?,
        None => SENTENCES
            .iter()
            .cycle()
            .take(batch)
            .map(|s| s.to_string())
            .collect(),
    };
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let run =
        || -> Result<usize, Error> { Ok(model.embed(&texts, Pooling::Mean, Layer::Last)?.len()) };
    let tokenizer = Tokenizer::from_dir(&folder)?;
    let seq_len = texts
        .iter()
        .map(|t| tokenizer.encode(t, true).map(|e| e.len()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .max()
        .unwrap_or(0);
    // Warm-up: first-call allocation (and kernel compilation on wgpu).
    run()?;
    let start = Instant::now();
    let mut batches = 0usize;
    while start.elapsed().as_secs_f64() < seconds || batches < 3 {
        assert_eq!(run()?, batch);
        batches += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{{\"impl\": \"lmbias-{}-{BACKEND}-{}\", \"model\": {:?}, \"batch\": {batch}, \"seq_len\": {seq_len}, \"batches\": {batches}, \"seconds\": {elapsed:.3}, \"sentences_per_s\": {:.1}}}",
        device.as_str(),
        compute.precision(),
        dir,
        (batches * batch) as f64 / elapsed
    );
    Ok(())
}
