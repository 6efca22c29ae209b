//! lmbias's WEAT against sent-bias's own `weat.py` (May et al. 2019), run by
//! `tests/fixtures/sent-bias-ref/generate.py` on seeded vectors: effect sizes within 1e-9
//! relative, exact p-values identical (the same count of extreme splits), sampled p-values
//! within ±0.005 at 100 000 samples. The two-sided p is lmbias's own; its reference is the
//! generator's brute force over itertools.combinations with numpy sums.

use std::path::PathBuf;

use lmbias_data::{AssociationTest, Embeddings, LoadOptions};
use lmbias_metrics::weat::{Alternative, Associations, Options, StdKind, weat};
use serde_json::Value;

fn reference_dir() -> PathBuf {
    lmbias_testing::fixtures().join("sent-bias-ref")
}

fn cases() -> Vec<Value> {
    let text = std::fs::read_to_string(reference_dir().join("cases.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The scores of a fixture case, computed the way `lmbias weat` does.
fn associations(case: &Value) -> Associations {
    let dir = reference_dir();
    let test = AssociationTest::from_path(
        &dir.join(case["test"].as_str().unwrap()),
        &LoadOptions::default(),
    )
    .unwrap();
    let embeddings =
        Embeddings::from_path(&dir.join(case["embeddings"].as_str().unwrap())).unwrap();
    let [x, y, a, b] = [test.targ1(), test.targ2(), test.attr1(), test.attr2()]
        .map(|set| embeddings.lookup(set.examples()).unwrap());
    Associations::from_vectors(&x, &y, &a, &b).unwrap()
}

fn assert_close(actual: Option<f64>, expected: &Value, what: &str) {
    match (actual, expected.as_f64()) {
        (None, None) => {}
        (Some(a), Some(e)) => {
            let relative = ((a - e) / e).abs();
            assert!(
                relative < 1e-9,
                "{what}: {a} vs sent-bias {e} (relative {relative:e})"
            );
        }
        (a, _) => panic!("{what}: {a:?} vs sent-bias {expected}"),
    }
}

#[test]
fn cases_cover_what_parity_needs() {
    let cases = cases();
    let names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    for needed in [
        "exact_n4",
        "exact_n8",
        "sampled_n12",
        "ties_n6",
        "all_equal_n5",
        "sentences_n6",
        "seat_weat1",
    ] {
        assert!(names.contains(&needed), "{needed} missing from cases.json");
    }
    assert!(cases.iter().any(|c| c["exact"] == false));
}

#[test]
fn effect_sizes_and_exact_p_values_match_sent_bias() {
    let mut worst: f64 = 0.0;
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let assoc = associations(&case);
        let n_samples = case["n_samples"].as_u64().unwrap();
        let options = Options {
            n_samples,
            ..Options::default()
        };
        let result = weat(&assoc, &options).unwrap();
        assert_close(
            result.effect_size,
            &case["effect_size"],
            &format!("{name} effect size"),
        );
        if let (Some(a), Some(e)) = (result.effect_size, case["effect_size"].as_f64()) {
            worst = worst.max(((a - e) / e).abs());
        }
        let population = weat(
            &assoc,
            &Options {
                std: StdKind::Population,
                ..options
            },
        )
        .unwrap();
        assert_close(
            population.effect_size,
            &case["effect_size_population"],
            &format!("{name} population effect size"),
        );
        assert_eq!(
            result.permutation.exact,
            case["exact"].as_bool().unwrap(),
            "{name}"
        );
        assert_eq!(
            result.permutation.n_partitions,
            Some(u128::from(case["n_partitions"].as_u64().unwrap())),
            "{name}"
        );
        let expected_p = case["p_value"].as_f64().unwrap();
        if result.permutation.exact {
            // Compared as counts: a JSON reader may round sent-bias's 17-digit p by one ulp.
            let hits = case["n_extreme"].as_u64().unwrap();
            assert_eq!(
                result.permutation.n_extreme, hits,
                "{name}: splits at least as extreme"
            );
            let p = hits as f64 / result.permutation.n_evaluated as f64;
            assert_eq!(result.permutation.p_value, p, "{name}");
            assert!(
                (p - expected_p).abs() <= f64::EPSILON * expected_p,
                "{name}"
            );
        } else {
            let diff = (result.permutation.p_value - expected_p).abs();
            eprintln!(
                "{name}: sampled p {} vs sent-bias {expected_p}",
                result.permutation.p_value
            );
            assert!(
                diff <= 0.005,
                "{name}: sampled p {} vs sent-bias {expected_p}",
                result.permutation.p_value
            );
        }
        if let Some(two_sided) = case.get("n_extreme_two_sided").and_then(Value::as_u64) {
            let options = Options {
                alternative: Alternative::TwoSided,
                ..options
            };
            let result = weat(&assoc, &options).unwrap();
            assert_eq!(
                result.permutation.n_extreme, two_sided,
                "{name}: two-sided count"
            );
        }
    }
    eprintln!("worst relative effect-size difference from sent-bias: {worst:e}");
}

#[test]
fn ties_count_as_sent_bias_counts_them() {
    let cases = cases();
    let case = |name: &str| cases.iter().find(|c| c["name"] == name).unwrap().clone();
    // 108 of 924 splits tie the observed sum exactly (sent-bias logs "Equalities contributed
    // 108/924"); p = 146/924.
    let ties = weat(&associations(&case("ties_n6")), &Options::default()).unwrap();
    assert_eq!(ties.permutation.n_extreme, 146);
    assert_eq!(ties.permutation.p_value, 146.0 / 924.0);
    // Identical vectors: every split ties, p = 1, and the effect size is 0/0.
    let equal = weat(&associations(&case("all_equal_n5")), &Options::default()).unwrap();
    assert_eq!(equal.permutation.p_value, 1.0);
    assert_eq!(equal.effect_size, None);
}

#[test]
fn sampled_p_value_is_near_the_exact_one() {
    let cases = cases();
    let exact = cases.iter().find(|c| c["name"] == "exact_n12").unwrap();
    let sampled = cases.iter().find(|c| c["name"] == "sampled_n12").unwrap();
    let assoc = associations(sampled);
    let ours = weat(&assoc, &Options::default()).unwrap().permutation;
    assert!(!ours.exact);
    assert_eq!(ours.n_evaluated, 100_000);
    let p_exact = exact["p_value"].as_f64().unwrap();
    // p ≈ 0.0117: 4 binomial standard errors at 10^5 samples are ±0.0014.
    assert!(
        (ours.p_value - p_exact).abs() < 0.0014,
        "{} vs exact {p_exact}",
        ours.p_value
    );
    assert!((ours.p_value - sampled["p_value"].as_f64().unwrap()).abs() <= 0.005);
}
