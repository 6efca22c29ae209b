//! The WEAT API's contracts: validation errors, sizes, partition counts, hand-checked values.

use lmbias_metrics::weat::{
    Alternative, Associations, Options, Role, StdKind, WeatError, binomial, cosine, effect_size,
    permutation_test, test_statistic, weat, weat_cancellable,
};

#[test]
fn hand_computed_scores_and_statistics() {
    // X = {e1}, Y = {e2}, A = {e1}, B = {e2}: s(e1) = 1 − 0 = 1, s(e2) = 0 − 1 = −1.
    let (e1, e2) = ([1.0f32, 0.0], [0.0f32, 1.0]);
    let assoc = Associations::from_vectors(&[e1], &[e2], &[e1], &[e2]).unwrap();
    assert_eq!((assoc.x(), assoc.y()), (&[1.0][..], &[-1.0][..]));
    assert_eq!(test_statistic(&assoc), 2.0);
    // mean difference 2, sample std of {1, −1} = √2, population std 1
    assert_eq!(
        effect_size(&assoc, StdKind::Sample),
        Some(2.0 / 2f64.sqrt())
    );
    assert_eq!(effect_size(&assoc, StdKind::Population), Some(2.0));
    // Two splits ({e1} or {e2} as X): only the observed one reaches 1, so p = 1/2.
    let p = permutation_test(&assoc, &Options::default()).unwrap();
    assert_eq!(
        (p.p_value, p.exact, p.n_partitions, p.n_extreme),
        (0.5, true, Some(2), 1)
    );
    assert_eq!(cosine(&[3.0f64, 4.0], &[4.0, 3.0]), 24.0 / 25.0);
}

