//! `lmbias seat` end to end: the real binary on all-MiniLM-L6-v2 against sent-bias's
//! weat.py numbers (tests/fixtures/reference/seat-minilm.json), figures, and its one-line errors.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::support::minilm_dir;
use lmbias_testing::{fixtures, repo_root};
use serde_json::Value;

fn lmbias(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lmbias"))
        .arg("seat")
        .args(args)
        .output()
        .expect("runs")
}

fn english(name: &str) -> String {
    repo_root()
        .join("datasets/seat/en")
        .join(format!("{name}.jsonl"))
        .display()
        .to_string()
}

fn tiny() -> String {
    fixtures()
        .join("models/tiny-bert-mlm")
        .display()
        .to_string()
}

/// A scratch directory removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("lmbias-seat-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `--json` prints `{"rows": [...], "refused": [...]}`; a checkpoint refuses nothing.
fn json_rows(out: &Output) -> Vec<Value> {
    let mut json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["refused"], serde_json::json!([]), "{json}");
    serde_json::from_value(json["rows"].take()).unwrap()
}

fn one_line_error(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected failure, got {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    err
}

#[test]
fn json_on_minilm_matches_sent_bias() {
    let model = minilm_dir().display().to_string();
    let figures = Scratch::new("figures");
    let out = lmbias(&[
        "--model",
        &model,
        "--test",
        &english("weat6"),
        &english("weat8"),
        "--pooling",
        "mean",
        "--json",
        "--figures",
        figures.0.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = json_rows(&out);
    let reference: Value = serde_json::from_slice(
        &std::fs::read(fixtures().join("reference/seat-minilm.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    for row in &rows {
        for key in [
            "model",
            "test",
            "effect_size",
            "p_value",
            "exact",
            "p_holm",
            "p_bh",
            "sizes",
            "coverage",
        ] {
            assert!(row.get(key).is_some(), "missing {key} in {row}");
        }
        let want = reference["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["test"] == row["test"] && r["pooling"] == "mean")
            .unwrap();
        let d = row["effect_size"].as_f64().unwrap();
        assert!(
            (d - want["effect_size"].as_f64().unwrap()).abs() < 1e-4,
            "{row}"
        );
        let partitions = want["partitions"].as_f64().unwrap();
        assert_eq!(row["exact"], true);
        assert_eq!(
            (row["p_value"].as_f64().unwrap() * partitions).round(),
            (want["p_value"].as_f64().unwrap() * partitions).round(),
            "{row}"
        );
        assert_eq!(row["sizes"]["targ1"], 8);
    }
    // Two tests: Holm doubles the smaller p (weat6, 0.0162) and keeps the larger (weat8, 0.18).
    let p6 = rows[0]["p_value"].as_f64().unwrap();
    assert!((rows[0]["p_holm"].as_f64().unwrap() - 2.0 * p6).abs() < 1e-12);
    for file in ["seat-heatmap.svg", "seat-heatmap-holm.svg"] {
        let svg = std::fs::read_to_string(figures.0.join(file)).unwrap();
        assert!(
            svg.starts_with("<svg")
                && svg.contains(">weat6</text>")
                && svg.contains(">weat8</text>"),
            "{file}"
        );
    }
}

#[test]
fn unequal_target_sets_name_the_file_and_sets() {
    let dir = Scratch::new("unequal");
    let path = dir.0.join("lopsided.jsonl");
    std::fs::write(
        &path,
        r#"{"targ1": {"category": "M", "examples": ["he", "man"]},
            "targ2": {"category": "F", "examples": ["she"]},
            "attr1": {"category": "C", "examples": ["work"]},
            "attr2": {"category": "H", "examples": ["home"]}}"#,
    )
    .unwrap();
    let err = one_line_error(&lmbias(&[
        "--model",
        &tiny(),
        "--test",
        path.to_str().unwrap(),
    ]));
    assert!(
        err.contains("lopsided.jsonl") && err.contains("targ1") && err.contains("targ2"),
        "{err}"
    );
}

/// An example of 100,002 tokens: the error quotes its first 80 characters and its length,
/// and names the model once (it was echoed whole, a 200 KB line, with the path twice).
#[test]
fn a_huge_example_is_quoted_short_and_the_model_named_once() {
    let dir = Scratch::new("huge");
    let path = dir.0.join("huge.jsonl");
    let test = serde_json::json!({
        "targ1": {"category": "X", "examples": ["w ".repeat(100_000) + "end", "a"]},
        "targ2": {"category": "Y", "examples": ["b", "c"]},
        "attr1": {"category": "A", "examples": ["d"]},
        "attr2": {"category": "B", "examples": ["e"]},
    });
    std::fs::write(&path, test.to_string()).unwrap();
    let model = tiny();
    let err = one_line_error(&lmbias(&[
        "--model",
        &model,
        "--test",
        path.to_str().unwrap(),
    ]));
    assert!(err.len() < 600, "{} bytes: {}", err.len(), &err[..600]);
    assert_eq!(err.matches(model.as_str()).count(), 1, "{err}");
    assert!(
        err.contains("test huge, set targ1: cannot encode \"w w w")
            && err.contains("… (200003 characters)"),
        "{err}"
    );
}

#[test]
fn an_empty_directory_is_an_error() {
    let dir = Scratch::new("empty");
    let err = one_line_error(&lmbias(&[
        "--model",
        &tiny(),
        "--test",
        dir.0.to_str().unwrap(),
    ]));
    assert!(
        err.contains(dir.0.to_str().unwrap()) && err.contains("no association tests"),
        "{err}"
    );
}

#[test]
fn a_test_given_twice_is_an_error() {
    let weat6 = english("weat6");
    let err = one_line_error(&lmbias(&["--model", &tiny(), "--test", &weat6, &weat6]));
    assert!(err.contains("test weat6 is already loaded from"), "{err}");
}

#[test]
fn a_missing_model_is_an_error() {
    let err = one_line_error(&lmbias(&[
        "--model",
        "no-such-org/no-such-model",
        "--test",
        &english("weat6"),
    ]));
    assert!(
        err.starts_with("error: --model: model \"no-such-org/no-such-model\" not found"),
        "{err}"
    );
}

/// Issue 7: a T5 encoder (the tiny random mT5, SentencePiece vocabulary) runs the
/// whole Turkish battery through the same command, its architecture read from config.json.
#[test]
fn the_turkish_battery_runs_end_to_end_on_an_mt5_encoder() {
    let mt5 = fixtures().join("models/tiny-mt5").display().to_string();
    let battery = repo_root().join("datasets/seat/tr").display().to_string();
    let out = lmbias(&[
        "--model",
        &mt5,
        "--test",
        &battery,
        "--pooling",
        "mean",
        "--n-samples",
        "1000",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = json_rows(&out);
    assert_eq!(rows.len(), 37);
    for row in &rows {
        let p = row["p_value"].as_f64().unwrap();
        let holm = row["p_holm"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p) && holm >= p, "{row}");
        assert!(
            row["effect_size"].as_f64().is_some_and(f64::is_finite),
            "{row}"
        );
    }
    assert!(rows.iter().any(|r| r["test"] == "sent-weat4_tr"));
}

/// Every model runs exactly the files given, an uncased one too (the paper's
/// procedure); `--also-lowercased-copy` adds, for models whose tokenizer lower-cases,
/// the lower-cased copy (`seat/tr-uncased`) as rows of its own, numbers those of
/// the copy run directly, while the rows of the files given stay as they were.
#[test]
fn uncased_models_run_the_lowercased_turkish_copy_only_with_the_flag() {
    let minilm = minilm_dir().display().to_string();
    let mt5 = fixtures().join("models/tiny-mt5").display().to_string();
    let test = repo_root().join("datasets/seat/tr/weat6_tr.jsonl");
    let copy = repo_root().join("datasets/seat/tr-uncased/weat6_tr.jsonl");
    let run = |models: &[&str], test: &std::path::Path, extra: &[&str]| -> Vec<Value> {
        let mut args = Vec::new();
        for m in models {
            args.extend(["--model", m]);
        }
        let test = test.display().to_string();
        args.extend(["--test", &test, "--pooling", "mean", "--json"]);
        args.extend(extra);
        let out = lmbias(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_rows(&out)
    };
    let given = run(&[&minilm, &mt5], &test, &[]);
    let models_and_copies = |rows: &[Value]| -> Vec<(String, bool)> {
        rows.iter()
            .map(|r| {
                (
                    r["model"].as_str().unwrap().to_owned(),
                    r["lowercased_copy"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        models_and_copies(&given),
        [(minilm.clone(), false), (mt5.clone(), false)]
    );
    assert!(given.iter().all(|r| r["test"] == "weat6_tr"));

    let both = run(&[&minilm, &mt5], &test, &["--also-lowercased-copy"]);
    assert_eq!(
        models_and_copies(&both),
        [
            (minilm.clone(), false),
            (minilm.clone(), true),
            (mt5.clone(), false)
        ]
    );
    assert_eq!(both[1]["test"], "weat6_tr");
    // The files given give the same rows with or without the copy beside them.
    assert_eq!((&both[0], &both[2]), (&given[0], &given[1]));
    let direct = run(&[&minilm], &copy, &[]);
    assert_eq!(direct[0]["lowercased_copy"], false);
    for field in ["effect_size", "p_value", "test_statistic"] {
        assert_eq!(both[1][field], direct[0][field], "{field}");
    }
    // Given the folder, MiniLM runs its 37 files; with the flag, the 37 copies too.
    let folder = repo_root().join("datasets/seat/tr");
    let battery = run(&[&minilm], &folder, &["--n-samples", "1000"]);
    assert_eq!(battery.len(), 37);
    assert!(battery.iter().all(|r| r["lowercased_copy"] == false));
    let battery = run(
        &[&minilm],
        &folder,
        &["--n-samples", "1000", "--also-lowercased-copy"],
    );
    assert_eq!(battery.len(), 74);
    assert!(battery[37..].iter().all(|r| r["lowercased_copy"] == true));

    // Markdown with the Turkish paper's marks names them, and labels the copy's rows.
    let markdown = |extra: &[&str]| -> String {
        let test = test.display().to_string();
        let mut args = vec!["--model", &minilm, "--test", &test, "--marks", "caglidil"];
        args.extend(extra);
        String::from_utf8(lmbias(&args).stdout).unwrap()
    };
    let md = markdown(&[]);
    assert!(
        md.contains("† p<0.1 (marginal), * p<0.05, ** p<0.01."),
        "{md}"
    );
    assert!(!md.contains("lower-cased copy"), "{md}");
    let md = markdown(&["--also-lowercased-copy"]);
    assert!(
        md.contains(&format!("| {minilm} | weat6_tr |"))
            && md.contains(&format!("| {minilm} (lower-cased copy) | weat6_tr |")),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "Rows marked \"(lower-cased copy)\" ran the test's lower-cased copy, beside the file \
             as given, on the models whose tokenizer lower-cases: {minilm} (1 test)."
        )),
        "{md}"
    );
}

/// Four models run once, and as three shards saved and merged: the merge prints the
/// same JSON, Markdown and CSV, and draws the same figures, byte for byte.
#[test]
fn three_shards_merged_print_what_one_run_prints() {
    let scratch = Scratch::new("shards");
    let models: Vec<String> = [
        "tiny-bert-mlm",
        "tiny-mt5",
        "tiny-bert-nohead",
        "tiny-bert-cased-tr",
    ]
    .iter()
    .map(|m| fixtures().join("models").join(m).display().to_string())
    .collect();
    let (weat1, weat2) = (english("weat1"), english("weat2"));
    let common = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = vec!["--model".into()];
        args.extend(models.iter().cloned());
        args.extend(["--test", &weat1, &weat2, "--n-samples", "200"].map(String::from));
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = lmbias(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let single_figures = scratch.0.join("single-figures");
    let single_json = run(common(&[
        "--json",
        "--figures",
        single_figures.to_str().unwrap(),
    ]));
    let saved: Vec<String> = (1..=3)
        .map(|k| {
            let path = scratch.0.join(format!("{k}-of-3.cbor"));
            run(common(&[
                "--shard",
                &format!("{k}/3"),
                "--save",
                path.to_str().unwrap(),
            ]));
            path.display().to_string()
        })
        .collect();
    // In another order than the shards: the merge orders the models as --model did.
    let merge = |extra: &[&str]| {
        let mut args = vec!["--merge", &saved[2], &saved[0], &saved[1]];
        args.extend(extra);
        run(args.iter().map(|s| s.to_string()).collect())
    };
    let merged_figures = scratch.0.join("merged-figures");
    assert_eq!(
        String::from_utf8(merge(&[
            "--json",
            "--figures",
            merged_figures.to_str().unwrap()
        ]))
        .unwrap(),
        String::from_utf8(single_json.clone()).unwrap()
    );
    assert_eq!(merge(&["--csv"]), run(common(&["--csv"])));
    assert_eq!(merge(&[]), run(common(&[])));
    for figure in ["seat-heatmap.svg", "seat-heatmap-holm.svg"] {
        assert!(
            std::fs::read(single_figures.join(figure)).unwrap()
                == std::fs::read(merged_figures.join(figure)).unwrap(),
            "{figure} differs"
        );
    }
    // Not vacuous: every model ran both tests.
    let json: Value = serde_json::from_slice(&single_json).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 8, "{json}");

    // An incomplete set is refused, naming what is missing.
    let out = lmbias(&["--merge", &saved[0], &saved[2]]);
    assert_eq!(
        one_line_error(&out).trim_end(),
        "error: --merge: missing shards: 2/3"
    );
    let out = lmbias(&["--merge", &saved[0], &saved[0], &saved[1], &saved[2]]);
    assert_eq!(
        one_line_error(&out).trim_end(),
        format!("error: --merge: {}: shard 1/3 is given twice", saved[0])
    );
}

#[test]
fn a_bad_shard_is_a_one_line_error() {
    for given in ["0/3", "4/3", "x"] {
        let out = lmbias(&[
            "--model",
            &tiny(),
            "--test",
            &english("weat1"),
            "--shard",
            given,
        ]);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().next().unwrap();
        assert!(
            first.starts_with("error: invalid value")
                && first.contains(&format!("shard \"{given}\"")),
            "{stderr}"
        );
    }
}

/// Shards that ran different tests under one name, another format, or a file cut
/// short are refused at the merge, each in one line that names the files.
#[test]
fn a_merge_refuses_shards_of_different_tests_formats_and_truncated_files() {
    let scratch = Scratch::new("mixed");
    let models: Vec<String> = ["tiny-bert-mlm", "tiny-bert-nohead"]
        .iter()
        .map(|m| fixtures().join("models").join(m).display().to_string())
        .collect();
    // weat6 as written, and a copy with attr1 and attr2 swapped (d changes sign).
    let original = std::fs::read_to_string(english("weat6")).unwrap();
    let mut swapped: Value = serde_json::from_str(&original).unwrap();
    let attr1 = swapped["attr1"].take();
    swapped["attr1"] = std::mem::replace(&mut swapped["attr2"], attr1);
    for (dir, text) in [("a", original), ("b", swapped.to_string())] {
        std::fs::create_dir_all(scratch.0.join(dir)).unwrap();
        std::fs::write(scratch.0.join(dir).join("weat6.jsonl"), text).unwrap();
    }
    let shard = |k: usize, dir: &str| -> String {
        let path = scratch.0.join(format!("{k}-of-2-{dir}.cbor"));
        let test = scratch.0.join(dir).join("weat6.jsonl");
        let out = lmbias(&[
            "--model",
            &models[0],
            &models[1],
            "--test",
            test.to_str().unwrap(),
            "--n-samples",
            "100",
            "--shard",
            &format!("{k}/2"),
            "--save",
            path.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        path.display().to_string()
    };
    let (first, second, other) = (shard(1, "a"), shard(2, "a"), shard(2, "b"));
    let out = lmbias(&["--merge", &first, &second]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let err = one_line_error(&lmbias(&["--merge", &first, &other]));
    assert!(
        err.starts_with(&format!(
            "error: --merge: {other}: test weat6 differs from that of {first} (sha256 "
        )) && err.trim_end().ends_with(
            "; the shards of one run are run by one lmbias on the same inputs with the same options"
        ),
        "{err}"
    );

    // Another format version: the byte after the key "format" is the version (CBOR's
    // small integer); this lmbias writes 3.
    let mut bytes = std::fs::read(&second).unwrap();
    let at = bytes
        .windows(7)
        .position(|w| w == b"\x66format")
        .expect("the stamp holds the format")
        + 7;
    assert_eq!(bytes[at], 3);
    bytes[at] = 9;
    let newer = scratch.0.join("newer.cbor");
    std::fs::write(&newer, &bytes).unwrap();
    let err = one_line_error(&lmbias(&["--merge", &first, newer.to_str().unwrap()]));
    assert!(
        err.starts_with(&format!(
            "error: --merge: {}: shard format 9, written by lmbias {}; lmbias {1} reads format 3 only",
            newer.display(),
            env!("CARGO_PKG_VERSION")
        )),
        "{err}"
    );

    // Cut short: said in words, with no Rust debug output.
    let whole = std::fs::read(&second).unwrap();
    let cut = scratch.0.join("cut.cbor");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    let err = one_line_error(&lmbias(&["--merge", &first, cut.to_str().unwrap()]));
    assert!(
        err.starts_with(&format!(
            "error: --merge: {}: truncated: the file ends after {} bytes, in the middle of its data",
            cut.display(),
            whole.len() / 2
        )),
        "{err}"
    );
    assert!(!err.contains("Error {") && !err.contains("Io("), "{err}");
}

/// A run in which every test is refused (static vectors that lack every word of a set) says
/// so and exits 1, after the warnings; one test run among refused ones still exits 0 (#35).
#[test]
fn a_run_with_every_test_refused_exits_1() {
    let scratch = Scratch::new("all-refused");
    let vectors = scratch.0.join("vectors.txt");
    std::fs::write(&vectors, "3 2\nrose 1 0\nant 0 1\npleasant 1 1\n").unwrap();
    let test = scratch.0.join("lost.jsonl");
    std::fs::write(
        &test,
        r#"{"targ1": {"category": "F", "examples": ["rose"]}, "targ2": {"category": "I", "examples": ["ant"]}, "attr1": {"category": "P", "examples": ["pleasant"]}, "attr2": {"category": "U", "examples": ["awful"]}}"#,
    )
    .unwrap();
    let out = lmbias(&[
        "--model",
        vectors.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let last = err.lines().last().unwrap();
    assert_eq!(
        last,
        "error: no test could be run: each was refused (see the warnings above)"
    );
    assert!(err.starts_with("warning: "), "{err}");
}

/// Issue #49, item 4: `--ddof 0` divides d by the population std of the 16 scores of
/// X ∪ Y, so d grows by √(16/15); `--two-sided` counts both tails, and with |X| = |Y| the
/// exact permutation distribution is symmetric (swapping X and Y negates the statistic),
/// so p doubles. Rows say which they are, and name their sets.
#[test]
fn two_sided_and_ddof_reach_the_rows_and_say_so() {
    let model = minilm_dir().display().to_string();
    let test = english("weat6");
    let run = |extra: &[&str]| {
        let mut args = vec!["--model", &model, "--test", &test, "--pooling", "mean"];
        args.extend_from_slice(extra);
        let out = lmbias(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let one = json_rows(&run(&["--json"]));
    let two = json_rows(&run(&["--json", "--two-sided", "--ddof", "0"]));
    let (one, two) = (&one[0], &two[0]);
    assert_eq!(one["alternative"], "greater");
    assert_eq!(one["std"], "sample");
    assert_eq!(two["alternative"], "two-sided");
    assert_eq!(two["std"], "population");
    assert_eq!(two["categories"]["targ1"], "MaleNames");
    assert_eq!(two["categories"]["attr2"], "Family");
    let d = |r: &Value| r["effect_size"].as_f64().unwrap();
    assert!(
        (d(two) - d(one) * (16.0f64 / 15.0).sqrt()).abs() < 1e-9,
        "{one} {two}"
    );
    assert!(d(one) > 0.0);
    let p = |r: &Value| r["p_value"].as_f64().unwrap();
    assert!((p(two) - 2.0 * p(one)).abs() < 1e-12, "{one} {two}");
    let md = String::from_utf8(run(&["--two-sided"]).stdout).unwrap();
    assert!(
        md.contains("| MaleNames vs FemaleNames × Career vs Family |")
            && md.contains("p (two-sided)"),
        "{md}"
    );
}

/// Issue #50, item 2: `--metric` adds WEFE's metrics to each row, on the vectors WEAT uses:
/// on GloVe (the same f32 vectors WEFE 1.0.1 read for reference/wefe.json) every value equals
/// WEFE's within 1e-5 relative (RNSB: WEFE run to the optimum, 1e-4); JSON, CSV and Markdown
/// carry them, with exact tests where X ∪ Y has few splits (C(16, 8) = 12 870; 2⁸ sign patterns).
#[test]
fn metric_adds_wefe_values_equal_to_wefe() {
    let test = english("weat6");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--model",
            "glove-6b-50d",
            "--test",
            &test,
            "--metric",
            "all",
        ];
        args.extend_from_slice(extra);
        let out = lmbias(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let rows = json_rows(&run(&["--json"]));
    let reference = lmbias_testing::reference("wefe");
    let want = reference["models"][0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["test"] == "weat6")
        .unwrap()["values"]
        .clone();
    let values = rows[0]["wefe"].as_array().unwrap();
    let keys: Vec<String> = values
        .iter()
        .map(|v| match v["attribute"].as_str() {
            Some(a) => format!("{}_{a}", v["metric"].as_str().unwrap()),
            None => v["metric"].as_str().unwrap().to_owned(),
        })
        .collect();
    assert_eq!(
        keys,
        [
            "rnd_attr1",
            "rnd_attr2",
            "rnsb",
            "mac",
            "ect_attr1",
            "ect_attr2",
            "ripa_attr1",
            "ripa_attr2"
        ]
    );
    for (v, k) in values.iter().zip(&keys) {
        let ours = v["value"].as_f64().unwrap();
        let theirs = want[if k == "rnsb" {
            "rnsb_tol_1e-12"
        } else {
            k.as_str()
        }]
        .as_f64()
        .unwrap();
        let tolerance = if k == "rnsb" { 1e-4 } else { 1e-5 };
        assert!(
            ((ours - theirs) / theirs).abs() < tolerance,
            "{k}: {ours} vs WEFE {theirs}"
        );
        let tested = k.contains("_attr");
        assert_eq!(v.get("test").is_some(), tested, "{k}: {v}");
        if tested {
            assert_eq!(v["test"]["exact"], true, "{k}: {v}");
            let p = v["test"]["p_value"].as_f64().unwrap();
            assert!(
                p > 0.0 && p <= 1.0 && v["p_holm"].as_f64().unwrap() >= p,
                "{k}: {v}"
            );
        }
    }
    let csv = String::from_utf8(run(&["--csv"]).stdout).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.ends_with(",rnd_attr1,rnd_attr1_p,rnd_attr1_p_holm,rnd_attr2,rnd_attr2_p,rnd_attr2_p_holm,rnsb,rnsb_accuracy,mac,ect_attr1,ect_attr1_p,ect_attr1_p_holm,ect_attr2,ect_attr2_p,ect_attr2_p_holm,ripa_attr1,ripa_attr1_p,ripa_attr1_p_holm,ripa_attr2,ripa_attr2_p,ripa_attr2_p_holm"),
        "{header}"
    );
    let md = String::from_utf8(run(&[]).stdout).unwrap();
    assert!(
        md.contains("WEFE 1.0.1's metrics") && md.contains("| RND wrt A |"),
        "{md}"
    );
}

/// Issue #50, item 6: an unknown metric is one line naming the option and the names known.
#[test]
fn an_unknown_metric_is_a_one_line_error() {
    let err = one_line_error(&lmbias(&[
        "--model",
        "glove-6b-50d",
        "--test",
        &english("weat6"),
        "--metric",
        "rnd,weat9",
    ]));
    assert!(
        err.contains("--metric")
            && err.contains("unknown metric \"weat9\": expected rnd, rnsb, mac, ect, ripa or all"),
        "{err}"
    );
}
