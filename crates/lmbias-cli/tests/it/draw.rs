//! `lmbias draw-sentences` and `lmbias draw-pairs` on corpora given as files: what they write
//! is what lmbias-runs' `draw` gives, and bad corpora or outputs are one-line errors.

use std::path::{Path, PathBuf};

use crate::support::lmbias;

/// Held-out passages (numbered from 1) in two wordings and two training corpora where
/// *thee*/*hath*/*unto* lean Early Modern and *you*/*has*/*to* Modern.
fn corpora(dir: &Path) -> [PathBuf; 4] {
    let (mut early, mut modern) = (String::new(), String::new());
    for k in 0..12 {
        let (e, m) = if k % 2 == 0 {
            (
                format!("and he spoke of thee and bread {k}"),
                format!("and he spoke of you and bread {k}"),
            )
        } else {
            (
                format!("the river runs west {k}"),
                format!("the river runs west {k}"),
            )
        };
        early.push_str(&format!("{e}\n"));
        modern.push_str(&format!("{m}\n"));
    }
    let train = |word: &str| -> String { (0..60).map(|i| format!("{word} line {i}\n")).collect() };
    let files = [
        "early.txt",
        "modern.txt",
        "early-train.txt",
        "modern-train.txt",
    ]
    .map(|n| dir.join(n));
    for (file, text) in files.iter().zip([
        early,
        modern,
        train("he hath said unto thee that thou art"),
        train("he has said to you that you are"),
    ]) {
        std::fs::write(file, text).unwrap();
    }
    files
}

fn args<'a>(files: &'a [PathBuf; 4], out: &'a Path) -> Vec<&'a str> {
    vec![
        "--held-out",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        "--training",
        files[2].to_str().unwrap(),
        files[3].to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]
}

#[test]
fn draw_sentences_writes_a_valence_dataset_and_draw_pairs_a_pairs_file() {
    let dir = tempfile::tempdir().unwrap();
    let files = corpora(dir.path());
    let out = dir.path().join("drawn.json");
    let mut call = vec!["draw-sentences"];
    call.extend(args(&files, &out));
    call.extend(["--per-group", "2", "--seed", "3", "--mask", "<mask>"]);
    let (ok, _, err) = lmbias(&call);
    assert!(ok, "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let sentences = json["sentences"].as_array().unwrap();
    let ids: Vec<&str> = sentences
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    // Lines of a text file number the passages: the swaps are the odd lines.
    assert_eq!(
        ids.iter().filter(|i| i.starts_with("eme-")).count(),
        2,
        "{ids:?}"
    );
    assert!(
        ids.iter()
            .all(|i| i.rsplit('-').next().unwrap().parse::<usize>().unwrap() <= 12)
    );
    assert!(
        sentences
            .iter()
            .any(|s| s["text"].as_str().unwrap().contains("<mask>"))
    );
    assert_eq!(json["provenance"]["seed"], "3");

    let pairs = dir.path().join("pairs.csv");
    let mut call = vec!["draw-pairs"];
    call.extend(args(&files, &pairs));
    let (ok, _, err) = lmbias(&call);
    assert!(ok, "{err}");
    let csv = std::fs::read_to_string(&pairs).unwrap();
    assert_eq!(csv.lines().count(), 1 + 6, "{csv}");
    assert!(csv.contains("\n1,\"and he spoke of thee and bread 0\",\"and he spoke of you and bread 0\",stereo,period,\"thee\",\"you\"\n"), "{csv}");
}

#[test]
fn bad_corpora_and_outputs_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let files = corpora(dir.path());
    let out = dir.path().join("drawn.json");
    // More sentences than passages that qualify.
    let mut call = vec!["draw-sentences"];
    call.extend(args(&files, &out));
    call.extend(["--per-group", "50"]);
    let (ok, _, err) = lmbias(&call);
    assert!(!ok);
    assert_eq!(
        err,
        format!(
            "error: {} and {}: 6 held-out verse pairs differ at a period-marked word: too few for \
             50 Early Modern and 50 Modern sentences\n",
            files[0].display(),
            files[1].display()
        )
    );
    assert!(!out.exists(), "nothing written");
    // Unaligned held-out files.
    std::fs::write(&files[1], "only one line\n").unwrap();
    let mut call = vec!["draw-pairs"];
    call.extend(args(&files, &out));
    let (ok, _, err) = lmbias(&call);
    assert!(!ok);
    assert!(
        err.starts_with("error: ") && err.contains("not aligned (12 passages against 1)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // An output that is one of the corpora is refused before anything is read.
    let mut call = vec!["draw-pairs"];
    call.extend(args(&files, &files[2]));
    let (ok, _, err) = lmbias(&call);
    assert!(!ok);
    assert!(err.starts_with("error: --out "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // --per-group 0 is refused by its option.
    let (ok, _, err) = lmbias(&["draw-sentences", "--per-group", "0"]);
    assert!(!ok && err.contains("--per-group"), "{err}");
}

#[test]
fn hold_out_writes_what_the_draws_read() {
    let dir = tempfile::tempdir().unwrap();
    let (mut early, mut modern) = (String::new(), String::new());
    for i in 0..120 {
        early.push_str(&format!("and he spoke of thee and bread {i}\n"));
        modern.push_str(&format!("and he spoke of you and bread {i}\n"));
    }
    let (e, m) = (dir.path().join("e.txt"), dir.path().join("m.txt"));
    std::fs::write(&e, early).unwrap();
    std::fs::write(&m, modern).unwrap();
    let out = dir.path().join("split");
    let (ok, stdout, err) = lmbias(&[
        "hold-out",
        "--corpora",
        e.to_str().unwrap(),
        m.to_str().unwrap(),
        "--share",
        "0.25",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        stdout.starts_with("held out 30 of 120 passages: "),
        "{stdout}"
    );
    let files = [
        "early-held-out.jsonl",
        "modern-held-out.jsonl",
        "early-training.txt",
        "modern-training.txt",
    ]
    .map(|n| out.join(n));
    assert_eq!(
        std::fs::read_to_string(&files[2]).unwrap().lines().count(),
        90
    );
    let pairs = dir.path().join("pairs.csv");
    let mut call = vec!["draw-pairs"];
    call.extend(args(&files, &pairs));
    let (ok, _, err) = lmbias(&call);
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read_to_string(&pairs).unwrap().lines().count(),
        1 + 30
    );
    // An --out that is a file, not a folder, is refused before anything is read.
    let (ok, _, err) = lmbias(&[
        "hold-out",
        "--corpora",
        e.to_str().unwrap(),
        m.to_str().unwrap(),
        "--out",
        e.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert_eq!(
        err,
        format!(
            "error: --out {}: not a folder: the files go into a folder of this name\n",
            e.display()
        )
    );
    // A share that is no share is refused by the library, in one line.
    let (ok, _, err) = lmbias(&[
        "hold-out",
        "--corpora",
        e.to_str().unwrap(),
        m.to_str().unwrap(),
        "--share",
        "1.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert_eq!(
        err,
        "error: share 1.5: the share of passages held out must be above 0 and below 1\n"
    );
}
