//! Every command on a checkpoint of every model family lmbias loads besides BERT and T5
//! (RoBERTa, XLM-R, CamemBERT, DistilBERT, ELECTRA generator and discriminator): one test
//! per command, each over all the families' tiny fixtures, against the transformers
//! references where the command prints a number a reference holds.

use std::path::{Path, PathBuf};

use serde_json::Value;

use lmbias_testing::FAMILY_FIXTURES as FAMILIES;

use crate::support::lmbias;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The family's default pooling: ALBERT's [CLS], the mean for the others.
fn pooling(name: &str) -> &'static str {
    if name.starts_with("tiny-albert") {
        "cls"
    } else {
        "mean"
    }
}

fn folder(name: &str) -> String {
    repo()
        .join("tests/fixtures/models")
        .join(name)
        .display()
        .to_string()
}

fn reference(name: &str) -> Value {
    let path = repo().join(format!("tests/fixtures/reference/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn sentence<'a>(reference: &'a Value, id: &str) -> &'a Value {
    reference["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap()
}

/// A piece as text, written independently of lmbias's decoding: GPT-2's byte-level alphabet
/// mapped back to bytes (RoBERTa), `▁` as a space (SentencePiece), WordPiece as written;
/// without the leading space a word-initial piece stands for.
fn piece_text(folder: &str, piece: &str) -> String {
    let text = if folder.starts_with("tiny-roberta") || folder.starts_with("tiny-modernbert") {
        // bytes_to_unicode: printable bytes stand for themselves, the others for 256 + i.
        let printable = |b: u32| {
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b)
        };
        let mut shifted = 0;
        let mut to_byte = std::collections::HashMap::new();
        for b in 0..=255u32 {
            let c = if printable(b) {
                b
            } else {
                shifted += 1;
                255 + shifted
            };
            to_byte.insert(char::from_u32(c).unwrap(), b as u8);
        }
        let bytes: Vec<u8> = piece.chars().map(|c| to_byte[&c]).collect();
        // A piece may hold part of a character: shown as U+FFFD, as the decoder does.
        String::from_utf8_lossy(&bytes).into_owned()
    } else if ["tiny-xlmr", "tiny-camembert", "tiny-albert", "tiny-deberta"]
        .iter()
        .any(|f| folder.starts_with(f))
    {
        piece.replace('▁', " ")
    } else {
        piece.to_string()
    };
    text.trim_start().to_string()
}

fn max_diff(got: &Value, want: &Value) -> f64 {
    let (got, want) = (got.as_array().unwrap(), want.as_array().unwrap());
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|(g, w)| (g.as_f64().unwrap() - w.as_f64().unwrap()).abs())
        .fold(0.0, f64::max)
}

/// `lmbias embed` pools by the family's default (ALBERT's [CLS]; the mean for families
/// that pretrained no objective on their first token) and prints transformers' numbers.
#[test]
fn embed_runs_on_every_family() {
    for (name, _) in FAMILIES {
        let reference = reference(name);
        let s = sentence(&reference, "eme-1");
        let (ok, stdout, stderr) = lmbias(&[
            "embed",
            "--model",
            &folder(name),
            "--json",
            s["text"].as_str().unwrap(),
        ]);
        assert!(ok, "{name}: {stderr}");
        let out: Value = serde_json::from_str(&stdout).unwrap();
        let pooling = pooling(name);
        assert_eq!(out["pooling"], pooling, "{name}");
        assert_eq!(out["tokens"][0], s["tokens"], "{name}");
        let diff = max_diff(&out["vectors"][0], &s[pooling]);
        assert!(diff <= 1e-5, "{name}: {diff}");
    }
}

/// `lmbias fill-mask` with each family's own mask token: transformers' top 10, each
/// proposal's text without the word-initial marker of its piece.
#[test]
fn fill_mask_runs_on_every_masked_lm_family() {
    for (name, _) in FAMILIES.iter().filter(|(_, head)| *head) {
        let reference = reference(name);
        let s = sentence(&reference, "eme-2");
        let (ok, stdout, stderr) = lmbias(&[
            "fill-mask",
            "--model",
            &folder(name),
            "--top-k",
            "10",
            "--json",
            s["text"].as_str().unwrap(),
        ]);
        assert!(ok, "{name}: {stderr}");
        let out: Value = serde_json::from_str(&stdout).unwrap();
        let predictions = out[0]["predictions"].as_array().unwrap();
        // The pipeline's shape: token is the id, score the probability, token_str the text.
        let ids: Vec<&Value> = predictions.iter().map(|p| &p["token"]).collect();
        let want: Vec<&Value> = s["fill_mask"]["top10_ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect();
        assert_eq!(ids, want, "{name}");
        let probs: Vec<Value> = predictions.iter().map(|p| p["score"].clone()).collect();
        let diff = max_diff(&Value::from(probs), &s["fill_mask"]["top10_probs"]);
        assert!(diff <= 1e-5, "{name}: {diff}");
        let tokens = s["fill_mask"]["top10_tokens"].as_array().unwrap();
        for (p, token) in predictions.iter().zip(tokens) {
            let token = token.as_str().unwrap();
            assert_eq!(
                p["token_str"],
                piece_text(name, token).as_str(),
                "{name}: {token}"
            );
        }
    }
    // A checkpoint without a head says so in one line.
    let (ok, _, stderr) = lmbias(&[
        "fill-mask",
        "--model",
        &folder("tiny-electra-discriminator"),
        "Thou art [MASK].",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("no masked-language-modelling head"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

/// `lmbias valence` on every masked-LM family in one run: each model's proposals are the
/// ones fill-mask ranks, matched against the annotations as text (`thou`, not `Ġthou`).
#[test]
fn valence_runs_on_every_masked_lm_family() {
    let mut args = vec!["valence".to_string()];
    let names: Vec<&str> = FAMILIES
        .iter()
        .filter(|(_, head)| *head)
        .map(|(n, _)| *n)
        .collect();
    for name in &names {
        args.extend(["--model".to_string(), folder(name)]);
    }
    let dataset = repo().join("tests/fixtures/valence/tiny-bert-mlm.json");
    args.extend([
        "--dataset".into(),
        dataset.display().to_string(),
        "--top-k".into(),
        "10".into(),
        "--json".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, stdout, stderr) = lmbias(&args);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let results = out["results"].as_array().unwrap();
    assert_eq!(results.len(), names.len());
    for (name, result) in names.iter().zip(results) {
        let reference = reference(name);
        let s = sentence(&reference, "eme-2");
        let scored = result["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "eme-2")
            .unwrap_or_else(|| panic!("{name}: {result}"));
        let tokens: Vec<&str> = scored["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["token"].as_str().unwrap())
            .collect();
        let want: Vec<String> = s["fill_mask"]["top10_tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| piece_text(name, t.as_str().unwrap()))
            .collect();
        assert_eq!(tokens, want, "{name}");
    }
}

/// `lmbias probe` with the shipped lists and templates on every family: a sweep whose
/// every point has a χ² test. (The SVM's Newton search once stalled a hair above its
/// tolerance on tiny-deberta-v2-conv's religion words and tiny-electra-discriminator's
/// gender words: two of these pairs.)
#[test]
fn probe_runs_on_every_family() {
    let data = repo().join("datasets/probe");
    for (name, _) in FAMILIES {
        for (protected, stereotyped) in [("religion", "adjectives"), ("gender", "salary")] {
            check_probe(name, &data, protected, stereotyped);
        }
    }
}

fn check_probe(name: &str, data: &Path, protected: &str, stereotyped: &str) {
    let (ok, stdout, stderr) = lmbias(&[
        "probe",
        "--model",
        &folder(name),
        "--templates",
        data.join("templates.txt").to_str().unwrap(),
        "--protected",
        data.join(format!("{protected}.csv")).to_str().unwrap(),
        "--stereotyped",
        data.join(format!("{stereotyped}.csv")).to_str().unwrap(),
        "--n",
        "8",
        "--json",
    ]);
    assert!(ok, "{name} {protected} × {stereotyped}: {stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let run = &out["runs"][0];
    // Every dimension of the 32-wide hidden state ranked once.
    let mut order: Vec<u64> = run["relevance_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    order.sort_unstable();
    assert_eq!(order, (0..32).collect::<Vec<_>>(), "{name}");
    let sweep = run["sweep"].as_array().unwrap();
    assert!(!sweep.is_empty(), "{name}");
    for step in sweep {
        let p = step["p_value"].as_f64();
        assert!(
            p.is_some_and(|p| (0.0..=1.0).contains(&p)) || step.get("not_testable").is_some(),
            "{name}: {step}"
        );
    }
}

/// `lmbias seat` on all the families at once, on one of May et al.'s tests.
#[test]
fn seat_runs_on_every_family() {
    let test = repo().join("datasets/seat/en/sent-weat1.jsonl");
    let mut args = vec!["seat".to_string()];
    for (name, _) in FAMILIES {
        args.extend(["--model".to_string(), folder(name)]);
    }
    args.extend([
        "--test".into(),
        test.display().to_string(),
        "--n-samples".into(),
        "1000".into(),
        "--json".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, stdout, stderr) = lmbias(&args);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let text = out.to_string();
    for (name, _) in FAMILIES {
        assert!(text.contains(name), "{name} missing: {text}");
    }
    let rows = out["rows"].as_array().unwrap();
    assert_eq!(rows.len(), FAMILIES.len(), "{text}");
    for row in rows {
        // Cohen's d of two equal-size sets is bounded by 2 in absolute value.
        let d = row["effect_size"].as_f64().unwrap();
        assert!(d.abs() <= 2.0, "{row}");
        let model = row["model"].as_str().unwrap();
        let name = model.rsplit('/').next().unwrap();
        assert_eq!(row["pooling"], pooling(name), "{row}");
        let p = row["p_value"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "{row}");
    }
}
