//! Snapshots of every metric's output on fixed inputs: a change in any reported number shows
//! up in review.

use lmbias_metrics::bootstrap::{BootstrapOptions, effect_size_interval};
use lmbias_metrics::chi2::chi2_independence;
use lmbias_metrics::correction::{benjamini_hochberg, holm};
use lmbias_metrics::weat::{Alternative, Associations, Options, StdKind, weat};

/// Eight 3-d vectors per target set, overlapping: X leans a little towards A, Y towards B.
fn vectors() -> [Vec<[f64; 3]>; 4] {
    let wave = |i: usize, f: f64, phase: f64| 0.5 + 0.5 * (i as f64 * f + phase).sin();
    let x = (0..8)
        .map(|i| [0.3 + wave(i, 1.3, 0.0), wave(i, 0.7, 1.0), 0.3])
        .collect();
    let y = (0..8)
        .map(|i| [wave(i, 2.1, 1.0), 0.3 + wave(i, 1.1, 0.5), 0.3])
        .collect();
    let a = (0..5).map(|i| [1.0, wave(i, 0.9, 2.0), 0.5]).collect();
    let b = (0..6).map(|i| [wave(i, 1.7, 0.3), 1.0, 0.4]).collect();
    [x, y, a, b]
}

fn associations() -> Associations {
    let [x, y, a, b] = vectors();
    Associations::from_vectors(&x, &y, &a, &b).unwrap()
}

#[test]
fn weat_exact_sample_std() {
    insta::assert_json_snapshot!(weat(&associations(), &Options::default()).unwrap());
}

#[test]
fn weat_sampled_two_sided_population_std() {
    let options = Options {
        n_samples: 5000,
        std: StdKind::Population,
        alternative: Alternative::TwoSided,
        ..Options::default()
    };
    insta::assert_json_snapshot!(weat(&associations(), &options).unwrap());
}

#[test]
fn scores_of_fixed_vectors() {
    let assoc = associations();
    insta::assert_json_snapshot!((assoc.x(), assoc.y()));
}

#[test]
fn bootstrap_interval() {
    let options = BootstrapOptions {
        n_resamples: 2000,
        ..BootstrapOptions::default()
    };
    insta::assert_json_snapshot!(effect_size_interval(&associations(), &options).unwrap());
}

#[test]
fn corrections_of_a_battery() {
    let p = [0.001, 0.2, 0.03, 0.04, 0.5, 0.012];
    insta::assert_json_snapshot!((holm(&p).unwrap(), benjamini_hochberg(&p).unwrap()));
}

#[test]
fn chi2_of_a_3x2_table() {
    insta::assert_json_snapshot!(
        chi2_independence(&[vec![12, 30], vec![25, 18], vec![9, 40]]).unwrap()
    );
}
