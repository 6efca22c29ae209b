//! `lmbias weat` end to end: the real binary on sent-bias reference fixtures
//! (tests/fixtures/sent-bias-ref, from sent-bias's weat.py), and its one-line errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/sent-bias-ref")
}

fn lmbias(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lmbias"))
        .arg("weat")
        .args(args)
        .output()
        .expect("runs")
}

fn reference(name: &str) -> Value {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("cases.json")).unwrap())
            .unwrap();
    cases.into_iter().find(|c| c["name"] == name).unwrap()
}

fn run_json(case: &Value, extra: &[&str]) -> Value {
    let dir = fixtures();
    let test = dir.join(case["test"].as_str().unwrap());
    let emb = dir.join(case["embeddings"].as_str().unwrap());
    let mut args = vec![
        "--test",
        test.to_str().unwrap(),
        "--embeddings",
        emb.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = lmbias(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn exact_sentence_test_matches_sent_bias() {
    let case = reference("sentences_n6");
    let out = run_json(&case, &[]);
    let (d, expected) = (
        out["effect_size"].as_f64().unwrap(),
        case["effect_size"].as_f64().unwrap(),
    );
    assert!(
        ((d - expected) / expected).abs() < 1e-9,
        "{d} vs {expected}"
    );
    // Counts, not floats: JSON readers may round a 17-digit p by one ulp.
    assert_eq!(out["n_extreme"], case["n_extreme"]);
    assert_eq!(out["exact"], true);
    assert_eq!(out["n_partitions"], 924);
    assert_eq!(
        out["sizes"],
        serde_json::json!({"targ1": 6, "targ2": 6, "attr1": 5, "attr2": 5})
    );
    assert_eq!(out["categories"]["attr2"], "Unpleasant");
    assert_eq!(out["std"], "sample");
    assert_eq!(out["alternative"], "greater");
    assert_eq!(
        (out["n_samples"].as_u64(), out["seed"].as_u64()),
        (Some(100_000), Some(42))
    );

    let population = run_json(&case, &["--ddof", "0", "--two-sided"]);
    let (d, expected) = (
        population["effect_size"].as_f64().unwrap(),
        case["effect_size_population"].as_f64().unwrap(),
    );
    assert!(
        ((d - expected) / expected).abs() < 1e-9,
        "{d} vs {expected}"
    );
    assert_eq!(population["std"], "population");
    assert_eq!(population["n_extreme"], case["n_extreme_two_sided"]);
}

#[test]
fn sampled_weat1_is_within_sampling_error_and_seeded() {
    let case = reference("seat_weat1");
    let out = run_json(&case, &[]);
    assert_eq!(out["exact"], false);
    assert_eq!(out["n_partitions"], 126_410_606_437_752u64);
    assert_eq!(out["n_evaluated"], 100_000);
    let p = out["p_value"].as_f64().unwrap();
    assert!(
        (p - case["p_value"].as_f64().unwrap()).abs() <= 0.005,
        "{p} vs {}",
        case["p_value"]
    );
    let again = run_json(&case, &[]);
    assert_eq!(again["p_value"], out["p_value"]);
    let other_seed = run_json(&case, &["--seed", "7"]);
    assert_ne!(other_seed["p_value"], out["p_value"]);
}

#[test]
fn text_output_names_the_test_and_method() {
    let dir = fixtures();
    let out = lmbias(&[
        "--test",
        dir.join("exact_n4.jsonl").to_str().unwrap(),
        "--embeddings",
        dir.join("exact_n4.emb.json").to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    // sent-bias: d = 1.4760, p = 1/70
    assert_eq!(
        text,
        "exact_n4: X vs Y × A vs B (sizes 4, 4 × 5, 6)\neffect size (Cohen's d, sample std, ddof=1): 1.4760\np-value (one-sided, exact, all 70 splits): 0.014286\n"
    );
}

/// Runs `weat` on files written to a scratch folder; returns the one-line error.
fn error_for(test: &str, embeddings: &str, extra: &[&str]) -> (String, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "lmbias-weat-cli-{}-{:x}",
        std::process::id(),
        fxhash(test, embeddings)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (t, e) = (dir.join("t.jsonl"), dir.join("e.txt"));
    std::fs::write(&t, test).unwrap();
    std::fs::write(&e, embeddings).unwrap();
    let mut args = vec![
        "--test",
        t.to_str().unwrap(),
        "--embeddings",
        e.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = lmbias(&args);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "not one line: {stderr}");
    (stderr.trim_end().to_string(), t, e)
}

fn fxhash(a: &str, b: &str) -> u64 {
    a.bytes().chain(b.bytes()).fold(0xcbf29ce484222325, |h, c| {
        (h ^ u64::from(c)).wrapping_mul(0x100000001b3)
    })
}

const TEST: &str = r#"{"targ1": {"category": "F", "examples": ["rose", "tulip"]},
  "targ2": {"category": "I", "examples": ["ant", "flea"]},
  "attr1": {"category": "P", "examples": ["love"]},
  "attr2": {"category": "U", "examples": ["hate"]}}"#;

#[test]
fn bad_inputs_are_one_line_errors_naming_the_file() {
    let (err, _, e) = error_for(TEST, "rose 1 0\nant 0 1\nlove 1 1\n", &[]);
    assert_eq!(
        err,
        format!(
            "error: test t: {}: 3 text(s) have no vector: \"tulip\", \"flea\", \"hate\"",
            e.display()
        )
    );

    let (err, _, e) = error_for(TEST, "{\"rose\": [1, 0], \"ant\": [1]}", &[]);
    assert_eq!(
        err,
        format!(
            "error: {}: invalid embeddings JSON: \"ant\": 1 values, but earlier vectors have 2 at line 1 column 28",
            e.display()
        )
    );

    let (err, _, e) = error_for(TEST, "rose 1 0\ntulip nan 1\n", &[]);
    assert_eq!(
        err,
        format!(
            "error: {}: line 2: \"tulip\": value 0 is NaN, not a finite number",
            e.display()
        )
    );

    let (err, _, e) = error_for(TEST, "", &[]);
    assert_eq!(err, format!("error: {}: empty file", e.display()));

    let (err, _, e) = error_for(TEST, "{\"rose\": [1, 0]", &[]);
    assert_eq!(
        err,
        format!(
            "error: {}: invalid embeddings JSON: EOF while parsing an object at line 1 column 15",
            e.display()
        )
    );

    let vectors = "rose 1 0\ntulip 0 0\nant 0 1\nflea 1 1\nlove 1 2\nhate 2 1\n";
    let (err, _, e) = error_for(TEST, vectors, &[]);
    assert_eq!(
        err,
        format!(
            "error: {}: the vector of targ1 text \"tulip\" is all zeros: its cosine similarity is undefined",
            e.display()
        )
    );

    let huge = vectors
        .replace("tulip 0 0", "tulip 0 1")
        .replace("flea 1 1", "flea 1e200 1");
    let (err, _, e) = error_for(TEST, &huge, &[]);
    assert_eq!(
        err,
        format!(
            "error: {}: the vector of targ2 text \"flea\" is too large: its squared norm or cosines overflow f64",
            e.display()
        )
    );

    let unequal = TEST.replace(r#"["ant", "flea"]"#, r#"["ant"]"#);
    let (err, t, _) = error_for(&unequal, vectors, &[]);
    assert_eq!(
        err,
        format!(
            "error: {}: targ1 (\"F\") has 2 examples but targ2 (\"I\") has 1: sent-bias requires equal target sizes (`lmbias weat --allow-unequal-sizes`, or allow_unequal_sizes=True in Python, runs it anyway; `lmbias seat` keeps the rule)",
            t.display()
        )
    );

    let (err, t, _) = error_for(&TEST.replace("\"attr2\"", "\"attr3\""), vectors, &[]);
    assert!(
        err.starts_with(&format!("error: {}: not an association test", t.display()))
            && err.contains("attr3"),
        "{err}"
    );
}

#[test]
fn unequal_sizes_run_when_allowed() {
    let unequal = TEST.replace(r#"["ant", "flea"]"#, r#"["ant", "flea", "moth"]"#);
    let dir = std::env::temp_dir().join(format!("lmbias-weat-unequal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (t, e) = (dir.join("t.jsonl"), dir.join("e.txt"));
    std::fs::write(&t, unequal).unwrap();
    std::fs::write(
        &e,
        "rose 1 0.1\ntulip 0.9 0.2\nant 0.1 1\nflea 0.3 1\nmoth 0.2 0.8\nlove 1 0\nhate 0 1\n",
    )
    .unwrap();
    let out = lmbias(&[
        "--test",
        t.to_str().unwrap(),
        "--embeddings",
        e.to_str().unwrap(),
        "--json",
        "--allow-unequal-sizes",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // C(5, 2) = 10 splits; the flowers are the two most "love"-like items, so only the observed
    // split reaches the observed statistic: p = 1/10.
    assert_eq!(v["n_partitions"], 10);
    assert_eq!(v["p_value"], 0.1);
}

/// A test file of `nx` and `ny` target words and two attribute words each, with made-up
/// 3-d vectors (distinct, deterministic) in GloVe's text format.
fn generated(name: &str, nx: usize, ny: usize) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("lmbias-weat-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let words = |prefix: &str, n: usize| -> Vec<String> {
        (0..n).map(|i| format!("{prefix}{i}")).collect()
    };
    let sets = [
        ("targ1", words("x", nx)),
        ("targ2", words("y", ny)),
        ("attr1", words("a", 2)),
        ("attr2", words("b", 2)),
    ];
    let test: serde_json::Map<String, Value> = sets
        .iter()
        .map(|(key, examples)| {
            (
                key.to_string(),
                serde_json::json!({"category": key, "examples": examples}),
            )
        })
        .collect();
    let mut vectors = String::new();
    for (i, word) in sets.iter().flat_map(|(_, w)| w).enumerate() {
        let f = i as f64;
        vectors += &format!(
            "{word} {} {} {}\n",
            (f * 1.7).sin() + 1.5,
            (f * 2.3).cos() + 1.5,
            1.0
        );
    }
    let (t, e) = (dir.join(format!("{name}.jsonl")), dir.join("vectors.txt"));
    std::fs::write(&t, Value::Object(test).to_string()).unwrap();
    std::fs::write(&e, vectors).unwrap();
    (t, e)
}

#[test]
fn an_exact_test_too_large_is_refused_at_once() {
    let (t, e) = generated("big", 25, 25);
    let started = std::time::Instant::now();
    let out = lmbias(&[
        "--test",
        t.to_str().unwrap(),
        "--embeddings",
        e.to_str().unwrap(),
        "--n-samples",
        &u64::MAX.to_string(),
    ]);
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let prefix = format!(
        "error: {}: an exact test over the 126410606437752 splits of X ∪ Y (25 + 25 items) would take about ",
        t.display()
    );
    assert!(stderr.starts_with(&prefix), "{stderr}");
    assert!(
        stderr.trim_end().ends_with("to sample them instead"),
        "{stderr}"
    );
}

#[test]
fn one_target_against_a_thousand_is_an_exact_test_over_its_1001_splits() {
    let (t, e) = generated("one-vs-many", 1, 1000);
    let out = lmbias(&[
        "--test",
        t.to_str().unwrap(),
        "--embeddings",
        e.to_str().unwrap(),
        "--allow-unequal-sizes",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["exact"].as_bool(), v["n_partitions"].as_u64()),
        (Some(true), Some(1001))
    );
    let p = v["p_value"].as_f64().unwrap();
    assert!(
        p > 0.0 && p <= 1.0 && (p * 1001.0).fract().abs() < 1e-9,
        "{p}"
    );
}

/// Issue #49, item 3: the commands chain. `embed --json` of a test's texts, given to `weat
/// --embeddings`, gives what `seat` gives on the same model and test: the same exact p (a
/// count of splits) and d within what writing f32 vectors as decimals can move it; with
/// `--metric all`, the same WEFE values (issue #50).
#[test]
fn embed_json_is_read_back_by_weat_and_agrees_with_seat() {
    let model = crate::support::minilm_dir().display().to_string();
    let test = lmbias_testing::repo_root().join("datasets/seat/en/weat6.jsonl");
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(&test).unwrap()).unwrap();
    let texts: Vec<String> = ["targ1", "targ2", "attr1", "attr2"]
        .iter()
        .flat_map(|set| spec[set]["examples"].as_array().unwrap().clone())
        .map(|e| e.as_str().unwrap().to_owned())
        .collect();
    let dir = std::env::temp_dir().join(format!("lmbias-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("texts.txt");
    std::fs::write(&input, texts.join("\n") + "\n").unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_lmbias"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let embedded = run(&[
        "embed",
        "--model",
        &model,
        "--pooling",
        "mean",
        "--input",
        input.to_str().unwrap(),
        "--json",
    ]);
    let object: Value = serde_json::from_slice(&embedded).unwrap();
    assert_eq!(object["texts"].as_array().unwrap().len(), texts.len());
    assert_eq!(object["texts"][0], texts[0].as_str());
    let vectors = dir.join("vectors.json");
    std::fs::write(&vectors, &embedded).unwrap();
    let weat: Value = serde_json::from_slice(&run(&[
        "weat",
        "--embeddings",
        vectors.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let seat: Value = serde_json::from_slice(&run(&[
        "seat",
        "--model",
        &model,
        "--test",
        test.to_str().unwrap(),
        "--pooling",
        "mean",
        "--json",
    ]))
    .unwrap();
    let row = &seat["rows"][0];
    assert_eq!(weat["exact"], true);
    assert!(weat["n_extreme"].as_u64().is_some());
    assert_eq!(weat["p_value"], row["p_value"], "{weat} {row}");
    let (d_weat, d_seat) = (
        weat["effect_size"].as_f64().unwrap(),
        row["effect_size"].as_f64().unwrap(),
    );
    assert!((d_weat - d_seat).abs() < 1e-5, "{d_weat} vs {d_seat}");

    // Issue #50: `--metric` is the same option in both, on the same vectors: WEFE's values
    // agree within what the decimals move them (1e-5 relative, RNSB's fit 1e-4). RND, RIPA and
    // RNSB see a vector's length, so the vectors must be seat's raw ones: `embed` applies
    // MiniLM's Normalize module unless told not to.
    let raw = dir.join("raw.json");
    std::fs::write(
        &raw,
        run(&[
            "embed",
            "--model",
            &model,
            "--pooling",
            "mean",
            "--no-normalize",
            "--input",
            input.to_str().unwrap(),
            "--json",
        ]),
    )
    .unwrap();
    let with_metrics = |command: &str, source: (&str, &str), extra: &[&str]| -> Vec<u8> {
        let mut args = vec![
            command,
            source.0,
            source.1,
            "--test",
            test.to_str().unwrap(),
            "--metric",
            "all",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let weat: Value = serde_json::from_slice(&with_metrics(
        "weat",
        ("--embeddings", raw.to_str().unwrap()),
        &["--json"],
    ))
    .unwrap();
    let seat: Value = serde_json::from_slice(&with_metrics(
        "seat",
        ("--model", &model),
        &["--pooling", "mean", "--json"],
    ))
    .unwrap();
    let (ours, theirs) = (
        weat["wefe"].as_array().unwrap(),
        seat["rows"][0]["wefe"].as_array().unwrap(),
    );
    assert_eq!(ours.len(), 8);
    for (a, b) in ours.iter().zip(theirs) {
        assert_eq!(
            (&a["metric"], &a["attribute"]),
            (&b["metric"], &b["attribute"])
        );
        let (x, y) = (a["value"].as_f64().unwrap(), b["value"].as_f64().unwrap());
        let tolerance = if a["metric"] == "rnsb" { 1e-4 } else { 1e-5 };
        assert!(((x - y) / y).abs() < tolerance, "{a} vs {b}");
        assert_eq!(
            a.get("test").is_some(),
            b.get("test").is_some(),
            "{a} vs {b}"
        );
    }
    let text = String::from_utf8(with_metrics(
        "weat",
        ("--embeddings", raw.to_str().unwrap()),
        &[],
    ))
    .unwrap();
    assert!(
        text.contains("RND wrt attr1 (Career): ") && text.contains("(two-sided, exact)"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `weat --model` is no option of weat: the error names the command that runs a test on a
/// model, in one line.
#[test]
fn weat_with_a_model_points_to_seat() {
    let out = lmbias(&["--model", "bert-base-uncased", "--test", "t.jsonl"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("run `lmbias seat --model bert-base-uncased --test t.jsonl`"),
        "{err}"
    );
}
