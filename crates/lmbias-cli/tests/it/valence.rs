//! `lmbias valence` end to end on the tiny BERT fixture: output formats,
//! figures, and one-line errors naming the file and the sentence id.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::lmbias;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn model() -> String {
    fixtures()
        .join("models/tiny-bert-mlm")
        .to_str()
        .unwrap()
        .to_owned()
}

fn dataset() -> PathBuf {
    fixtures().join("valence/tiny-bert-mlm.json")
}

/// A scratch folder for this test only, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-valence-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture dataset with one substring replaced, written to `dir`.
fn broken_dataset(dir: &Path, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(dataset()).unwrap();
    assert!(text.contains(from), "{from}");
    let path = dir.join("broken.json");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

#[test]
fn json_has_every_sentence_group_and_sweep_point() {
    let (ok, out, err) = lmbias(&[
        "valence",
        "--model",
        &model(),
        "--dataset",
        dataset().to_str().unwrap(),
        "--json",
    ]);
    assert!(ok, "{err}");
    let out: Value = serde_json::from_str(&out).unwrap();
    // docs/results-format.md: {"provenance": [per model], "results": [per model]}.
    let r = &out["results"][0];
    let provenance = &out["provenance"][0];
    assert_eq!(provenance["options"]["top_k"], "5");
    assert_eq!(
        provenance["inputs"][0]["file"],
        dataset().display().to_string()
    );
    assert_eq!(provenance["model"]["origin"]["from"], "folder");
    assert_eq!(r["top_k"], 5);
    assert_eq!(r["dataset"], "tiny-bert-valence");
    assert_eq!(r["sentences"].as_array().unwrap().len(), 5);
    assert_eq!(r["groups"].as_array().unwrap().len(), 2);
    assert_eq!(r["k_sweep"].as_array().unwrap().len(), 6);
    // me-4: only "han" (+1) is annotated in the top 5, so B is its probability,
    // 0.3226 in transformers (tests/fixtures/reference/tiny-bert-mlm.json).
    let me4 = r["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "me-4")
        .unwrap();
    let b = me4["bias"].as_f64().unwrap();
    let p_han = me4["tokens"][0]["prob"].as_f64().unwrap();
    assert_eq!(me4["tokens"][0]["token"], "han");
    assert_eq!(b, p_han);
    assert!((b - 0.3226).abs() < 1e-4, "{b}");
    assert_eq!(me4["tokens"][1]["annotation"], "none");
}

#[test]
fn markdown_csv_unannotated_and_figures() {
    let dir = scratch("figures");
    let (ok, md, err) = lmbias(&[
        "valence",
        "--model",
        &model(),
        "--model",
        &model(),
        "--dataset",
        dataset().to_str().unwrap(),
        "--top-k",
        "10",
        "--figures",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(md.contains("## Model comparison (group means)"), "{md}");
    // Two models given: two comparison rows.
    let comparison = md
        .split("## Model comparison (group means)")
        .nth(1)
        .and_then(|rest| rest.split("## Per group").next())
        .unwrap();
    let rows = comparison
        .lines()
        .filter(|l| l.starts_with(&format!("| {} | 10 |", model())));
    assert_eq!(rows.count(), 2, "{md}");
    let mut svgs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    svgs.sort();
    // One figure per measure, every model in it (the paper's Figures 1 and 2), each also as
    // PNG and PDF (issue #49, item 6).
    assert_eq!(
        svgs,
        [
            "adequacy-k10.pdf",
            "adequacy-k10.png",
            "adequacy-k10.svg",
            "bias-k10.pdf",
            "bias-k10.png",
            "bias-k10.svg"
        ]
    );
    assert!(
        std::fs::read(dir.join("bias-k10.png"))
            .unwrap()
            .starts_with(b"\x89PNG")
    );
    assert!(
        std::fs::read(dir.join("bias-k10.pdf"))
            .unwrap()
            .starts_with(b"%PDF-")
    );
    let svg = std::fs::read_to_string(dir.join("bias-k10.svg")).unwrap();
    // The model given twice: both results' sentences side by side, less those the guard left
    // out (issue #49, item 3): at k = 10, eme-3, eme-5 and me-1 have more than half their mass
    // unrated (tests/it/valence_tiny_bert.rs computes the shares from transformers'), so two
    // of five sentences a model are drawn, and the axis says so.
    assert_eq!(svg.matches("<circle").count(), 4);
    assert!(
        svg.contains("6 sentences left out: unannotated share &gt; 0.5"),
        "{svg}"
    );
    for note in [
        "exceeds 0.5 has no B and no A (–)",
        "3 of 5 sentences left out: eme-3, eme-5, me-1.",
    ] {
        assert!(md.contains(note), "{md}");
    }
    assert!(svg.contains("bias B per sentence group, top-10"), "{svg}");
    // The legend names the model.
    assert!(svg.contains(&format!(">{}</text>", model())), "{svg}");

    let (ok, csv, err) = lmbias(&[
        "valence",
        "--model",
        &model(),
        "--dataset",
        dataset().to_str().unwrap(),
        "--csv",
    ]);
    assert!(ok, "{err}");
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(csv.starts_with("model,k,id,group,v,B,A,unannotated share,proposals\n"));

    let (ok, list, err) = lmbias(&[
        "valence",
        "--model",
        &model(),
        "--dataset",
        dataset().to_str().unwrap(),
        "--unannotated",
        "--csv",
    ]);
    assert!(ok, "{err}");
    // ##ht is proposed unannotated in eme-3, me-1 and me-4 at k = 5.
    let ht = list.lines().find(|l| l.contains(",##ht,")).expect(&list);
    assert!(
        ht.contains(",3,") && ht.ends_with("eme-3 me-1 me-4"),
        "{ht}"
    );
}

#[test]
fn bad_datasets_get_one_line_errors_naming_file_and_sentence() {
    let dir = scratch("errors");
    let cases = [
        (
            "Wherefore art thou [MASK]?",
            "Wherefore [MASK] thou [MASK]?",
            "sentence eme-2: text must contain exactly one [MASK], found 2",
        ),
        (
            r#""group": "ME", "valence": 1"#,
            r#""group": "ME", "valence": 2"#,
            "sentence me-1: valence 2 is not on the scale -1, -0.5, 0, 0.5, 1",
        ),
        (
            r#""id": "me-1""#,
            r#""id": "eme-5""#,
            "sentence eme-5: duplicate id (sentences #3 and #4, counting from 1)",
        ),
    ];
    for (from, to, expected) in cases {
        let path = broken_dataset(&dir, from, to);
        let (ok, out, err) = lmbias(&[
            "valence",
            "--model",
            &model(),
            "--dataset",
            path.to_str().unwrap(),
        ]);
        assert!(!ok && out.is_empty(), "{out}");
        assert_eq!(err, format!("error: {}: {expected}\n", path.display()));
    }
}

/// x of `token` in sentence `s` of a dataset read as plain JSON: the sentence's
/// annotation, else the lexicon's, else none — written here independently of lmbias.
fn x_of(dataset: &Value, s: &Value, token: &str) -> Option<f64> {
    let key = token.to_lowercase();
    s["annotations"][&key]
        .as_f64()
        .or_else(|| dataset["lexicon"][&key].as_f64())
}

/// Keys the model cannot propose are skipped, counted, and change nothing: B, A and
/// the unannotated mass of every sentence equal those computed from transformers'
/// top-5 probabilities (tests/fixtures/reference/tiny-bert-mlm.json) and the annotations.
#[test]
fn keys_outside_the_vocabulary_are_skipped_and_the_numbers_match_transformers() {
    let path = fixtures().join("valence/tiny-bert-mlm-oov.json");
    let (ok, out, err) = lmbias(&[
        "valence",
        "--model",
        &model(),
        "--dataset",
        path.to_str().unwrap(),
        "--top-k",
        "5",
        "--max-unannotated-share",
        "1",
        "--json",
    ]);
    assert!(ok, "{err}");
    let result = &serde_json::from_str::<Value>(&out).unwrap()["results"][0];
    let coverage = &result["coverage"];
    assert_eq!(
        coverage["unusable"],
        serde_json::json!(["email", "gonna", "hither", "internet", "thine", "website"])
    );
    assert_eq!(
        (
            coverage["lexicon_keys"].as_u64(),
            coverage["lexicon_usable"].as_u64()
        ),
        (Some(5), Some(3))
    );
    assert_eq!(
        (
            coverage["annotation_keys"].as_u64(),
            coverage["annotation_usable"].as_u64()
        ),
        (Some(20), Some(14))
    );

    let dataset: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let reference = lmbias_testing::reference("tiny-bert-mlm");
    let mut checked = 0;
    let (mut all_unannotated, mut all_mass) = (0.0, 0.0);
    for s in dataset["sentences"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        let fm = &reference["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()["fill_mask"];
        let (mut b, mut unannotated) = (0.0, 0.0);
        for (token, p) in fm["top10_tokens"]
            .as_array()
            .unwrap()
            .iter()
            .zip(fm["top10_probs"].as_array().unwrap())
            .take(5)
        {
            let p = p.as_f64().unwrap();
            all_mass += p;
            match x_of(&dataset, s, token.as_str().unwrap()) {
                Some(x) => b += x * p,
                None => unannotated += p,
            }
        }
        let v = s["valence"].as_f64().unwrap();
        let ours = result["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap();
        for (what, got, want) in [
            ("B", ours["bias"].as_f64().unwrap(), b),
            (
                "A",
                ours["adequacy"].as_f64().unwrap(),
                1.0 - (v - b).abs() / 2.0,
            ),
            (
                "unannotated mass",
                ours["unannotated_mass"].as_f64().unwrap(),
                unannotated,
            ),
        ] {
            assert!(
                (got - want).abs() < 1e-5,
                "{id} {what}: {got} vs transformers {want}"
            );
        }
        all_unannotated += unannotated;
        checked += 1;
    }
    assert_eq!(checked, 5);

    // The Markdown output says how many keys the model could use, and which share of
    // its top-5 mass no annotation covered (from transformers' probabilities).
    let (ok, out, err) = lmbias(&[
        "valence",
        "--model",
        &model(),
        "--dataset",
        path.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains(&format!(
            "| {} | 5 | 14/20 | 3/5 | {:.3} | email, gonna, hither, internet, thine, website |",
            model(),
            all_unannotated / all_mass
        )),
        "{out}"
    );
}

/// `--valence-from EME ME` rates every proposal of any model: on a dataset whose one
/// annotation the tiny model never proposes, no mass is left unannotated, every proposal is
/// rated from the corpora, and the provenance names both corpora (#34).
#[test]
fn valence_from_two_corpora_rates_every_proposal() {
    let dir = scratch("valence-from");
    let data = dir.join("unannotated.json");
    std::fs::write(
        &data,
        r#"{"name": "u", "lexicon": {"zzzz": -1}, "sentences": [
             {"id": "e1", "group": "EME", "valence": -1, "source": "c", "text": "Why wilt [MASK] be offended?",
              "annotations": {"zounds": -1}},
             {"id": "m1", "group": "ME", "valence": 1, "source": "c", "text": "Are [MASK] coming tonight?"}]}"#,
    )
    .unwrap();
    let eme = dir.join("eme.txt");
    let me = dir.join("me.txt");
    std::fs::write(&eme, "thou art fair and thou art kind\n".repeat(30)).unwrap();
    std::fs::write(&me, "you are fair and you are kind\n".repeat(30)).unwrap();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "valence",
            "--model",
            &model(),
            "--dataset",
            data.to_str().unwrap(),
            "--json",
        ]
        .map(str::to_owned)
        .to_vec();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str]| -> Value {
        let a = args(extra);
        let (ok, out, err) = lmbias(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(ok, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let plain = run(&[]);
    let unannotated = |v: &Value| -> f64 {
        v["results"][0]["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["unannotated_mass"].as_f64().unwrap())
            .sum()
    };
    assert!(
        unannotated(&plain) > 0.0,
        "the fixture leaves mass unannotated"
    );
    let rated = run(&[
        "--valence-from",
        eme.to_str().unwrap(),
        me.to_str().unwrap(),
    ]);
    assert_eq!(unannotated(&rated), 0.0);
    for s in rated["results"][0]["sentences"].as_array().unwrap() {
        for t in s["tokens"].as_array().unwrap() {
            assert_eq!(t["annotation"], "corpus", "{t}");
        }
    }
    let inputs: Vec<&str> = rated["provenance"][0]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap())
        .collect();
    assert_eq!(inputs[1..], [eme.to_str().unwrap(), me.to_str().unwrap()]);
    assert_eq!(
        rated["provenance"][0]["options"]["valence_min_context"],
        "5"
    );
    // The corpora against the annotations: one pair, "zounds" (−1 by hand), unseen by both
    // corpora (0): κ 0, ρ undefined with one pair.
    let agreement = &rated["corpus_agreement"];
    assert_eq!(agreement["pairs"], 1);
    assert_eq!(agreement["with_context"]["kappa_linear"], 0.0);
    assert!(agreement["with_context"]["rho"].is_null());
    assert!(plain.get("corpus_agreement").is_none());
    let a = args(&[
        "--markdown",
        "--valence-from",
        eme.to_str().unwrap(),
        me.to_str().unwrap(),
    ]);
    let a: Vec<&str> = a
        .iter()
        .map(String::as_str)
        .filter(|s| *s != "--json")
        .collect();
    let (ok, markdown, err) = lmbias(&a);
    assert!(ok, "{err}");
    assert!(
        markdown.contains(
            "## Corpus-derived valence against the annotations\n\n1 annotated (sentence, word) \
             pairs, 0 of them rated with a neighbour in the sentence."
        ),
        "{markdown}"
    );

    // Bad corpora: one line each, naming the option and the file(s).
    let refused = |extra: &[&str], want: &str| {
        let a = args(extra);
        let (ok, _, err) = lmbias(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(!ok);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: --valence-from: ") && err.contains(want),
            "{err} lacks {want}"
        );
    };
    let e = eme.to_str().unwrap();
    refused(
        &["--valence-from", e, e],
        "eme.txt: given as both the Early Modern and the Modern corpus",
    );
    // Two files with one text: refused, not rated 0 throughout (issue #47).
    let copy = dir.join("copy.txt");
    std::fs::copy(&eme, &copy).unwrap();
    refused(
        &["--valence-from", e, copy.to_str().unwrap()],
        "copy.txt: the same text (sha256 ",
    );
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "\n \n").unwrap();
    refused(
        &[
            "--valence-from",
            empty.to_str().unwrap(),
            me.to_str().unwrap(),
        ],
        "empty.txt: the corpus has no passage",
    );
    refused(
        &[
            "--valence-from",
            e,
            me.to_str().unwrap(),
            "--valence-thresholds",
            "3",
            "2",
        ],
        "thresholds 3 and 2 must satisfy 0 < first ≤ second",
    );
    // Thresholds no z reaches: every corpus rating is 0, so B is 0 for every sentence.
    let strict = run(&[
        "--valence-from",
        e,
        me.to_str().unwrap(),
        "--valence-thresholds",
        "1000",
        "2000",
    ]);
    for s in strict["results"][0]["sentences"].as_array().unwrap() {
        assert_eq!(s["bias"], 0.0, "{s}");
    }
    assert_eq!(strict["provenance"][0]["options"]["valence_z_half"], "1000");
    let (ok, _, err) = lmbias(&[
        "valence",
        "--model",
        &model(),
        "--dataset",
        data.to_str().unwrap(),
        "--valence-alpha0",
        "5",
    ]);
    assert!(!ok && err.contains("--valence-from"), "{err}");
    let turkish = dir.join("tr.txt");
    std::fs::write(&turkish, "bir iki üç\n").unwrap();
    refused(
        &["--valence-from", e, turkish.to_str().unwrap()],
        "the two corpora share no word: they cannot be two periods of one language",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--lexicon FILE` rates every proposal by the lexicon alone (issue #46): every token's source
/// is the lexicon, a listed word gets its value, any other 0; the annotations play no part;
/// the lexicon joins the provenance's inputs. A bad lexicon is one line naming file and line.
#[test]
fn a_lexicon_rates_every_proposal() {
    let dir = scratch("lexicon");
    let lexicon = dir.join("lexicon.tsv");
    std::fs::write(
        &lexicon,
        "# a lexicon\nthou\t-1\tonly Early Modern\nyou\t1\tsay\n",
    )
    .unwrap();
    let (data, model) = (dataset(), model());
    let run = |extra: &[&str]| -> (bool, String, String) {
        let mut a = vec![
            "valence",
            "--model",
            &model,
            "--dataset",
            data.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        lmbias(&a)
    };
    let (ok, out, err) = run(&["--lexicon", lexicon.to_str().unwrap(), "--json"]);
    assert!(ok, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let (mut tokens, sentences) = (0, json["results"][0]["sentences"].as_array().unwrap());
    for s in sentences {
        for t in s["tokens"].as_array().unwrap() {
            tokens += 1;
            assert_eq!(t["annotation"], "lexicon", "{t}");
            let want = match t["token"].as_str().unwrap().to_lowercase().as_str() {
                "thou" => -1.0,
                "you" => 1.0,
                _ => 0.0,
            };
            assert_eq!(t["valence"].as_f64().unwrap(), want, "{t}");
        }
        assert_eq!(s["unannotated_mass"], 0.0);
    }
    // Top 5 at every sentence, each rated.
    assert_eq!(tokens, 5 * sentences.len());
    let provenance = &json["provenance"][0];
    assert_eq!(provenance["inputs"][1]["file"], lexicon.to_str().unwrap());
    assert_eq!(provenance["options"]["rater"], "lexicon");
    // A lexicon and corpora at once: the lexicon leaves nothing to rate.
    let (ok, _, err) = run(&[
        "--lexicon",
        lexicon.to_str().unwrap(),
        "--valence-from",
        "a",
        "b",
    ]);
    assert!(
        !ok && err.contains("--lexicon") && err.contains("--valence-from"),
        "{err}"
    );
    // Bad lexicons: one line, naming the option, the file and the line.
    for (text, want) in [
        (
            "thou\t-0.7\tr\n",
            "lexicon.tsv:1: valence \"-0.7\" of \"thou\" is not on the scale",
        ),
        (
            "thou\t-1\n",
            "lexicon.tsv:1: 2 tab-separated fields, expected 3",
        ),
        (
            "thou\t-1\tr\nthou\t-1\tr\n",
            "lexicon.tsv:2: \"thou\" is listed twice (first at line 1)",
        ),
        ("", "lexicon.tsv: no word"),
    ] {
        std::fs::write(&lexicon, text).unwrap();
        let (ok, _, err) = run(&["--lexicon", lexicon.to_str().unwrap()]);
        assert!(!ok);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: --lexicon: ") && err.contains(want),
            "{err} lacks {want}"
        );
    }
    // --valence-min-log-odds is checked and recorded.
    let eme = dir.join("eme.txt");
    let me = dir.join("me.txt");
    std::fs::write(&eme, "thou art fair and thou art kind\n".repeat(30)).unwrap();
    std::fs::write(&me, "you are fair and you are kind\n".repeat(30)).unwrap();
    let (e, m) = (eme.to_str().unwrap(), me.to_str().unwrap());
    let (ok, out, err) = run(&[
        "--valence-from",
        e,
        m,
        "--valence-min-log-odds",
        "1.5",
        "--json",
    ]);
    assert!(ok, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        json["provenance"][0]["options"]["valence_min_log_odds"],
        "1.5"
    );
    let (ok, _, err) = run(&["--valence-from", e, m, "--valence-min-log-odds", "-1"]);
    assert!(
        !ok && err.contains("the log-odds floor -1 must be a finite number ≥ 0"),
        "{err}"
    );
}

/// Issue #49, item 3: a sentence the guard leaves out has B and A null in JSON and "–" in CSV,
/// and a guard that is not a share is refused in one line before any model loads.
#[test]
fn the_guard_prints_null_and_dash_and_refuses_a_non_share() {
    let args = |extra: &[&str]| {
        let mut args = vec![
            "valence".to_owned(),
            "--model".to_owned(),
            model(),
            "--dataset".to_owned(),
            dataset().display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let run = |extra: &[&str]| {
        let args = args(extra);
        lmbias(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (ok, out, err) = run(&["--json"]);
    assert!(ok, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let sentences = json["results"][0]["sentences"].as_array().unwrap();
    let me1 = sentences.iter().find(|s| s["id"] == "me-1").unwrap();
    assert!(me1["unannotated_share"].as_f64().unwrap() > 0.5, "{me1}");
    assert_eq!(
        (&me1["bias"], &me1["adequacy"]),
        (&Value::Null, &Value::Null)
    );
    let me4 = sentences.iter().find(|s| s["id"] == "me-4").unwrap();
    assert!(me4["unannotated_share"].as_f64().unwrap() <= 0.5, "{me4}");
    assert!(me4["bias"].is_f64());
    assert_eq!(json["results"][0]["max_unannotated_share"], 0.5);
    assert_eq!(
        json["provenance"][0]["options"]["max_unannotated_share"],
        "0.5"
    );
    let (ok, csv, err) = run(&["--csv"]);
    assert!(ok, "{err}");
    let line = csv.lines().find(|l| l.contains(",me-1,")).unwrap();
    assert!(line.contains(",1,–,–,0.6"), "{line}");
    for bad in ["1.5", "-0.1", "half"] {
        let (ok, _, err) = run(&["--max-unannotated-share", bad]);
        assert!(!ok);
        assert!(
            err.starts_with(&format!(
                "error: invalid value '{bad}' for '--max-unannotated-share <SHARE>': expected a share from 0 to 1"
            )),
            "{err}"
        );
    }
}
