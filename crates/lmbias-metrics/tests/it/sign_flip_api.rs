//! The paired sign-flip test's contracts: hand-counted p-values, ties, directions, sampling, errors.

use lmbias_metrics::sign_flip::{
    Alternative, MAX_EXACT_PAIRS, SignFlipError, SignFlipOptions, sign_flip_test,
};

fn test(d: &[f64], alternative: Alternative) -> lmbias_metrics::sign_flip::SignFlipTest {
    sign_flip_test(d, alternative, &SignFlipOptions::default()).unwrap()
}

#[test]
fn four_pairs_counted_by_hand() {
    // d = (0.3, 0.2, 0.1, −0.1), observed sum 0.5. Of the 16 sign patterns, those with sum
    // ≥ 0.5: (+ + + +) = 0.5, (+ + + −) = 0.7, and (+ + − −) = 0.3 + 0.2 − 0.1 + 0.1 = 0.5, a
    // tie that counts. Every other pattern flips 0.3 or 0.2 (sum ≤ 0.3) or only 0.1 (0.3).
    // p = 3/16 = 0.1875.
    let t = test(&[0.3, 0.2, 0.1, -0.1], Alternative::Greater);
    assert_eq!(
        (t.n, t.p_value, t.n_extreme, t.n_evaluated, t.exact, t.seed),
        (4, 0.1875, 3, 16, true, None)
    );
    assert!((t.mean_difference - 0.125).abs() < 1e-15, "{t:?}");
    // The other tail: sums ≤ 0.5 are all but (+ + + −) = 0.7, so 15/16.
    assert_eq!(
        test(&[0.3, 0.2, 0.1, -0.1], Alternative::Less).p_value,
        0.9375
    );
}

#[test]
fn four_positive_pairs_cannot_reach_five_percent() {
    // Only the observed pattern is as large: p = 1/16 = 0.0625, the smallest p of 4 pairs.
    let t = test(&[1.0, 2.0, 3.0, 4.0], Alternative::Greater);
    assert_eq!((t.p_value, t.n_extreme), (0.0625, 1));
    // Mirrored: the same p in the lower tail.
    assert_eq!(
        test(&[-1.0, -2.0, -3.0, -4.0], Alternative::Less).p_value,
        0.0625
    );
}

#[test]
fn twenty_consistent_pairs_are_significant_and_zeros_never_are() {
    let d: Vec<f64> = (0..20).map(|i| 0.01 + 0.001 * i as f64).collect();
    let t = test(&d, Alternative::Greater);
    assert_eq!((t.exact, t.n_evaluated, t.n_extreme), (true, 1 << 20, 1));
    assert_eq!(t.p_value, 1.0 / 1_048_576.0);
    // Every pattern of zeros ties with the observed one.
    let zeros = test(&[0.0; 6], Alternative::Greater);
    assert_eq!((zeros.p_value, zeros.mean_difference.to_bits()), (1.0, 0));
}

#[test]
fn beyond_the_exact_limit_patterns_are_sampled_with_a_seed() {
    // 30 pairs, one against the trend: sampled, p ≥ 1/n_samples, reproducible by seed.
    let mut d: Vec<f64> = (0..MAX_EXACT_PAIRS + 6)
        .map(|i| 0.1 + 0.01 * i as f64)
        .collect();
    d[3] = -0.5;
    let options = SignFlipOptions {
        n_samples: 20_000,
        seed: 5,
    };
    let t = sign_flip_test(&d, Alternative::Greater, &options).unwrap();
    assert_eq!((t.exact, t.n_evaluated, t.seed), (false, 20_000, Some(5)));
    assert!(t.n_extreme >= 1 && t.p_value < 0.01, "{t:?}");
    assert_eq!(
        t,
        sign_flip_test(&d, Alternative::Greater, &options).unwrap()
    );
    // Against the trend nearly every pattern is at least as low.
    let less = sign_flip_test(&d, Alternative::Less, &options).unwrap();
    assert!(less.p_value > 0.99, "{less:?}");
}

#[test]
fn bad_input_is_refused() {
    let opts = SignFlipOptions::default();
    assert_eq!(
        sign_flip_test(&[], Alternative::Greater, &opts),
        Err(SignFlipError::Empty)
    );
    let err = sign_flip_test(&[0.1, f64::NAN], Alternative::Greater, &opts).unwrap_err();
    assert_eq!(err.to_string(), "difference 1 is not finite (NaN)");
    let none = SignFlipOptions {
        n_samples: 0,
        ..opts
    };
    assert_eq!(
        sign_flip_test(&[0.1], Alternative::Greater, &none),
        Err(SignFlipError::NoSamples)
    );
}
