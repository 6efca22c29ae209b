//! lmbias-linear and the probe against scikit-learn's `LinearSVC(dual=False, tol=1e-8)`.
//! References: `tests/fixtures/reference/svm-*.json`, written by
//! `tests/fixtures/generate/svm_reference.py` (seeded random and planted data,
//! including more features than samples, two and three classes).

use lmbias_linear::LinearSvc;
use lmbias_studies::probe::{Association, Probe, ProbeWord};
use serde_json::Value;

/// The acceptance bound on any weight or intercept difference.
const WEIGHT_TOLERANCE: f64 = 1e-4;

fn reference(name: &str) -> Value {
    let path = lmbias_testing::fixtures().join("reference").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn matrix(v: &Value) -> Vec<Vec<f64>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn vector(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Largest |a − b| over two matrices of the same shape.
fn worst(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(ra, rb)| {
            assert_eq!(ra.len(), rb.len());
            ra.iter().zip(rb).map(|(x, y)| (x - y).abs())
        })
        .fold(0.0, f64::max)
}

#[test]
fn weights_match_scikit_learn() {
    let reference = reference("svm-fits.json");
    let mut overall: f64 = 0.0;
    for case in reference["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let x = matrix(&case["x"]);
        let y = strings(&case["y"]);
        let model = LinearSvc::default().fit(&x, &y).unwrap();
        assert_eq!(model.classes(), strings(&case["classes"]), "{name}");
        let coef = worst(model.coef(), &matrix(&case["coef"]));
        let intercept = worst(&[model.intercept().to_vec()], &[vector(&case["intercept"])]);
        eprintln!("{name}: worst |Δcoef| = {coef:.3e}, worst |Δintercept| = {intercept:.3e}");
        assert!(
            coef < WEIGHT_TOLERANCE && intercept < WEIGHT_TOLERANCE,
            "{name}"
        );
        overall = overall.max(coef).max(intercept);
        let predicted: Vec<String> = x
            .iter()
            .map(|s| model.predict(s).unwrap().clone())
            .collect();
        assert_eq!(predicted, strings(&case["predict"]), "{name}");
    }
    eprintln!("all fits: worst weight difference {overall:.3e}");
}

fn words(set: &Value) -> Vec<ProbeWord> {
    let x = matrix(&set["x"]);
    let y = strings(&set["y"]);
    x.into_iter()
        .zip(y)
        .enumerate()
        .map(|(i, (vector, class))| ProbeWord {
            word: format!("w{i}"),
            class,
            vector,
        })
        .collect()
}

#[test]
fn probe_matches_scikit_learn_and_scipy() {
    let reference = reference("svm-probe.json");
    for case in reference["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        // The first SVM's weights, directly.
        let protected = words(&case["protected"]);
        let x: Vec<Vec<f64>> = protected.iter().map(|w| w.vector.clone()).collect();
        let y: Vec<String> = protected.iter().map(|w| w.class.clone()).collect();
        let model = LinearSvc::default().fit(&x, &y).unwrap();
        let coef = worst(model.coef(), &matrix(&case["coef"]));
        eprintln!("{name}: first SVM worst |Δcoef| = {coef:.3e}");
        assert!(coef < WEIGHT_TOLERANCE, "{name}");

        let probe = Probe::fit(protected, words(&case["stereotyped"])).unwrap();
        let order: Vec<usize> = case["relevance_order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(probe.relevance_order(), order, "{name}: relevance order");
        for expected in case["sweep"].as_array().unwrap() {
            let n = expected["n"].as_u64().unwrap() as usize;
            let step = probe.step(n).unwrap();
            let dims: Vec<usize> = expected["dims"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(step.dims, dims, "{name} n={n}: top-n dimensions");
            assert_eq!(step.rows, strings(&expected["rows"]), "{name} n={n}");
            assert_eq!(step.cols, strings(&expected["cols"]), "{name} n={n}");
            let table: Vec<Vec<u64>> = expected["table"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c.as_u64().unwrap())
                        .collect()
                })
                .collect();
            assert_eq!(step.table, table, "{name} n={n}: contingency table");
            match (&step.association, expected.get("p_value")) {
                (Association::Tested { chi2, p_value, .. }, Some(p)) => {
                    let (want_chi2, want_p) =
                        (expected["chi2"].as_f64().unwrap(), p.as_f64().unwrap());
                    assert!(
                        (chi2 - want_chi2).abs() <= 1e-9 * want_chi2.max(1.0),
                        "{name} n={n}: χ² {chi2} vs {want_chi2}"
                    );
                    assert!(
                        (p_value - want_p).abs() <= 1e-9 * want_p,
                        "{name} n={n}: p {p_value} vs {want_p}"
                    );
                }
                (Association::NotTestable { .. }, None) => {}
                (got, want) => panic!("{name} n={n}: {got:?} vs reference p {want:?}"),
            }
        }
    }
}

/// The whole probe on all-MiniLM-L6-v2 with the shipped religion × adjectives
/// lists: word vectors from our BERT (padded batches), relevance order and every
/// table from 2 to 384 dimensions, against transformers (one sentence at a time)
/// + scikit-learn + scipy in `svm-probe-minilm.json`.
#[test]
fn probe_on_minilm_matches_transformers_and_scikit_learn() {
    use lmbias_core::Layer;
    use lmbias_data::probe::{load_templates, load_word_list};
    use lmbias_model::{Checkpoint, DeviceKind, load_embedder};

    let reference = reference("svm-probe-minilm.json");
    let root = lmbias_testing::repo_root();
    let checkpoint = Checkpoint::resolve(crate::minilm::minilm_dir().to_str().unwrap()).unwrap();
    let embedder = load_embedder(&checkpoint, DeviceKind::Cpu).unwrap();
    let templates = load_templates(&root.join("datasets/probe/templates.txt")).unwrap();
    let embed = |key: &str| {
        let list = load_word_list(&root.join(reference[key].as_str().unwrap())).unwrap();
        lmbias_studies::probe::embed_words(embedder.as_ref(), &list, &templates, Layer::Last)
            .unwrap()
    };
    let probe = Probe::fit(embed("protected"), embed("stereotyped")).unwrap();
    let order: Vec<usize> = reference["relevance_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(probe.relevance_order(), order);
    let steps = probe.sweep().unwrap();
    let expected = reference["sweep"].as_array().unwrap();
    assert_eq!(steps.len(), expected.len());
    let mut worst_p: f64 = 0.0;
    for (step, want) in steps.iter().zip(expected) {
        assert_eq!(step.n as u64, want["n"].as_u64().unwrap());
        assert_eq!(
            serde_json::to_value(&step.table).unwrap(),
            want["table"],
            "n={}",
            step.n
        );
        assert_eq!(step.rows, strings(&reference["rows"]));
        assert_eq!(step.cols, strings(&reference["cols"]));
        match (step.p_value(), want.get("p_value")) {
            (Some(p), Some(w)) => {
                worst_p = worst_p.max((p - w.as_f64().unwrap()).abs() / w.as_f64().unwrap())
            }
            (None, None) => {}
            (got, want) => panic!("n={}: {got:?} vs {want:?}", step.n),
        }
    }
    eprintln!(
        "MiniLM probe: {} sizes, worst relative p difference {worst_p:.2e}",
        steps.len()
    );
    assert!(worst_p < 1e-9);
}
