//! `lmbias probe` end to end: on a planted embeddings file written here, and on
//! the tiny BERT fixture with the shipped word lists and templates.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::lmbias;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Deterministic noise in [-0.5, 0.5).
fn noise(seed: u64) -> f64 {
    let x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((x >> 11) as f64 / (1u64 << 53) as f64) - 0.5
}

const DIMS: u64 = 16;
/// The one dimension that carries the protected classes.
const PLANTED: u64 = 11;

/// 12 christian / 12 muslim words separated on dimension 11; 15 good words lean
/// christian there, 15 bad words lean muslim.
fn planted(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let vector = |id: u64, signal: f64| -> Vec<f64> {
        (0..DIMS)
            .map(|j| {
                if j == PLANTED {
                    signal + 0.3 * noise(id * 100 + j)
                } else {
                    noise(id * 100 + j)
                }
            })
            .collect()
    };
    let mut vectors = serde_json::Map::new();
    let mut protected = String::from("word,value\n");
    let mut stereotyped = String::from("word,value,descriptor\n");
    for i in 0..12 {
        vectors.insert(format!("c{i}"), vector(i, 2.0).into());
        vectors.insert(format!("m{i}"), vector(50 + i, -2.0).into());
        protected.push_str(&format!("c{i},christian\nm{i},muslim\n"));
    }
    for i in 0..15 {
        vectors.insert(format!("good{i}"), vector(100 + i, 1.0).into());
        vectors.insert(format!("bad{i}"), vector(200 + i, -1.0).into());
        stereotyped.push_str(&format!("good{i},good,adj\nbad{i},bad,adj\n"));
    }
    let paths = (
        dir.join("vectors.json"),
        dir.join("religion.csv"),
        dir.join("quality.csv"),
    );
    std::fs::write(&paths.0, Value::Object(vectors).to_string()).unwrap();
    std::fs::write(&paths.1, protected).unwrap();
    std::fs::write(&paths.2, stereotyped).unwrap();
    paths
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("lmbias-probe-cli-{}-{name}", std::process::id()))
}

#[test]
fn sweep_on_planted_vectors() {
    let dir = tmp("sweep");
    let (vectors, protected, stereotyped) = planted(&dir);
    let figures = dir.join("figures");
    let args = [
        "probe",
        "--embeddings",
        vectors.to_str().unwrap(),
        "--protected",
        protected.to_str().unwrap(),
        "--stereotyped",
        stereotyped.to_str().unwrap(),
        "--sweep",
        "--json",
        "--figures",
        figures.to_str().unwrap(),
    ];
    let (ok, stdout, stderr) = lmbias(&args);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    // docs/results-format.md: {"provenance", "words", "runs": [{model, pair, rows, cols,
    // relevance_order, sweep}]}; the dimensions of size n are the first n of the order.
    assert_eq!(out["words"], serde_json::json!(["precomputed"]));
    assert_eq!(
        out["provenance"][0]["inputs"][0]["file"],
        protected.to_str().unwrap()
    );
    let run = &out["runs"][0];
    assert_eq!(run["pair"], "religion × quality");
    let order = run["relevance_order"].as_array().unwrap();
    assert_eq!(order.len(), DIMS as usize);
    assert_eq!(order[0], PLANTED);
    let sweep = run["sweep"].as_array().unwrap();
    assert_eq!(sweep.len(), DIMS as usize - 1);
    let first = &sweep[0];
    assert_eq!(first["n"], 2);
    assert_eq!(run["rows"], serde_json::json!(["bad", "good"]));
    assert_eq!(run["cols"], serde_json::json!(["christian", "muslim"]));
    // Every stereotyped word is counted once at every size.
    for step in sweep {
        let total: u64 = step["table"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r.as_array().unwrap())
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(total, 30, "{step}");
    }
    // With the planted dimension and one more, the association is strong.
    let table = &first["table"];
    assert!(
        table[0][1].as_u64().unwrap() >= 13 && table[1][0].as_u64().unwrap() >= 13,
        "{table}"
    );
    assert!(first["p_value"].as_f64().unwrap() < 1e-4, "{first}");
    assert_eq!(first["dof"], 1);
    // One figure, named for the model and the pair, as reproduce-paper names them, as SVG,
    // PNG and PDF.
    let mut files: Vec<_> = std::fs::read_dir(&figures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    files.retain(|f| f.extension().is_some_and(|x| x == "svg"));
    assert!(
        files[0].to_str().unwrap().ends_with("-p-vs-n.svg"),
        "{files:?}"
    );
    let figure = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        figure.starts_with("<svg")
            && figure.contains("p = 0.05")
            && figure.contains("religion × quality")
    );

    // One size, as Markdown.
    let (ok, stdout, stderr) = lmbias(
        &args[..7]
            .iter()
            .copied()
            .chain(["--n", "1"])
            .collect::<Vec<_>>(),
    );
    assert!(ok, "{stderr}");
    // Dusi's Table 1 layout: predictions down, actual classes across, in file order.
    assert!(
        stdout.contains(
            "| n = 1 | good | bad | total |\n|---|---|---|---|\n\
             | predicted christian | 15 | 0 | 15 |\n\
             | predicted muslim | 0 | 15 | 15 |\n\
             | total | 15 | 15 | 30 |\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("χ² = "), "{stdout}");
}

/// `--font-size 9`: the figure prints 9/11 the size of the default one, the same drawing
/// inside (one viewBox), and stderr says so; a size out of range, or without `--figures`,
/// is a one-line error.
#[test]
fn font_size_scales_the_printed_figure() {
    let dir = tmp("font-size");
    let (vectors, protected, stereotyped) = planted(&dir);
    let draw = |font: Option<&str>| -> (String, String) {
        let figures = dir.join(format!("figures-{}", font.unwrap_or("default")));
        let mut args = vec![
            "probe",
            "--embeddings",
            vectors.to_str().unwrap(),
            "--protected",
            protected.to_str().unwrap(),
            "--stereotyped",
            stereotyped.to_str().unwrap(),
            "--figures",
            figures.to_str().unwrap(),
        ];
        args.extend(font.map(|f| ["--font-size", f]).into_iter().flatten());
        let (ok, _, stderr) = lmbias(&args);
        assert!(ok, "{stderr}");
        let svg = std::fs::read_dir(&figures)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "svg"))
            .unwrap();
        (std::fs::read_to_string(svg).unwrap(), stderr)
    };
    let size = |svg: &str, name: &str| -> f64 {
        let value = svg.split(&format!(" {name}=\"")).nth(1).unwrap();
        value.split("pt\"").next().unwrap().parse().unwrap()
    };
    let (default, said) = draw(None);
    let (small, said_small) = draw(Some("9"));
    for name in ["width", "height"] {
        let ratio = size(&small, name) / size(&default, name);
        assert!((ratio - 9.0 / 11.0).abs() < 1e-3, "{name}: {ratio}");
    }
    let view_box = |svg: &str| svg.split("viewBox=").nth(1).unwrap()[..20].to_owned();
    assert_eq!(view_box(&small), view_box(&default));
    assert!(said.contains(" pt, text 11 pt\n"), "{said}");
    assert!(
        said_small.contains(&format!(
            "-p-vs-n (.svg, .png, .pdf): {:.0} × {:.0} pt, text 9 pt\n",
            size(&small, "width"),
            size(&small, "height")
        )),
        "{said_small}"
    );

    let v = vectors.to_str().unwrap();
    let (p, s) = (protected.to_str().unwrap(), stereotyped.to_str().unwrap());
    let base = [
        "probe",
        "--embeddings",
        v,
        "--protected",
        p,
        "--stereotyped",
        s,
    ];
    let figures = dir.join("refused");
    let run = |extra: &[&str]| {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        lmbias(&args)
    };
    let (ok, _, stderr) = run(&["--figures", figures.to_str().unwrap(), "--font-size", "40"]);
    assert!(!ok);
    assert!(
        stderr.contains("a font size of 40 pt: give 5 to 36 pt"),
        "{stderr}"
    );
    let (ok, _, stderr) = run(&["--font-size", "9"]);
    assert!(!ok);
    assert!(stderr.contains("--figures <DIR>"), "{stderr}");
    assert!(!figures.exists());
}

