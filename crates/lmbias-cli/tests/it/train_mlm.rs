//! `lmbias train-mlm` as a user meets it: a trained folder that `lmbias
//! fill-mask` reads, and bad input refused in one line (the library's tests in
//! lmbias-model cover the trainer itself).

use std::path::PathBuf;

use crate::support::lmbias;

fn tiny() -> String {
    lmbias_testing::model_dir("tiny-bert-mlm")
        .display()
        .to_string()
}

fn corpus() -> String {
    lmbias_testing::fixtures()
        .join("generate/corpus.txt")
        .display()
        .to_string()
}

fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-cli-train-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_trained_folder_serves_fill_mask() {
    let dir = scratch_dir("ok");
    let out = dir.join("model");
    let (ok, stdout, stderr) = lmbias(&[
        "train-mlm",
        "--from",
        &tiny(),
        "--corpus",
        &corpus(),
        "--output",
        out.to_str().unwrap(),
        "--steps",
        "4",
        "--batch",
        "4",
        "--log-every",
        "2",
    ]);
    assert!(ok, "{stderr}");
    // Not a terminal: one line per --log-every steps, and a summary on stdout.
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("step ")).count(),
        2,
        "{stderr}"
    );
    assert!(
        stdout.contains("4 steps") && stdout.contains("pseudo-perplexity"),
        "{stdout}"
    );
    let (ok, stdout, stderr) = lmbias(&[
        "fill-mask",
        "--model",
        out.to_str().unwrap(),
        "Thou art [MASK].",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("rank"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Exit 1 and one line on stderr containing `names`; no output folder.
fn refused(args: &[&str], out: &std::path::Path, names: &str) {
    let (ok, _, stderr) = lmbias(args);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(names),
        "{stderr:?} lacks {names:?}"
    );
    assert!(!out.exists());
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let dir = scratch_dir("bad");
    let out = dir.join("model");
    let o = out.to_str().unwrap();
    let (tiny_dir, corpus_file) = (tiny(), corpus());
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "\n  \n").unwrap();
    let e = empty.to_str().unwrap();
    refused(
        &["train-mlm", "--from", &tiny(), "--corpus", e, "--output", o],
        &out,
        "empty.txt: the corpus has no passage",
    );
    let short = dir.join("short.txt");
    std::fs::write(&short, "Thou art.\n").unwrap();
    let s = short.to_str().unwrap();
    refused(
        &["train-mlm", "--from", &tiny(), "--corpus", s, "--output", o],
        &out,
        "short.txt: 1 passage(s)",
    );
    refused(
        &[
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            o,
            "--max-len",
            "600",
        ],
        &out,
        "--max-len 600: above the model's 64 positions",
    );
    // A batch larger than the training set would repeat each sequence many times a step
    // (it ran 81 s at 12 GB for --batch 100000 on 223 sequences): refused before training.
    refused(
        &[
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            o,
            "--batch",
            "100000",
        ],
        &out,
        "--batch 100000: larger than the ",
    );
    // Shapes whose training cannot fit in memory are refused before any allocation (a
    // trillion positions aborted the process; 48 layers of 4096 × 10^6 climbed toward TB).
    for shape in [
        &["--max-positions", "1000000000000"][..],
        &[
            "--hidden",
            "4096",
            "--heads",
            "32",
            "--intermediate",
            "1000000",
            "--layers",
            "48",
        ][..],
    ] {
        let mut args = vec![
            "train-mlm",
            "--scratch",
            "--tokenizer",
            tiny_dir.as_str(),
            "--corpus",
            corpus_file.as_str(),
            "--output",
            o,
        ];
        args.extend(shape);
        refused(
            &args,
            &out,
            "GB to train (f32 weights, gradients and AdamW's two moments)",
        );
    }
    let no_tokenizer = dir.join("no-tokenizer");
    std::fs::create_dir_all(&no_tokenizer).unwrap();
    refused(
        &[
            "train-mlm",
            "--scratch",
            "--tokenizer",
            no_tokenizer.to_str().unwrap(),
            "--corpus",
            &corpus(),
            "--output",
            o,
        ],
        &out,
        "no-tokenizer",
    );
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let under_file = file.join("model");
    refused(
        &[
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            under_file.to_str().unwrap(),
        ],
        &under_file,
        "cannot create the output folder",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
