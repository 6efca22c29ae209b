//! Weighted κ against scikit-learn's `cohen_kappa_score`, Spearman's ρ against
//! `scipy.stats.spearmanr`, and the informative-prior log-odds against the paper's formulas
//! written out in numpy (tests/fixtures/generate/agreement_reference.py).

use std::collections::BTreeMap;

use lmbias_metrics::agreement::{Weights, spearman, weighted_kappa};
use lmbias_metrics::log_odds::{LogOddsError, Thresholds, log_odds};
use serde_json::Value;

fn reference() -> Value {
    lmbias_testing::reference("agreement")
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
}

#[test]
fn weighted_kappa_is_scikit_learns() {
    let cases = reference()["kappa"].as_array().unwrap().clone();
    assert_eq!(cases.len(), 3);
    for case in cases {
        let side = |k: &str| -> Vec<usize> {
            case[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as usize)
                .collect()
        };
        let pairs: Vec<(usize, usize)> = side("a").into_iter().zip(side("b")).collect();
        close(
            weighted_kappa(&pairs, 5, Weights::Linear).unwrap(),
            case["linear"].as_f64().unwrap(),
        );
        close(
            weighted_kappa(&pairs, 5, Weights::Quadratic).unwrap(),
            case["quadratic"].as_f64().unwrap(),
        );
    }
    // Perfect agreement is 1; one category for both raters leaves κ undefined.
    assert_eq!(
        weighted_kappa(&[(0, 0), (3, 3), (4, 4)], 5, Weights::Linear),
        Some(1.0)
    );
    assert_eq!(weighted_kappa(&[(2, 2), (2, 2)], 5, Weights::Linear), None);
    assert_eq!(weighted_kappa(&[(5, 0)], 5, Weights::Linear), None);
    assert_eq!(weighted_kappa(&[], 5, Weights::Linear), None);
}

#[test]
fn spearman_is_scipys() {
    let cases = reference()["spearman"].as_array().unwrap().clone();
    for case in cases {
        let values = |k: &str| -> Vec<f64> {
            case[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        close(
            spearman(&values("x"), &values("y")).unwrap(),
            case["rho"].as_f64().unwrap(),
        );
    }
    assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    assert_eq!(spearman(&[1.0], &[1.0]), None);
    assert_eq!(spearman(&[1.0, f64::NAN], &[1.0, 2.0]), None);
}

#[test]
fn log_odds_follow_monroe_colaresi_quinn() {
    let r = reference()["log_odds"].clone();
    let counts = |k: &str| -> BTreeMap<String, u64> {
        r[k].as_object()
            .unwrap()
            .iter()
            .map(|(w, c)| (w.clone(), c.as_u64().unwrap()))
            .collect()
    };
    let got = log_odds(&counts("a"), &counts("b"), r["alpha0"].as_f64().unwrap()).unwrap();
    let want = r["words"].as_object().unwrap();
    assert_eq!(got.len(), want.len());
    for (word, w) in want {
        let g = got[word];
        close(g.delta, w["delta"].as_f64().unwrap());
        close(g.variance, w["variance"].as_f64().unwrap());
        close(g.z, w["z"].as_f64().unwrap());
    }
    // The words the counts were made to show: "thou" for corpus a, "you" for b, "the" for
    // neither, and a word seen once kept near 0 by the prior.
    let t = Thresholds::default();
    assert_eq!(t.level(got["thou"].z), 1.0);
    assert_eq!(t.level(got["you"].z), -1.0);
    assert_eq!(t.level(got["the"].z), 0.0);
    assert_eq!(t.level(got["rare"].z), 0.0);
    let empty = BTreeMap::<String, u64>::new();
    assert_eq!(
        log_odds(&empty, &counts("b"), 1.0),
        Err(LogOddsError::Empty('a'))
    );
    assert_eq!(
        log_odds(&counts("a"), &counts("b"), 0.0),
        Err(LogOddsError::Prior(0.0))
    );
}

#[test]
fn the_five_point_scale_steps_at_its_thresholds() {
    let t = Thresholds {
        half: 2.0,
        full: 3.0,
    };
    for (z, level) in [
        (0.0, 0.0),
        (1.99, 0.0),
        (2.0, 0.5),
        (-2.5, -0.5),
        (3.0, 1.0),
        (-7.0, -1.0),
    ] {
        assert_eq!(t.level(z), level, "z {z}");
    }
    assert!(t.level(-1.0).is_sign_positive(), "the middle is +0");
}
