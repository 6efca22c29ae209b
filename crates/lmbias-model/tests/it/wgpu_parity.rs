//! wgpu gives the CPU backend's numbers on every family's tiny fixture (issue #51): sentence
//! vectors, fill-mask, the likelihood measures' units (a hidden piece's log-probability, a
//! whole sequence's pieces and attention) and 20 training steps. Compiled only with
//! `--features wgpu`; `.ci/run` runs it on a software Vulkan device (lavapipe), a GPU
//! machine through scripts/gpu-check.sh.
//!
//! Tolerances, fixed before the first run: 1e-4 absolute on vector components, probabilities
//! and attention; 1e-4 relative (to the value, at least 1) on log-probabilities, whose
//! small probabilities magnify a float's rounding; the same top-k ids wherever two
//! neighbouring probabilities differ by more than 1e-4 (closer ones may swap places); a
//! training loss within 1e-3 relative of the CPU's at every step of 20, with dropout off
//! (the devices draw dropout from different generators).
#![cfg(feature = "wgpu")]

use std::path::{Path, PathBuf};

use lmbias_core::{HiddenPiece, Layer, MaskedLm};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder, load_masked_lm};

const TEXTS: [&str; 3] = [
    "Thou art more lovely and more temperate.",
    "Öğretmen öğrencilere yeni bir ders anlattı.",
    "The doctor said that she would come tomorrow.",
];

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/models")
}

/// Every fixture folder: one per family and per weight format.
fn fixtures() -> Vec<(String, Checkpoint)> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(models())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("config.json").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "{dirs:?}");
    dirs.iter()
        .map(|d| {
            let name = d.file_name().unwrap().to_string_lossy().into_owned();
            (name, Checkpoint::resolve(d.to_str().unwrap()).unwrap())
        })
        .collect()
}

fn tiny() -> Checkpoint {
    Checkpoint::resolve(models().join("tiny-bert-mlm").to_str().unwrap()).unwrap()
}

/// The largest |a − b| over two equally long lists.
fn worst(a: impl IntoIterator<Item = f64>, b: impl IntoIterator<Item = f64>) -> f64 {
    let (a, b): (Vec<f64>, Vec<f64>) = (a.into_iter().collect(), b.into_iter().collect());
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn wgpu_embeds_every_family_as_the_cpu() {
    let mut report = Vec::new();
    for (name, checkpoint) in fixtures() {
        let cpu = load_embedder(&checkpoint, DeviceKind::Cpu).unwrap();
        let gpu = load_embedder(&checkpoint, DeviceKind::Wgpu).unwrap();
        let pooling = cpu.default_pooling();
        let a = cpu.embed(&TEXTS, pooling, Layer::Last).unwrap();
        let b = gpu.embed(&TEXTS, pooling, Layer::Last).unwrap();
        let gap = worst(
            a.iter().flatten().map(|&x| f64::from(x)),
            b.iter().flatten().map(|&x| f64::from(x)),
        );
        report.push(format!("{name}: {gap:.1e}"));
        assert!(gap <= 1e-4, "{name}: wgpu's vectors differ by {gap}");
    }
    eprintln!(
        "wgpu vs cpu, sentence vectors, worst |Δ|: {}",
        report.join(", ")
    );
}

/// Fill-mask, and the likelihood measures' two units, on every fixture with an MLM head.
#[test]
fn wgpu_fills_masks_and_scores_likelihoods_as_the_cpu() {
    let mut report = Vec::new();
    let mut heads = 0;
    for (name, checkpoint) in fixtures() {
        let Ok(cpu) = load_masked_lm(&checkpoint, DeviceKind::Cpu) else {
            continue;
        };
        heads += 1;
        let gpu = load_masked_lm(&checkpoint, DeviceKind::Wgpu).unwrap();
        let masked = format!("Thou art more {} and more temperate.", cpu.mask_token());
        let (a, b) = (
            cpu.fill_mask(&[&masked], 10).unwrap(),
            gpu.fill_mask(&[&masked], 10).unwrap(),
        );
        let (a, b) = (&a[0], &b[0]);
        let probs = worst(
            a.iter().map(|p| f64::from(p.prob)),
            b.iter().map(|p| f64::from(p.prob)),
        );
        assert!(
            probs <= 1e-4,
            "{name}: fill-mask probabilities differ by {probs}"
        );
        for (i, (p, q)) in a.iter().zip(b).enumerate() {
            let clear = |j: usize| a.get(j).is_none_or(|n| (a[i].prob - n.prob).abs() > 1e-4);
            if clear(i + 1) && (i == 0 || clear(i - 1)) {
                assert_eq!(p.id, q.id, "{name}: proposal {i}");
            }
        }

        let encoded = cpu.encode(&TEXTS).unwrap();
        let items: Vec<HiddenPiece> = encoded
            .iter()
            .flat_map(|e| {
                (1..e.ids.len() - 1).map(|position| HiddenPiece {
                    ids: &e.ids,
                    position,
                })
            })
            .collect();
        let relative = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs() / x.abs().max(1.0))
                .fold(0.0, f64::max)
        };
        let log_probs = |lm: &dyn MaskedLm| -> Vec<f64> {
            lm.hidden_scores(&items, false)
                .unwrap()
                .iter()
                .map(|s| s.log_prob)
                .collect()
        };
        let hidden = relative(&log_probs(cpu.as_ref()), &log_probs(gpu.as_ref()));
        assert!(
            hidden <= 1e-4,
            "{name}: hidden log-probabilities differ by {hidden}"
        );
        let sequences: Vec<&[u32]> = encoded.iter().map(|e| e.ids.as_slice()).collect();
        let (a, b) = (
            cpu.piece_scores(&sequences).unwrap(),
            gpu.piece_scores(&sequences).unwrap(),
        );
        let mut whole = 0f64;
        let mut attention = 0f64;
        for (x, y) in a.iter().zip(&b) {
            whole = whole.max(relative(&x.log_probs, &y.log_probs));
            attention = attention.max(worst(x.attention.clone(), y.attention.clone()));
        }
        assert!(
            whole <= 1e-4,
            "{name}: piece log-probabilities differ by {whole}"
        );
        assert!(
            attention <= 1e-4,
            "{name}: attention differs by {attention}"
        );
        report.push(format!(
            "{name}: fill-mask {probs:.1e}, hidden {hidden:.1e}, pieces {whole:.1e}, attention {attention:.1e}"
        ));
    }
    assert!(heads >= 10, "{heads} fixtures with an MLM head");
    eprintln!("wgpu vs cpu, worst: {}", report.join("; "));
}

