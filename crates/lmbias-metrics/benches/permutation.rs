//! Permutation-test speed: exact enumeration at n = 8, 12, 16 per side and sampling at 10^5 and
//! 10^6 splits. Results and the matching sent-bias timings are in docs/benchmarks.md.

use lmbias_metrics::weat::{Associations, Options, permutation_test};

fn main() {
    divan::main();
}

/// Deterministic scores in [-0.1, 0.1), X shifted up so the test is not trivially all-ties.
fn associations(per_side: usize) -> Associations {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.2
    };
    let x = (0..per_side).map(|_| next() + 0.02).collect();
    let y = (0..per_side).map(|_| next()).collect();
    Associations::from_scores(x, y).expect("finite, non-empty")
}

#[divan::bench(args = [8, 12, 16])]
fn exact(bencher: divan::Bencher, per_side: usize) {
    let assoc = associations(per_side);
    // Enough samples that every split is enumerated.
    let options = Options {
        n_samples: u64::MAX,
        ..Options::default()
    };
    bencher.bench(|| {
        let result = permutation_test(divan::black_box(&assoc), &options).expect("valid");
        assert!(result.exact);
        result
    });
}

#[divan::bench(args = [100_000, 1_000_000], sample_count = 10)]
fn sampled_n25(bencher: divan::Bencher, n_samples: u64) {
    let assoc = associations(25);
    let options = Options {
        n_samples,
        ..Options::default()
    };
    bencher.bench(|| {
        let result = permutation_test(divan::black_box(&assoc), &options).expect("valid");
        assert!(!result.exact);
        result
    });
}
