//! wgpu gives the CPU backend's numbers (within 1e-4) on the tiny fixture.
//! Compiled only with `--features wgpu` (see scripts/gpu-check.sh).
#![cfg(feature = "wgpu")]

use std::path::PathBuf;

use lmbias_encoder::{Layer, Pooling};
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