#[test]
fn bad_input_gets_one_line_naming_the_file() {
    let dir = tmp("errors");
    let (vectors, protected, stereotyped) = planted(&dir);
    let (v, p, s) = (
        vectors.to_str().unwrap(),
        protected.to_str().unwrap(),
        stereotyped.to_str().unwrap(),
    );
    let run = |protected: &str, extra: &[&str]| {
        let mut args = vec![
            "probe",
            "--embeddings",
            v,
            "--protected",
            protected,
            "--stereotyped",
            s,
        ];
        args.extend_from_slice(extra);
        let (ok, _, stderr) = lmbias(&args);
        assert!(!ok);
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        stderr
    };
    let missing = dir.join("missing.csv");
    std::fs::write(
        &missing,
        "word,value\nc0,christian\nc1,christian\nghost,muslim\nm1,muslim\n",
    )
    .unwrap();
    let err = run(missing.to_str().unwrap(), &[]);
    assert!(
        err.contains("vectors.json") && err.contains("ghost"),
        "{err}"
    );
    let small = dir.join("small.csv");
    std::fs::write(
        &small,
        "word,value\nc0,christian\nc1,christian\nm1,muslim\n",
    )
    .unwrap();
    let err = run(small.to_str().unwrap(), &[]);
    assert!(
        err.contains("small.csv: class \"muslim\" has 1 word"),
        "{err}"
    );
    let dup = dir.join("dup.csv");
    std::fs::write(
        &dup,
        "word,value\nc0,christian\nc1,christian\nm1,muslim\nc0,muslim\n",
    )
    .unwrap();
    let err = run(dup.to_str().unwrap(), &[]);
    assert!(err.contains("dup.csv:5: duplicate word \"c0\""), "{err}");
    let err = run(p, &["--n", "17"]);
    assert!(
        err.contains("n 17: must be between 1 and the hidden size 16"),
        "{err}"
    );
}

#[test]
fn model_embeds_the_shipped_lists() {
    let model = repo().join("tests/fixtures/models/tiny-bert-mlm");
    let data = repo().join("datasets/probe");
    let (templates, religion, adjectives) = (
        data.join("templates.txt"),
        data.join("religion.csv"),
        data.join("adjectives.csv"),
    );
    let args = [
        "probe",
        "--model",
        model.to_str().unwrap(),
        "--templates",
        templates.to_str().unwrap(),
        "--protected",
        religion.to_str().unwrap(),
        "--stereotyped",
        adjectives.to_str().unwrap(),
        "--n",
        "8",
        "--json",
    ];
    let (ok, stdout, stderr) = lmbias(&args);
    assert!(ok, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let run = &out["runs"][0];
    assert_eq!(
        run["relevance_order"].as_array().unwrap().len(),
        32,
        "the tiny model's hidden size"
    );
    assert_eq!(out["words"], serde_json::json!(["templates"]));
    assert_eq!(out["provenance"][0]["options"]["layer"], "last");
    let step = &run["sweep"][0];
    assert_eq!(step["n"], 8);
    assert_eq!(run["rows"], serde_json::json!(["negative", "positive"]));
    let words = std::fs::read_to_string(data.join("adjectives.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .count() as u64;
    let total: u64 = step["table"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(total, words);
}
