//! `lmbias embed` and `lmbias fill-mask` end to end on the tiny BERT fixture,
//! against the transformers numbers in tests/fixtures/reference/tiny-bert-mlm.json.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::lmbias;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn reference_sentence(id: &str) -> Value {
    let path = fixtures().join("reference/tiny-bert-mlm.json");
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    reference["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap()
        .clone()
}

#[test]
fn embed_json_matches_transformers() {
    let s = reference_sentence("eme-1");
    let model = fixtures().join("models/tiny-bert-mlm");
    let text = s["text"].as_str().unwrap();
    let (ok, stdout, stderr) = lmbias(&[
        "embed",
        "--model",
        model.to_str().unwrap(),
        "--pooling",
        "mean",
        "--json",
        text,
    ]);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["pooling"], "mean");
    assert_eq!(out["layer"], "last");
    assert_eq!(out["tokens"][0], s["tokens"]);
    let got = out["vectors"][0].as_array().unwrap();
    let want = s["mean"].as_array().unwrap();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        let diff = (g.as_f64().unwrap() - w.as_f64().unwrap()).abs();
        assert!(diff <= 1e-5, "{diff}");
    }
}

#[test]
fn fill_mask_json_matches_transformers() {
    let s = reference_sentence("eme-2");
    let model = fixtures().join("models/tiny-bert-mlm");
    let (ok, stdout, stderr) = lmbias(&[
        "fill-mask",
        "--model",
        model.to_str().unwrap(),
        "--top-k",
        "10",
        "--json",
        s["text"].as_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out[0]["text"], s["text"]);
    let ids: Vec<&Value> = out[0]["predictions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["id"])
        .collect();
    let want: Vec<&Value> = s["fill_mask"]["top10_ids"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(ids, want);
}

#[test]
fn model_errors_are_one_line() {
    let model = fixtures().join("models/tiny-bert-nohead");
    let (ok, _, stderr) = lmbias(&["fill-mask", "--model", model.to_str().unwrap(), "a [MASK]"]);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no masked-language-modelling head"),
        "{stderr}"
    );
    let model = fixtures().join("models/tiny-bert-mlm");
    let (ok, _, stderr) = lmbias(&["fill-mask", "--model", model.to_str().unwrap(), "no mask"]);
    assert!(!ok);
    assert_eq!(
        stderr.trim_end(),
        "error: text 0 must contain exactly one [MASK], found 0: \"no mask\""
    );
}
