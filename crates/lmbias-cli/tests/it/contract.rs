//! One output contract for every command (issue #49, item 2): each command that prints
//! results takes `--json`, `--csv`, `--markdown` and `--output FILE`, and `--figures DIR`
//! with `--font-size PT` where its study draws figures; `--help` shows every required option in its usage line;
//! `lmbias completions SHELL` prints a completion script. The list of commands is read from
//! `lmbias --help`, so a new command must be placed here before the test passes.

use lmbias_testing::{fixtures, repo_root};

use crate::support::lmbias;

/// The commands that print results, and whether each draws figures.
const PRINTING: [(&str, bool); 7] = [
    ("crows", false),
    ("embed", false),
    ("fill-mask", false),
    ("probe", true),
    ("seat", true),
    ("valence", true),
    ("weat", false),
];

/// The commands that write files named by their own options (a split, a dataset, a model).
const MAKING: [&str; 4] = ["draw-pairs", "draw-sentences", "hold-out", "train-mlm"];

/// Each command's required options, as its usage line must show them.
const REQUIRED: [(&str, &[&str]); 11] = [
    ("crows", &["--model <MODEL>...", "--pairs <PAIRS>"]),
    ("draw-pairs", &["--held-out", "--training", "--out <OUT>"]),
    (
        "draw-sentences",
        &["--held-out", "--training", "--out <OUT>"],
    ),
    ("embed", &["--model <MODEL>"]),
    ("fill-mask", &["--model <MODEL>"]),
    ("hold-out", &["--corpora", "--out <OUT>"]),
    (
        "probe",
        &[
            "--protected <PROTECTED>",
            "--stereotyped <STEREOTYPED>",
            "--embeddings <FILE>",
            "--model <MODEL>",
        ],
    ),
    (
        "seat",
        &[
            "--model <MODEL>...",
            "--test <TEST>...",
            "--merge <FILE>...",
        ],
    ),
    ("train-mlm", &["--corpus <CORPUS>", "--output <OUTPUT>"]),
    ("valence", &["--model <MODEL>...", "--dataset <DATASET>"]),
    ("weat", &["--embeddings <EMBEDDINGS>", "--test <TEST>"]),
];

fn help(args: &[&str]) -> String {
    let (ok, out, err) = lmbias(args);
    assert!(ok, "{err}");
    out
}

#[test]
fn every_command_takes_the_same_output_options_and_shows_what_it_requires() {
    let top = help(&["--help"]);
    let commands: Vec<&str> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        // A command's line is indented two spaces; a wrapped description, more.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| !["help", "completions"].contains(c))
        .collect();
    let mut known: Vec<&str> = PRINTING.iter().map(|(c, _)| *c).chain(MAKING).collect();
    known.sort_unstable();
    assert_eq!(
        commands, known,
        "a command is neither printing nor making: place it above"
    );
    assert!(top.contains("--offline"), "{top}");
    for (command, figures) in PRINTING {
        let text = help(&[command, "--help"]);
        for option in ["--json", "--csv", "--markdown", "--output <FILE>"] {
            assert!(text.contains(option), "{command} lacks {option}:\n{text}");
        }
        assert_eq!(
            text.contains("--figures <DIR>"),
            figures,
            "{command}:\n{text}"
        );
        assert_eq!(
            text.contains("--font-size <PT>"),
            figures,
            "{command}:\n{text}"
        );
        // The studies name their models in tables and legends: each takes --label.
        let studies = ["crows", "probe", "seat", "valence"];
        assert_eq!(
            text.contains("--label <NAME>"),
            studies.contains(&command),
            "{command}"
        );
    }
    for (command, required) in REQUIRED {
        let text = help(&[command, "--help"]);
        let usage = text
            .split("\n\n")
            .find(|p| p.starts_with("Usage:"))
            .unwrap();
        assert!(usage.starts_with("Usage: lmbias"), "{command}:\n{text}");
        for option in required {
            assert!(
                usage.contains(option),
                "{command}: usage without {option}:\n{usage}"
            );
        }
    }
}

#[test]
fn completions_name_every_command() {
    let script = help(&["completions", "bash"]);
    for (command, _) in PRINTING {
        assert!(script.contains(command), "{command}");
    }
    for command in MAKING {
        assert!(script.contains(command), "{command}");
    }
    let fish = help(&["completions", "fish"]);
    assert!(fish.contains("complete -c lmbias"), "{fish}");
    let (ok, _, err) = lmbias(&["completions", "tcsh"]);
    assert!(!ok && err.contains("invalid value 'tcsh'"), "{err}");
}