/// The tiny BERT fixture with dropout off, in a folder of its own.
fn without_dropout(out: &Path) -> Checkpoint {
    std::fs::create_dir_all(out).unwrap();
    let from = models().join("tiny-bert-mlm");
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, out.join(path.file_name().unwrap())).unwrap();
        }
    }
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    config["hidden_dropout_prob"] = 0.0.into();
    config["attention_probs_dropout_prob"] = 0.0.into();
    std::fs::write(out.join("config.json"), config.to_string()).unwrap();
    Checkpoint::from_dir("tiny-bert-mlm, no dropout", out).unwrap()
}

/// 20 steps on wgpu and on the CPU from the same start, dropout off: the same losses at
/// every step (the CPU's step is the hand-written one over gemm, wgpu's Burn's graph), and a
/// folder the CPU backend loads.
#[test]
fn wgpu_trains_the_tiny_fixture_as_the_cpu() {
    use lmbias_model::train::{CorpusText, Run, Start, TrainSettings, checkpoint_dir};
    let corpus_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/generate/corpus.txt");
    let passages: Vec<String> = std::fs::read_to_string(corpus_path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let scratch = std::env::temp_dir().join(format!("lmbias-wgpu-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let start = Start::Continue(without_dropout(&scratch.join("start")));
    let settings = TrainSettings {
        batch: 8,
        steps: 20,
        lr: 2e-3,
        warmup_steps: 2,
        checkpoint_every: 0,
        ..TrainSettings::default()
    };
    let train = |device: DeviceKind| {
        let out = scratch.join(device.as_str());
        let _ = std::fs::remove_dir_all(checkpoint_dir(&out));
        let corpus = CorpusText {
            name: "corpus.txt",
            sha256: "0",
            passages: &passages,
        };
        let report = Run::new(&start, corpus, settings.clone(), device)
            .unwrap()
            .train(&out, false, &mut |_| {})
            .unwrap();
        (out, report.report.losses)
    };
    let (_, cpu) = train(DeviceKind::Cpu);
    let (out, gpu) = train(DeviceKind::Wgpu);
    assert_eq!(cpu.len(), 20);
    assert_eq!(gpu.len(), 20);
    let gap = cpu
        .iter()
        .zip(&gpu)
        .map(|(a, b)| (a - b).abs() / a.abs())
        .fold(0.0, f64::max);
    eprintln!("wgpu vs cpu, 20 training steps: worst relative loss gap {gap:.1e}");
    assert!(
        gap <= 1e-3,
        "losses differ by {gap}: cpu {cpu:?}, wgpu {gpu:?}"
    );
    load_masked_lm(
        &Checkpoint::from_dir("trained", &out).unwrap(),
        DeviceKind::Cpu,
    )
    .unwrap();
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// The tiny fixture's vectors under every pooling, not only its default.
#[test]
fn wgpu_pools_as_the_cpu() {
    use lmbias_core::Pooling;
    let cpu = load_embedder(&tiny(), DeviceKind::Cpu).unwrap();
    let gpu = load_embedder(&tiny(), DeviceKind::Wgpu).unwrap();
    for pooling in [Pooling::Cls, Pooling::Mean, Pooling::First] {
        for layer in [Layer::Last, Layer::Index(1)] {
            let a = cpu.embed(&TEXTS, pooling, layer).unwrap();
            let b = gpu.embed(&TEXTS, pooling, layer).unwrap();
            let gap = worst(
                a.iter().flatten().map(|&x| f64::from(x)),
                b.iter().flatten().map(|&x| f64::from(x)),
            );
            assert!(gap <= 1e-4, "{pooling:?} {layer:?}: {gap}");
        }
    }
}
