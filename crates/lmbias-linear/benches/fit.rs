//! LinearSVC(dual=False) fit time at the probe's sizes: ~95 protected words,
//! MiniLM's 384 dimensions (and a 50-dimension reduced fit), two and three
//! classes. The same data and scikit-learn's times: `benches/sklearn_timing.py`;
//! results in docs/benchmarks.md.

use lmbias_linear::LinearSvc;

fn main() {
    divan::main();
}

const SAMPLES: usize = 95;

/// LCG-generated samples in [-0.5, 0.5), class k shifted by +0.3 on dimension k;
/// `sklearn_timing.py` generates the same numbers.
fn data(features: usize, classes: usize) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let labels: Vec<usize> = (0..SAMPLES).map(|i| i % classes).collect();
    let samples = labels
        .iter()
        .map(|&k| {
            (0..features)
                .map(|j| next() + if j == k { 0.3 } else { 0.0 })
                .collect()
        })
        .collect();
    (samples, labels)
}

#[divan::bench(args = [(384, 2), (384, 3), (50, 2), (50, 3)])]
fn fit(bencher: divan::Bencher, (features, classes): (usize, usize)) {
    let (x, y) = data(features, classes);
    bencher.bench(|| LinearSvc::default().fit(divan::black_box(&x), &y).unwrap());
}