/// `--output FILE` writes what stdout would have had, into FILE, and nothing to stdout; a
/// run that fails leaves an older FILE as it was and no temporary file beside it.
#[test]
fn output_writes_the_file_only_when_the_command_succeeds() {
    let dir = std::env::temp_dir().join(format!("lmbias-contract-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let refs = fixtures().join("sent-bias-ref");
    let (emb, test) = (refs.join("exact_n6.emb.json"), refs.join("exact_n6.jsonl"));
    let args = |format: &str, out: &std::path::Path| {
        vec![
            "weat".to_owned(),
            "--embeddings".to_owned(),
            emb.display().to_string(),
            "--test".to_owned(),
            test.display().to_string(),
            format.to_owned(),
            "--output".to_owned(),
            out.display().to_string(),
        ]
    };
    let run = |args: Vec<String>| lmbias(&args.iter().map(String::as_str).collect::<Vec<_>>());
    for format in ["--json", "--csv", "--markdown"] {
        let file = dir.join(format!("weat{format}"));
        let (ok, stdout, err) = run(args(format, &file));
        assert!(ok, "{err}");
        assert_eq!(stdout, "");
        let written = std::fs::read_to_string(&file).unwrap();
        let (_, printed, _) = run(args(format, &file)[..6].to_vec());
        assert_eq!(written, printed, "{format}");
    }
    // A failure (a test file that is not there) leaves the older file as it was.
    let file = dir.join("weat--json");
    let before = std::fs::read(&file).unwrap();
    let mut failing = args("--json", &file);
    failing[4] = dir.join("missing.jsonl").display().to_string();
    let (ok, _, err) = run(failing);
    assert!(!ok, "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The tools' CSV and Markdown: a header and one row per result (weat one, fill-mask one per
/// text and rank, embed one per text with its vector's values), readable by a CSV reader.
#[test]
fn the_tools_print_csv_and_markdown() {
    let refs = fixtures().join("sent-bias-ref");
    let (emb, test) = (refs.join("exact_n6.emb.json"), refs.join("exact_n6.jsonl"));
    let (e, t) = (emb.to_str().unwrap(), test.to_str().unwrap());
    let rows = |csv: &str| -> Vec<csv::StringRecord> {
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        reader.records().map(Result::unwrap).collect()
    };
    let csv = help(&["weat", "--embeddings", e, "--test", t, "--csv"]);
    assert!(
        csv.starts_with(
            "test,category_targ1,category_targ2,category_attr1,category_attr2,size_targ1,"
        ),
        "{csv}"
    );
    assert_eq!(rows(&csv).len(), 1);
    let json: serde_json::Value =
        serde_json::from_str(&help(&["weat", "--embeddings", e, "--test", t, "--json"])).unwrap();
    let header = csv.lines().next().unwrap().split(',').collect::<Vec<_>>();
    let row = &rows(&csv)[0];
    let cell = |name: &str| {
        row.get(header.iter().position(|h| *h == name).unwrap())
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        cell("p_value").parse::<f64>().unwrap(),
        json["p_value"].as_f64().unwrap()
    );
    assert_eq!(
        cell("effect_size").parse::<f64>().unwrap(),
        json["effect_size"].as_f64().unwrap()
    );
    let md = help(&["weat", "--embeddings", e, "--test", t, "--markdown"]);
    assert!(
        md.starts_with("| test | category_targ1 |") && md.lines().count() == 3,
        "{md}"
    );

    let model = fixtures().join("models/tiny-bert-mlm");
    let m = model.to_str().unwrap();
    let texts = ["Why wilt [MASK] be offended?", "You [MASK] lovely."];
    let csv = help(&[
        "fill-mask",
        "--model",
        m,
        "--top-k",
        "3",
        "--csv",
        texts[0],
        texts[1],
    ]);
    assert!(csv.starts_with("text,mask,rank,token,id,prob\n"), "{csv}");
    let got = rows(&csv);
    assert_eq!(got.len(), 6);
    assert_eq!(
        (&got[0][0], &got[0][1], &got[0][2], &got[5][0], &got[5][2]),
        (texts[0], "1", "1", texts[1], "3")
    );
    let md = help(&[
        "fill-mask",
        "--model",
        m,
        "--top-k",
        "3",
        "--markdown",
        texts[0],
    ]);
    assert_eq!(md.lines().count(), 2 + 3, "{md}");

    let csv = help(&["embed", "--model", m, "--csv", "thou art", "you are"]);
    let got = rows(&csv);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].len(), 1 + 32);
    assert_eq!(&got[1][0], "you are");
    let json: serde_json::Value =
        serde_json::from_str(&help(&["embed", "--model", m, "--json", "thou art"])).unwrap();
    assert_eq!(
        got[0][1].parse::<f64>().unwrap(),
        json["vectors"][0][0].as_f64().unwrap()
    );
    let md = help(&["embed", "--model", m, "--markdown", "thou art"]);
    assert!(
        md.starts_with("| text | tokens | no vector | norm |") && md.lines().count() == 3,
        "{md}"
    );
    let _ = repo_root();
}

/// `--label`: the results call each model by its label, in rows, tables and the provenance's
/// `label`, while the provenance's `id` stays the folder; a count that is not one per model is
/// refused before any model loads.
#[test]
fn labels_name_the_models_in_the_results() {
    let model = fixtures().join("models/tiny-bert-mlm");
    let m = model.to_str().unwrap();
    let test = repo_root().join("datasets/seat/en/weat6.jsonl");
    let t = test.to_str().unwrap();
    let out: serde_json::Value = serde_json::from_str(&help(&[
        "seat", "--model", m, m, "--label", "first", "second", "--test", t, "--json",
    ]))
    .unwrap();
    let models: Vec<&str> = out["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["first", "second"]);
    assert_eq!(out["provenance"][1]["model"]["id"], m);
    assert_eq!(out["provenance"][1]["model"]["label"], "second");
    let md = help(&["seat", "--model", m, "--label", "tiny BERT", "--test", t]);
    assert!(md.contains("| tiny BERT | weat6 |"), "{md}");
    let (ok, _, err) = lmbias(&["seat", "--model", m, m, "--label", "one", "--test", t]);
    assert!(!ok);
    assert_eq!(
        err.trim_end(),
        "error: --label: 1 label for 2 models: give one per --model, in the same order"
    );
    let valence = repo_root().join("tests/fixtures/valence/tiny-bert-mlm.json");
    let out: serde_json::Value = serde_json::from_str(&help(&[
        "valence",
        "--model",
        m,
        "--label",
        "mine",
        "--dataset",
        valence.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(out["results"][0]["model"], "mine");
}

/// Issue #49, item 1: every command of the README's quickstart runs as written on the files in
/// examples/quickstart/, the model swapped for the tiny fixture (no hub here) and an output
/// file put in a scratch folder.
#[test]
fn the_readme_quickstart_runs_as_written() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let section = readme
        .split("\n## Quickstart with your own data\n")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let model = fixtures()
        .join("models/tiny-bert-mlm")
        .display()
        .to_string();
    let scratch = std::env::temp_dir().join(format!("lmbias-quickstart-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut ran = 0;
    for block in section.split("```sh\n").skip(1) {
        let block = block.split("```").next().unwrap().replace("\\\n", " ");
        for line in block.lines().filter(|l| l.starts_with("lmbias ")) {
            let args: Vec<String> = line
                .split_whitespace()
                .skip(1)
                .map(|a| match a {
                    "bert-base-uncased" => model.clone(),
                    "scored.csv" => scratch.join(a).display().to_string(),
                    _ => a.to_owned(),
                })
                .collect();
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_lmbias"))
                .current_dir(repo_root())
                .args(&args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{line}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert_eq!(ran, 7);
    assert!(
        std::fs::read_to_string(scratch.join("scored.csv"))
            .unwrap()
            .lines()
            .count()
            == 5
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// An interrupted run (Ctrl-C, SIGTERM) leaves neither its `--output` file nor the temporary
/// file beside it, and exits as a shell reports the signal (128 + 2).
#[cfg(unix)]
#[test]
fn an_interrupted_run_leaves_no_output_and_no_temporary_file() {
    let dir = std::env::temp_dir().join(format!("lmbias-interrupt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("vectors.csv");
    // Texts read from a pipe that stays open: the run waits for more, as a long one would.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lmbias"))
        .args(["embed", "--model"])
        .arg(fixtures().join("models/tiny-bert-mlm"))
        .args(["--csv", "--input", "-", "--output"])
        .arg(&out)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, b"thou art\n").unwrap();
    // Wait until the temporary file exists, then interrupt.
    let started = std::time::Instant::now();
    while std::fs::read_dir(&dir).unwrap().count() == 0 {
        assert!(
            started.elapsed().as_secs() < 30,
            "no temporary file appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.code(), Some(130), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
