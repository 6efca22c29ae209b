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

/// Issue #49, item 5: a folder ending in sentence-transformers' Normalize module (all-MiniLM-
/// L6-v2's modules.json lists `2_Normalize`) embeds to unit vectors, as
/// `SentenceTransformer.encode` returns them: each raw vector divided by its norm.
/// `--no-normalize` gives the raw ones; a folder without the module is never scaled.
#[test]
fn embed_applies_a_folders_normalize_module_unless_asked_not_to() {
    let model = crate::support::minilm_dir().display().to_string();
    let texts = ["Thou art more lovely.", "You are lovelier."];
    let run = |extra: &[&str]| -> Value {
        let mut args = vec!["embed", "--model", &model, "--json"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&texts);
        let (ok, stdout, stderr) = lmbias(&args);
        assert!(ok, "{stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    let vectors = |out: &Value| -> Vec<Vec<f64>> {
        out["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .collect()
    };
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (unit, raw) = (run(&[]), run(&["--no-normalize"]));
    assert_eq!(
        (&unit["normalized"], &raw["normalized"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    for (u, r) in vectors(&unit).iter().zip(&vectors(&raw)) {
        assert!((norm(u) - 1.0).abs() < 1e-6, "{}", norm(u));
        assert!(norm(r) > 2.0, "the raw mean-pooled vector: {}", norm(r));
        for (x, y) in u.iter().zip(r) {
            assert!((x - y / norm(r)).abs() < 1e-6, "{x} vs {}", y / norm(r));
        }
    }
    let (ok, table, stderr) = lmbias(&["embed", "--model", &model, texts[0]]);
    assert!(ok, "{stderr}");
    assert!(
        table.lines().next().unwrap().ends_with(
            "· normalized (the folder's Normalize module; --no-normalize keeps the raw vectors)"
        ),
        "{table}"
    );
    assert!(table.contains("norm 1.0000"), "{table}");
    let tiny = fixtures().join("models/tiny-bert-mlm");
    let (ok, stdout, stderr) = lmbias(&[
        "embed",
        "--model",
        tiny.to_str().unwrap(),
        "--json",
        texts[0],
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).unwrap()["normalized"],
        false
    );
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
        .map(|p| &p["token"])
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
    // Issue #49, item 7: the folder's path once, not after --model and again in the error.
    assert_eq!(
        stderr.matches(model.to_str().unwrap()).count(),
        1,
        "{stderr}"
    );
    assert!(stderr.starts_with("error: --model: "), "{stderr}");
    // A mistyped local path is a missing folder, not a model to download.
    let (ok, _, stderr) = lmbias(&["fill-mask", "--model", "./models/my-bert", "a [MASK]"]);
    assert!(!ok);
    assert_eq!(
        stderr.trim_end(),
        "error: --model: ./models/my-bert: no such folder (a model is a folder with config.json, \
         or a Hugging Face id ORG/NAME)"
    );
    let model = fixtures().join("models/tiny-bert-mlm");
    let (ok, _, stderr) = lmbias(&["fill-mask", "--model", model.to_str().unwrap(), "no mask"]);
    assert!(!ok);
    assert_eq!(
        stderr.trim_end(),
        "error: text 0 must contain at least one [MASK]: \"no mask\""
    );
    // No proposals asked for: refused by the parser, as valence's --top-k 0 is.
    let (ok, _, stderr) = lmbias(&[
        "fill-mask",
        "--model",
        model.to_str().unwrap(),
        "--top-k",
        "0",
        "a [MASK]",
    ]);
    assert!(!ok);
    assert!(
        stderr.starts_with("error: invalid value '0' for '--top-k <TOP_K>'"),
        "{stderr}"
    );
}

/// `--precision bf16`: vectors near f32's, the JSON naming the precision that ran (bf16 on a
/// CPU with AVX512-BF16, else f32 after a one-line notice); bad values are one-line errors.
#[test]
fn precision_bf16_is_named_and_near_f32() {
    let model = fixtures().join("models/tiny-bert-mlm");
    let model = model.to_str().unwrap();
    let run = |precision: &str| {
        let (ok, stdout, stderr) = lmbias(&[
            "embed",
            "--model",
            model,
            "--precision",
            precision,
            "--json",
            "thou art",
            "the doctor",
        ]);
        assert!(ok, "{stderr}");
        (serde_json::from_str::<Value>(&stdout).unwrap(), stderr)
    };
    let (f32_out, _) = run("f32");
    let (bf16_out, notice) = run("bf16");
    assert_eq!(f32_out.get("precision"), None, "f32 is not named");
    let bf16_ran = bf16_out.get("precision").is_some();
    if bf16_ran {
        assert_eq!(bf16_out["precision"], "bf16");
        assert_eq!(notice, "");
    } else {
        assert_eq!(
            notice.trim_end(),
            "lmbias: this CPU has no bf16 units (AVX512-BF16): --precision bf16 runs in f32"
        );
    }
    let vectors = |out: &Value| -> Vec<Vec<f64>> {
        out["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .collect()
    };
    for (a, b) in vectors(&f32_out).iter().zip(&vectors(&bf16_out)) {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let cosine = dot / (norm(a) * norm(b));
        assert!(cosine > 0.999, "cosine {cosine}");
        assert_eq!(a != b, bf16_ran, "bf16 rounds; its fallback is f32 exactly");
    }
    let (ok, _, stderr) = lmbias(&["embed", "--model", model, "--precision", "fp16", "x"]);
    assert!(!ok);
    // clap's line, then its pointer to --help.
    assert_eq!(
        stderr.lines().next().unwrap(),
        "error: invalid value 'fp16' for '--precision <PRECISION>': unknown precision \"fp16\": \
         expected f32 or bf16"
    );
    let (ok, _, stderr) = lmbias(&[
        "embed",
        "--model",
        model,
        "--device",
        "wgpu",
        "--precision",
        "bf16",
        "x",
    ]);
    assert!(!ok);
    assert_eq!(
        stderr.trim_end(),
        "error: --device wgpu --precision bf16: precision bf16 is not available on wgpu: \
         lmbias's bf16 kernel runs on the CPU"
    );
}

/// On a CPU without AVX512-BF16, `--precision bf16` runs f32 and says so in one line: the
/// binary run under qemu's user-mode emulation of a Haswell (AVX2, no AVX-512), whose cpuid
/// lacks the units, against the same binary run natively in f32. Needs `qemu-x86_64`
/// (Debian's qemu-user, which .ci/run installs), hence ignored in a plain `cargo test`.
#[test]
#[ignore = "needs qemu-x86_64 (qemu-user); .ci/run installs it and runs this test"]
#[cfg(target_arch = "x86_64")]
fn bf16_falls_back_to_f32_on_a_cpu_without_bf16_units() {
    let model = fixtures().join("models/tiny-bert-mlm");
    let args = [
        "embed",
        "--model",
        model.to_str().unwrap(),
        "--json",
        "thou art more lovely",
        "the doctor said",
    ];
    let emulated = std::process::Command::new("qemu-x86_64")
        .args(["-cpu", "Haswell", env!("CARGO_BIN_EXE_lmbias")])
        .args(args)
        .args(["--precision", "bf16"])
        .output()
        .expect("qemu-x86_64 (Debian's qemu-user) runs");
    assert!(emulated.status.success());
    let stderr = String::from_utf8(emulated.stderr).unwrap();
    // qemu's own warnings about host features it cannot emulate aside, one line: the notice.
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("qemu-x86_64:"))
        .collect();
    assert_eq!(
        ours,
        ["lmbias: this CPU has no bf16 units (AVX512-BF16): --precision bf16 runs in f32"]
    );
    let emulated: Value = serde_json::from_slice(&emulated.stdout).unwrap();
    assert_eq!(
        emulated.get("precision"),
        None,
        "f32 ran, and the JSON says so"
    );
    let (ok, native, stderr) = lmbias(&args);
    assert!(ok, "{stderr}");
    let native: Value = serde_json::from_str(&native).unwrap();
    // f32 both, by different kernels (AVX2 there, AVX-512 here): equal to f32 rounding.
    for (a, b) in native["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .zip(emulated["vectors"].as_array().unwrap())
    {
        for (x, y) in a.as_array().unwrap().iter().zip(b.as_array().unwrap()) {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-5 * x.abs().max(1.0), "{x} vs {y}");
        }
    }
}

/// Issue #49, item 5: `fill-mask --json` answers in transformers' pipeline shape (one list of
/// {score, token, token_str, sequence} per text, one list per mask for a text of several) with
/// the pipeline's scores and ids (tests/fixtures/reference/fill-mask-pipeline.json). token_str
/// is the piece without the space its word-initial marker stands for, and sequence the text as
/// given with the mask filled: the two places the docs say lmbias differs.
#[test]
fn fill_mask_json_has_the_pipelines_shape_and_numbers() {
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("reference/fill-mask-pipeline.json")).unwrap(),
    )
    .unwrap();
    let mut compared = 0;
    for (model, cases) in reference["models"].as_object().unwrap() {
        let dir = fixtures().join("models").join(model);
        for case in cases.as_array().unwrap() {
            let text = case["text"].as_str().unwrap();
            let (ok, stdout, stderr) = lmbias(&[
                "fill-mask",
                "--model",
                dir.to_str().unwrap(),
                "--top-k",
                "5",
                "--json",
                text,
            ]);
            assert!(ok, "{stderr}");
            let got: Value = serde_json::from_str(&stdout).unwrap();
            let (got, want) = (&got[0]["predictions"], &case["predictions"]);
            // One mask: a list of proposals; several: a list of lists, as the pipeline's.
            let lists = |v: &Value| -> Vec<Vec<Value>> {
                let items = v.as_array().unwrap();
                if items[0].is_array() {
                    items
                        .iter()
                        .map(|l| l.as_array().unwrap().clone())
                        .collect()
                } else {
                    vec![items.clone()]
                }
            };
            let (got_lists, want_lists) = (lists(got), lists(want));
            assert_eq!(got_lists.len(), want_lists.len(), "{model}: {text}");
            assert_eq!(got[0].is_array(), want[0].is_array(), "{model}: {text}");
            let masks: Vec<usize> = text
                .match_indices(if model.contains("roberta") {
                    "<mask>"
                } else {
                    "[MASK]"
                })
                .map(|(i, _)| i)
                .collect();
            for (m, (g, w)) in got_lists.iter().zip(&want_lists).enumerate() {
                assert_eq!(g.len(), 5);
                for (g, w) in g.iter().zip(w) {
                    assert_eq!(g["token"], w["token"], "{model}: {text}");
                    let (gs, ws) = (g["score"].as_f64().unwrap(), w["score"].as_f64().unwrap());
                    assert!((gs - ws).abs() < 1e-5, "{model}: {text}: {gs} vs {ws}");
                    let token_str = g["token_str"].as_str().unwrap();
                    assert_eq!(token_str, w["token_str"].as_str().unwrap().trim_start());
                    let mask = if model.contains("roberta") {
                        "<mask>"
                    } else {
                        "[MASK]"
                    };
                    let filled = format!(
                        "{}{token_str}{}",
                        &text[..masks[m]],
                        &text[masks[m] + mask.len()..]
                    );
                    assert_eq!(g["sequence"], filled.as_str());
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 5 * (1 + 2 + 3 + 1 + 2));
    // No mask at all is still a one-line error naming the text.
    let tiny = fixtures().join("models/tiny-bert-mlm");
    let (ok, _, stderr) = lmbias(&["fill-mask", "--model", tiny.to_str().unwrap(), "no mask"]);
    assert!(!ok);
    assert_eq!(
        stderr.trim_end(),
        "error: text 0 must contain at least one [MASK]: \"no mask\""
    );
}
