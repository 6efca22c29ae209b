//! WEFE 1.0.1's RND, RNSB, MAC, ECT and RIPA against WEFE itself
//! (`tests/fixtures/generate/wefe_reference.py` → `reference/wefe.json`), on Caliskan's WEAT
//! tests: GloVe 6B 50d through `seat --metric all` (the same f32 vectors on both sides), and
//! all-MiniLM-L6-v2 on the vectors transformers gave, which the fixture stores; lmbias's own
//! MiniLM vectors are checked against those at the model parity tolerance (1e-4, families/bert.rs).
//!
//! Tolerances, fixed before the first run: 1e-5 relative (the issue's), RNSB 1e-4 relative
//! against WEFE with liblinear run to tol = 1e-12. RNSB against WEFE's default (tol = 1e-4) is
//! printed, not asserted: liblinear stops there up to ~2e-4 (relative) short of the optimum,
//! which is what lmbias computes (docs/results-format.md, "WEFE's metrics").

use base64::Engine;
use lmbias_core::{Layer, Pooling, Role};
use lmbias_data::{AssociationTest, LoadOptions};
use lmbias_metrics::wefe::{self, MetricValue, Metrics, WefeOptions};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder};
use lmbias_static::StaticEmbeddings;
use lmbias_studies::seat::{self, Battery, Copies, Lost, SeatOptions, Wefe};
use serde_json::Value;

fn test(name: &str) -> AssociationTest {
    let path = lmbias_testing::repo_root().join(format!("datasets/seat/en/{name}.jsonl"));
    AssociationTest::from_path(&path, &LoadOptions::default()).unwrap()
}

fn model_record(name: &str) -> Value {
    let reference = lmbias_testing::reference("wefe");
    reference["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == name)
        .unwrap_or_else(|| panic!("no {name} in reference/wefe.json"))
        .clone()
}

/// `rnd_attr1`, `mac`: the fixture's key of a value.
fn key(v: &MetricValue) -> String {
    match v.attribute {
        Some(role) => format!("{}_{}", v.metric, role.key()),
        None => v.metric.name().to_owned(),
    }
}

/// Compares every value with WEFE's; returns the worst relative gap of the non-RNSB values,
/// of RNSB against tol = 1e-12, and of RNSB against WEFE's default.
fn compare(what: &str, values: &[MetricValue], expected: &Value) -> [f64; 3] {
    assert_eq!(
        values.len(),
        8,
        "{what}: 3 metrics × 2 attribute sets, RNSB, MAC"
    );
    let mut worst = [0f64; 3];
    for v in values {
        let k = key(v);
        let ours = v.value.unwrap_or_else(|| panic!("{what} {k}: undefined"));
        let relative = |theirs: f64| ((ours - theirs) / theirs).abs();
        if v.metric == wefe::Metric::Rnsb {
            let tight = relative(expected["rnsb_tol_1e-12"].as_f64().unwrap());
            assert!(
                tight < 1e-4,
                "{what} rnsb: {ours} vs WEFE (tol 1e-12) {}",
                expected["rnsb_tol_1e-12"]
            );
            worst[1] = worst[1].max(tight);
            worst[2] = worst[2].max(relative(expected["rnsb"].as_f64().unwrap()));
        } else {
            let theirs = expected[&k].as_f64().unwrap();
            assert!(
                relative(theirs) < 1e-5,
                "{what} {k}: {ours} vs WEFE {theirs}"
            );
            worst[0] = worst[0].max(relative(theirs));
        }
    }
    worst
}

fn report(model: &str, n: usize, worst: [f64; 3]) {
    eprintln!(
        "{model}, {n} tests: worst relative gap to WEFE {:.1e} (RND, ECT, RIPA, MAC), \
         RNSB {:.1e} (WEFE at tol 1e-12), {:.1e} (WEFE's default tol 1e-4)",
        worst[0], worst[1], worst[2]
    );
}

fn options() -> SeatOptions {
    SeatOptions {
        pooling: Pooling::Mean,
        layer: Layer::Last,
        // Few samples: the p-values are not compared (WEFE has none), only computed.
        weat: lmbias_metrics::weat::Options {
            n_samples: 1000,
            ..Default::default()
        },
        lost: Lost::Drop,
        wefe: Wefe {
            metrics: Metrics::ALL,
            rnsb_holdout: false,
        },
    }
}

#[test]
fn wefe_metrics_on_glove_equal_wefe() {
    let record = model_record("glove-6b-50d");
    let glove = StaticEmbeddings::glove_6b_50d().unwrap();
    let expected: Vec<&Value> = record["tests"].as_array().unwrap().iter().collect();
    let skipped: Vec<&str> = record["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["test"].as_str().unwrap())
        .collect();
    assert_eq!(
        skipped,
        ["weat1"],
        "the one test with a word GloVe lacks (gladiola)"
    );
    let tests: Vec<AssociationTest> = expected
        .iter()
        .map(|r| test(r["test"].as_str().unwrap()))
        .collect();
    let battery = Battery::new(tests.into_iter().map(|t| (t, None)).collect()).unwrap();
    let result = seat::run_battery(&glove, &battery, &options(), Copies::AsWritten).unwrap();
    assert_eq!(result.rows.len(), 9);
    let mut worst = [0f64; 3];
    for (row, want) in result.rows.iter().zip(&expected) {
        assert_eq!(row.test, want["test"].as_str().unwrap());
        let gaps = compare(&row.test, &row.wefe, &want["values"]);
        worst = [0, 1, 2].map(|i| worst[i].max(gaps[i]));
        // RND, ECT and RIPA are tested, Holm-adjusted; RNSB and MAC are not.
        for v in &row.wefe {
            assert_eq!(
                v.test.is_some(),
                v.metric.per_attribute(),
                "{} {}",
                row.test,
                key(v)
            );
            assert_eq!(v.p_holm.is_some(), v.test.is_some());
        }
    }
    report("GloVe 6B 50d", result.rows.len(), worst);
}

fn stored_vectors(record: &Value) -> std::collections::HashMap<String, Vec<f32>> {
    record["vectors_f32_base64"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(word, b64)| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64.as_str().unwrap())
                .unwrap();
            let v = bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            (word.clone(), v)
        })
        .collect()
}

