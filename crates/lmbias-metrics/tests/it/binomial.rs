//! The exact binomial test, the Clopper–Pearson interval and the exact McNemar test against
//! scipy 1.17's `binomtest` (tests/fixtures/generate/binomial_reference.py).

use lmbias_metrics::binomial::{Alternative, binomial_test, clopper_pearson, mcnemar_exact};
use serde_json::Value;

fn reference() -> Value {
    lmbias_testing::reference("binomial")
}

/// Within `tolerance` relative to scipy's value.
fn close(got: f64, want: f64, tolerance: f64, what: &str) {
    assert!(
        (got - want).abs() <= tolerance * want.abs(),
        "{what}: {got} vs scipy's {want}"
    );
}

#[test]
fn p_values_are_scipys_binomtest() {
    let cases = reference()["binomial"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 19);
    for case in cases {
        let (k, n, p) = (
            case["k"].as_u64().unwrap(),
            case["n"].as_u64().unwrap(),
            case["p"].as_f64().unwrap(),
        );
        for (alternative, key) in [
            (Alternative::TwoSided, "two_sided"),
            (Alternative::Greater, "greater"),
            (Alternative::Less, "less"),
        ] {
            let test = binomial_test(k, n, p, alternative).unwrap();
            let want = case[key].as_f64().unwrap();
            // Relative, as the p-values reach 1e-8; scipy's own special functions differ
            // from statrs' in the last digits.
            close(test.p_value, want, 1e-9, &format!("{k}/{n} at {p}, {key}"));
            assert_eq!(test.proportion, k as f64 / n as f64);
        }
    }
}

#[test]
fn intervals_are_scipys_exact_proportion_ci() {
    for case in reference()["binomial"].as_array().unwrap() {
        let (k, n) = (case["k"].as_u64().unwrap(), case["n"].as_u64().unwrap());
        for (level, bounds) in case["ci"].as_object().unwrap() {
            let level: f64 = level.parse().unwrap();
            let (low, high) = clopper_pearson(k, n, level).unwrap();
            // scipy's brentq stops at an absolute 2e-12; ours bisects to the last bit.
            let want = |i: usize| bounds[i].as_f64().unwrap();
            assert!(
                (low - want(0)).abs() <= 1e-11,
                "{k}/{n} at {level}: low {low} vs {}",
                want(0)
            );
            assert!(
                (high - want(1)).abs() <= 1e-11,
                "{k}/{n} at {level}: high {high} vs {}",
                want(1)
            );
            assert!(low <= k as f64 / n as f64 && k as f64 / n as f64 <= high);
        }
    }
}

#[test]
fn mcnemar_is_the_binomial_test_of_the_discordant_pairs() {
    let cases = reference()["mcnemar"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let (b, c) = (case["b"].as_u64().unwrap(), case["c"].as_u64().unwrap());
        close(
            mcnemar_exact(b, c),
            case["p"].as_f64().unwrap(),
            1e-9,
            &format!("b {b}, c {c}"),
        );
        // Symmetric in the two raters.
        assert_eq!(mcnemar_exact(b, c), mcnemar_exact(c, b));
    }
}
