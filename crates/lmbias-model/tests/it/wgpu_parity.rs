//! wgpu gives the CPU backend's numbers (within 1e-4) on the tiny fixture.
//! Compiled only with `--features wgpu` (see scripts/gpu-check.sh).
#![cfg(feature = "wgpu")]

use std::path::PathBuf;

use lmbias_core::{Layer, Pooling};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder, load_masked_lm};

fn tiny() -> Checkpoint {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/models/tiny-bert-mlm");
    Checkpoint::resolve(dir.to_str().unwrap()).unwrap()
}

#[test]
fn wgpu_equals_cpu_on_tiny_fixture() {
    let cpu = load_embedder(&tiny(), DeviceKind::Cpu).unwrap();
    let gpu = load_embedder(&tiny(), DeviceKind::Wgpu).unwrap();
    let texts = [
        "Thou art more lovely and more temperate.",
        "Öğretmen öğrencilere yeni bir ders anlattı.",
        "Wherefore art thou [MASK]?",
    ];
    let mut worst = 0f32;
    for pooling in [Pooling::Cls, Pooling::Mean, Pooling::First] {
        let a = cpu.embed(&texts, pooling, Layer::Last).unwrap();
        let b = gpu.embed(&texts, pooling, Layer::Last).unwrap();
        for (x, y) in a.iter().flatten().zip(b.iter().flatten()) {
            worst = worst.max((x - y).abs());
        }
    }
    let cpu = load_masked_lm(&tiny(), DeviceKind::Cpu).unwrap();
    let gpu = load_masked_lm(&tiny(), DeviceKind::Wgpu).unwrap();
    let a = cpu.fill_mask(&texts[2..], 10).unwrap();
    let b = gpu.fill_mask(&texts[2..], 10).unwrap();
    for (p, q) in a[0].iter().zip(&b[0]) {
        assert_eq!(p.id, q.id);
        worst = worst.max((p.prob - q.prob).abs());
    }
    eprintln!("wgpu vs cpu: worst abs diff {worst:e}");
    assert!(worst <= 1e-4, "wgpu differs from cpu by {worst}");
}

/// A short training run on wgpu: finite losses that fall, and a folder the CPU
/// backend loads (dropout draws differ between devices, so the numbers do not
/// equal the CPU run's).
#[test]
fn wgpu_trains_the_tiny_fixture() {
    use lmbias_model::train::{CorpusText, Run, Start, TrainSettings, checkpoint_dir};
    let corpus_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/generate/corpus.txt");
    let passages: Vec<String> = std::fs::read_to_string(corpus_path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let out = std::env::temp_dir().join(format!("lmbias-wgpu-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(checkpoint_dir(&out));
    let settings = TrainSettings {
        batch: 8,
        steps: 20,
        lr: 2e-3,
        warmup_steps: 2,
        checkpoint_every: 0,
        ..TrainSettings::default()
    };
    let start = Start::Continue(tiny());
    let corpus = CorpusText {
        name: "corpus.txt",
        sha256: "0",
        passages: &passages,
    };
    let report = Run::new(&start, corpus, settings, DeviceKind::Wgpu)
        .unwrap()
        .train(&out, false, &mut |_| {})
        .unwrap();
    assert!(report.losses.iter().all(|l| l.is_finite()));
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    assert!(
        mean(&report.losses[15..]) < mean(&report.losses[..5]),
        "{:?}",
        report.losses
    );
    load_masked_lm(
        &Checkpoint::from_dir("trained", &out).unwrap(),
        DeviceKind::Cpu,
    )
    .unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}