#[test]
fn wefe_metrics_on_minilm_vectors_equal_wefe() {
    let record = model_record("all-MiniLM-L6-v2");
    let vectors = stored_vectors(&record);
    let options = WefeOptions {
        n_samples: 1000,
        seed: 42,
        rnsb_holdout: false,
    };
    let mut worst = [0f64; 3];
    let records = record["tests"].as_array().unwrap();
    for want in records {
        let name = want["test"].as_str().unwrap();
        let t = test(name);
        let sets: [Vec<&[f32]>; 4] = Role::ALL.map(|r| {
            t.set(r)
                .examples()
                .iter()
                .map(|e| vectors[e].as_slice())
                .collect()
        });
        let sets = wefe::Sets::new([&sets[0], &sets[1], &sets[2], &sets[3]]).unwrap();
        let values = wefe::evaluate(&sets, Metrics::ALL, &options).unwrap();
        let gaps = compare(name, &values, &want["values"]);
        worst = [0, 1, 2].map(|i| worst[i].max(gaps[i]));
    }
    report(
        "all-MiniLM-L6-v2 (transformers' vectors)",
        records.len(),
        worst,
    );

    // lmbias's own vectors of the same words, at the model parity tolerance.
    let dir = lmbias_fetch::minilm_dir().unwrap();
    let model = load_embedder(
        &Checkpoint::from_dir("all-MiniLM-L6-v2", &dir).unwrap(),
        DeviceKind::Cpu,
    )
    .unwrap();
    let words: Vec<&str> = vectors.keys().map(String::as_str).collect();
    let ours = model.embed(&words, Pooling::Mean, Layer::Last).unwrap();
    let gap = words
        .iter()
        .zip(&ours)
        .map(|(w, v)| lmbias_testing::max_abs_diff(v, &vectors[*w]))
        .fold(0f32, f32::max);
    assert!(
        gap <= 1e-4,
        "lmbias's MiniLM word vectors differ from transformers' by {gap}"
    );
}