#[test]
fn sampled_p_cannot_fall_below_one_over_n_samples() {
    // 2n = 40 items, C(40, 20) ≈ 1.4e11 > 1000 samples; X has all the largest scores.
    let x: Vec<f64> = (0..20).map(|i| 10.0 + i as f64).collect();
    let y: Vec<f64> = (0..20).map(|i| -(i as f64)).collect();
    let assoc = Associations::from_scores(x, y).unwrap();
    let p = permutation_test(
        &assoc,
        &Options {
            n_samples: 1000,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(!p.exact);
    assert_eq!((p.n_extreme, p.n_evaluated, p.p_value), (1, 1000, 0.001));
    assert_eq!(p.n_partitions, Some(137_846_528_820));
    assert_eq!(p.seed, Some(42));
}

#[test]
fn exact_enumeration_reaches_n_16() {
    // Scores without exact ties: with ties, float rounding (as in sent-bias) breaks the symmetry
    // checked below.
    let x: Vec<f64> = (0..16)
        .map(|i| (i as f64 * 1.7).sin() * 0.3 + 0.05)
        .collect();
    let y: Vec<f64> = (0..16)
        .map(|i| (i as f64 * 2.3 + 1.0).sin() * 0.3)
        .collect();
    let assoc = Associations::from_scores(x, y).unwrap();
    let p = permutation_test(
        &assoc,
        &Options {
            n_samples: 601_080_390,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(p.exact);
    assert_eq!(p.n_evaluated, 601_080_390);
    // The two-sided count is the one-sided count plus its mirror image (X and Y swap roles).
    let two = permutation_test(
        &assoc,
        &Options {
            n_samples: u64::MAX,
            alternative: Alternative::TwoSided,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(two.n_extreme, 2 * p.n_extreme);
}

#[test]
fn binomial_counts() {
    assert_eq!(binomial(32, 16), Some(601_080_390));
    assert_eq!(binomial(50, 25), Some(126_410_606_437_752));
    assert_eq!(
        binomial(128, 64),
        Some(23951146041928082866135587776380551750)
    );
    assert_eq!(binomial(140, 70), None);
    // More items asked for than there are: no subsets, not an underflow.
    assert_eq!(binomial(3, 5), Some(0));
    assert_eq!(binomial(0, 0), Some(1));
}

#[test]
fn invalid_inputs_are_typed_errors() {
    let v = |a: f64, b: f64| vec![a, b];
    let ok = [v(1.0, 0.0)];
    assert_eq!(
        Associations::from_vectors(&[], &ok, &ok, &ok),
        Err(WeatError::EmptySet(Role::Targ1))
    );
    // Sets are printed with WEAT's letter and the file's key.
    assert_eq!(
        WeatError::EmptySet(Role::Attr2).to_string(),
        "set B (attr2) is empty"
    );
    assert_eq!(
        Associations::from_vectors(&ok, &ok, &[vec![1.0, f64::NAN]], &ok)
            .unwrap_err()
            .to_string(),
        "set A (attr1), item 0: vector has a non-finite value"
    );
    assert_eq!(
        Associations::from_vectors(&ok, &ok, &[], &ok),
        Err(WeatError::EmptySet(Role::Attr1))
    );
    assert_eq!(
        Associations::from_vectors(&ok, &[vec![1.0]], &ok, &ok),
        Err(WeatError::Dimension {
            set: Role::Targ2,
            index: 0,
            found: 1,
            expected: 2
        })
    );
    assert_eq!(
        Associations::from_vectors(&ok, &ok, &ok, &[v(1.0, 1.0), v(0.0, 0.0)]),
        Err(WeatError::ZeroVector {
            set: Role::Attr2,
            index: 1
        })
    );
    assert_eq!(
        Associations::from_vectors(&[v(f64::NAN, 1.0)], &ok, &ok, &ok),
        Err(WeatError::NonFinite {
            set: Role::Targ1,
            index: 0
        })
    );
    assert_eq!(
        Associations::from_scores(vec![0.1], vec![f64::INFINITY]),
        Err(WeatError::NonFiniteScore {
            set: Role::Targ2,
            index: 0
        })
    );
    let unequal = Associations::from_scores(vec![0.3, 0.2], vec![0.1]).unwrap();
    let err = weat(&unequal, &Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "X has 2 items and Y has 1: sent-bias requires equal sizes (`lmbias weat --allow-unequal-sizes`, or allow_unequal_sizes=True in Python, tests anyway)"
    );
    let allowed = weat(
        &unequal,
        &Options {
            allow_unequal_sizes: true,
            ..Options::default()
        },
    )
    .unwrap();
    // Splits of {0.3, 0.2, 0.1} into 2 + 1: X-sums 0.5 (observed), 0.4, 0.30000000000000004.
    assert_eq!(
        (
            allowed.permutation.n_partitions,
            allowed.permutation.p_value
        ),
        (Some(3), 1.0 / 3.0)
    );
    assert_eq!(
        weat(
            &unequal,
            &Options {
                n_samples: 0,
                allow_unequal_sizes: true,
                ..Options::default()
            }
        )
        .unwrap_err(),
        WeatError::NoSamples
    );
}

/// The benchmark's scores (benches/permutation.rs), LCG-generated identically in Python.
fn bench_scores(per_side: usize) -> Associations {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.2
    };
    let x = (0..per_side).map(|_| next() + 0.02).collect();
    let y = (0..per_side).map(|_| next()).collect();
    Associations::from_scores(x, y).unwrap()
}

#[test]
fn exact_counts_match_sent_bias_on_the_benchmark_scores() {
    // sent-bias's p_val_permutation_test on the same scores (benches/sent_bias_timing.py):
    // n = 8: p = 0.2518259518259518 = 3241/12870; n = 12: p = 0.4797596736282966 = 1297345/2704156.
    let options = Options {
        n_samples: u64::MAX,
        ..Options::default()
    };
    let p8 = permutation_test(&bench_scores(8), &options).unwrap();
    assert_eq!((p8.n_extreme, p8.n_evaluated), (3241, 12870));
    let p12 = permutation_test(&bench_scores(12), &options).unwrap();
    assert_eq!((p12.n_extreme, p12.n_evaluated), (1_297_345, 2_704_156));
}

#[test]
fn huge_partition_counts_serialise() {
    // 64 per side (sent-bias's sentence-level Double Bind): C(128, 64) ≈ 2.4e37 > u64::MAX.
    let x: Vec<f64> = (0..64).map(|i| (i as f64 * 0.37).sin()).collect();
    let y: Vec<f64> = (0..64).map(|i| (i as f64 * 0.53).cos()).collect();
    let assoc = Associations::from_scores(x, y).unwrap();
    let result = weat(
        &assoc,
        &Options {
            n_samples: 1000,
            ..Options::default()
        },
    )
    .unwrap();
    let value = serde_json::to_value(result).unwrap();
    let count = value["permutation"]["n_partitions"].as_f64().unwrap();
    assert!(
        (count / 2.395_114_604_192_808_5e37 - 1.0).abs() < 1e-15,
        "{count}"
    );
    let huge = Associations::from_scores(vec![0.5; 70], vec![0.1; 70]).unwrap();
    let result = weat(
        &huge,
        &Options {
            n_samples: 1000,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(result.permutation.n_partitions, None);
    assert!(serde_json::to_value(result).unwrap()["permutation"]["n_partitions"].is_null());
}

#[test]
fn two_sided_with_the_observed_split_at_the_centre_counts_every_split_once() {
    let assoc = Associations::from_scores(vec![0.25; 4], vec![0.25; 4]).unwrap();
    for n_samples in [100_000, 50] {
        let options = Options {
            n_samples,
            alternative: Alternative::TwoSided,
            ..Options::default()
        };
        let p = permutation_test(&assoc, &options).unwrap();
        assert_eq!((p.p_value, p.n_extreme), (1.0, p.n_evaluated));
    }
}

#[test]
fn overflowing_vectors_and_scores_are_errors_not_panics() {
    let big = [1e200, 1e200];
    let unit = [1.0, 0.0];
    assert_eq!(
        Associations::from_vectors(&[big], &[unit], &[unit], &[unit]),
        Err(WeatError::Overflow {
            set: Role::Targ1,
            index: 0
        })
    );
    // Huge but finite scores: sums overflow to infinity; the test still returns a p-value.
    let assoc = Associations::from_scores(vec![1e308, 1e308], vec![-1e308, 1e308]).unwrap();
    let p = permutation_test(&assoc, &Options::default()).unwrap();
    assert_eq!(p.n_evaluated, 6);
}

/// Distinct scores in (−0.1, 0.1), from a fixed generator.
fn scores(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.2
        })
        .collect()
}

#[test]
fn an_exact_test_beyond_the_bound_is_refused_before_it_starts() {
    // 2 × 25 exact ran 99 s (MAX_TEST_WORK's table); 2 × 30 would take hours.
    for (n, alternative) in [
        (25, Alternative::Greater),
        (25, Alternative::TwoSided),
        (30, Alternative::Greater),
    ] {
        let assoc = Associations::from_scores(scores(n, 1), scores(n, 2)).unwrap();
        let options = Options {
            n_samples: u64::MAX,
            alternative,
            ..Options::default()
        };
        let started = std::time::Instant::now();
        let err = permutation_test(&assoc, &options).unwrap_err();
        assert!(
            started.elapsed().as_millis() < 500,
            "{:?}",
            started.elapsed()
        );
        let splits = binomial(2 * n as u128, n as u128);
        assert!(
            matches!(err, WeatError::ExactTooCostly { x, y, splits: s, .. } if x == n && y == n && s == splits),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(!message.contains('\n'), "{message}");
        assert!(
            message.starts_with(&format!(
                "an exact test over the {} splits of X ∪ Y ({n} + {n} items) would take about ",
                splits.unwrap()
            )),
            "{message}"
        );
        assert!(
            message.ends_with(
                "set --n-samples (n_samples in Python) below the number of splits (e.g. 100000, the default, or \
                 1000000 for p down to 1e-6) to sample them instead"
            ),
            "{message}"
        );
        // The cheaper option it names works at once.
        let sampled = permutation_test(
            &assoc,
            &Options {
                n_samples: 100_000,
                ..options
            },
        )
        .unwrap();
        assert!(!sampled.exact);
    }
    let refused = |n| {
        let assoc = Associations::from_scores(scores(n, 1), scores(n, 2)).unwrap();
        let options = Options {
            n_samples: u64::MAX,
            ..Options::default()
        };
        match permutation_test(&assoc, &options) {
            Err(WeatError::ExactTooCostly { estimate_s, .. }) => Some(estimate_s),
            _ => None,
        }
    };
    // 2 × 25's estimate is the measured order of magnitude; 2 × 30's is hours.
    let at_25 = refused(25).unwrap();
    assert!((60.0..300.0).contains(&at_25), "{at_25}");
    assert!(refused(30).unwrap() > 3600.0);
}

#[test]
fn one_against_a_thousand_is_enumerated_exactly() {
    // 1001 splits: X's one item is each of the 1001 in turn. Beyond 64 items, counted directly.
    let all = scores(1001, 7);
    let assoc = Associations::from_scores(all[..1].to_vec(), all[1..].to_vec()).unwrap();
    let options = Options {
        allow_unequal_sizes: true,
        ..Options::default()
    };
    let p = permutation_test(&assoc, &options).unwrap();
    let at_least = all.iter().filter(|&&s| s >= all[0]).count() as u64;
    assert!(p.exact);
    assert_eq!(
        (p.n_partitions, p.n_evaluated, p.n_extreme),
        (Some(1001), 1001, at_least)
    );
    assert!(
        at_least > 1 && at_least < 1001,
        "a middling rank: {at_least}"
    );
    // And the other way round, 1000 vs 1: a split is extreme when Y's one item is at most
    // the observed Y's (its X then sums to at least as much).
    let assoc = Associations::from_scores(all[1..].to_vec(), all[..1].to_vec()).unwrap();
    let p = permutation_test(&assoc, &options).unwrap();
    let at_most = all.iter().filter(|&&s| s <= all[0]).count() as u64;
    assert!(p.exact);
    assert_eq!((p.n_evaluated, p.n_extreme), (1001, at_most));
}

/// A sampled test gets the exact one's cost guard: 10^18 splits of 32 + 32 scores (about 10^11
/// seconds) is refused at once with its estimate, and the default it names runs.
#[test]
fn a_sampled_test_too_large_is_refused_at_once() {
    let assoc = Associations::from_scores(scores(32, 1), scores(32, 2)).unwrap();
    for alternative in [Alternative::Greater, Alternative::TwoSided] {
        let options = Options {
            n_samples: 1_000_000_000_000_000_000,
            alternative,
            ..Options::default()
        };
        let started = std::time::Instant::now();
        let err = permutation_test(&assoc, &options).unwrap_err();
        assert!(
            started.elapsed().as_millis() < 500,
            "{:?}",
            started.elapsed()
        );
        assert!(
            matches!(err, WeatError::SampledTooCostly { x: 32, y: 32, samples, .. } if samples == options.n_samples),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(
                "a sampled test of 1000000000000000000 splits of X ∪ Y (32 + 32 items) would take \
                 about "
            ) && message.contains(" years (more than lmbias allows")
                && message.ends_with(
                    "set --n-samples (n_samples in Python) lower (e.g. 100000, the default, or 1000000 for p down to 1e-6)"
                ),
            "{message}"
        );
    }
    // Within the bound (10^6 splits, a fraction of a second) it runs.
    let p = permutation_test(
        &assoc,
        &Options {
            n_samples: 1_000_000,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(!p.exact && p.n_evaluated == 1_000_000);
}

#[test]
fn a_cancelled_test_stops_with_a_typed_error() {
    let assoc = Associations::from_scores(scores(20, 1), scores(20, 2)).unwrap();
    let cancel = std::sync::atomic::AtomicBool::new(true);
    for n_samples in [u64::MAX, 1_000_000] {
        let options = Options {
            n_samples,
            ..Options::default()
        };
        assert_eq!(
            weat_cancellable(&assoc, &options, &cancel),
            Err(WeatError::Cancelled)
        );
    }
    // Unset, the same call runs to its end.
    let go = std::sync::atomic::AtomicBool::new(false);
    let small = Associations::from_scores(scores(8, 1), scores(8, 2)).unwrap();
    assert_eq!(
        weat_cancellable(&small, &Options::default(), &go),
        weat(&small, &Options::default())
    );
}
