//! `--input FILE` and `--input -`: texts from a file (lines or JSON lines) or stdin
//! give what the same texts on the command line give; bad inputs are one-line errors.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use lmbias_testing::fixtures;

fn tiny() -> String {
    fixtures()
        .join("models/tiny-bert-mlm")
        .display()
        .to_string()
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lmbias"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn one_line_error(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_owned()
}

/// A file in a scratch folder, removed with it.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("lmbias-input-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, content: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).unwrap();
        path.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const TEXTS: [&str; 3] = [
    "the quick brown fox",
    "\"quoted\" at the start is still a line",
    "a third one",
];

fn embed(input: &[&str], stdin: Option<&str>) -> Output {
    let model = tiny();
    let mut args = vec!["embed", "--model", &model, "--json"];
    args.extend(input);
    run(&args, stdin)
}

#[test]
fn lines_json_lines_and_stdin_give_what_arguments_give() {
    let scratch = Scratch::new("forms");
    let want = ok(&embed(&TEXTS, None));
    let json: serde_json::Value = serde_json::from_str(&want).unwrap();
    assert_eq!(json["vectors"].as_array().unwrap().len(), 3);

    // The second text starts with a quote but is no JSON string: the file is lines.
    let lines = scratch.file(
        "texts.txt",
        &format!("{}\n\n{}\n{}\n", TEXTS[0], TEXTS[1], TEXTS[2]),
    );
    assert_eq!(ok(&embed(&["--input", &lines], None)), want);

    let json_lines = format!(
        "{}\n{}\n{}\n",
        serde_json::json!(TEXTS[0]),
        serde_json::json!({"id": 2, "text": TEXTS[1]}),
        serde_json::json!({"text": TEXTS[2]}),
    );
    let jsonl = scratch.file("texts.jsonl", &json_lines);
    assert_eq!(ok(&embed(&["--input", &jsonl], None)), want);

    assert_eq!(ok(&embed(&["--input", "-"], Some(&json_lines))), want);
    assert_eq!(ok(&embed(&["--input", "-"], Some(&TEXTS.join("\n")))), want);
}

#[test]
fn fill_mask_reads_input_too() {
    let scratch = Scratch::new("fill");
    let model = tiny();
    let texts = ["the [MASK] is here", "what [MASK] you do"];
    let mut args = vec!["fill-mask", "--model", &model, "--json"];
    args.extend(texts);
    let want = ok(&run(&args, None));
    let file = scratch.file("masked.txt", &texts.join("\n"));
    assert_eq!(
        ok(&run(
            &["fill-mask", "--model", &model, "--json", "--input", &file],
            None
        )),
        want
    );
}

#[test]
fn bad_inputs_are_one_line_errors_naming_the_file() {
    let scratch = Scratch::new("errors");
    let missing = scratch.0.join("nope.txt").display().to_string();
    let err = one_line_error(&embed(&["--input", &missing], None));
    assert!(
        err.starts_with(&format!("error: --input {missing}: ")),
        "{err}"
    );

    let empty = scratch.file("empty.txt", "\n  \n");
    assert_eq!(
        one_line_error(&embed(&["--input", &empty], None)),
        format!("error: --input {empty}: no texts (the input is empty or blank)")
    );
    assert_eq!(
        one_line_error(&embed(&["--input", "-"], Some(""))),
        "error: --input standard input: no texts (the input is empty or blank)"
    );

    let mixed = scratch.file("mixed.jsonl", "\"a\"\nplain text\n");
    assert_eq!(
        one_line_error(&embed(&["--input", &mixed], None)),
        format!(
            "error: --input {mixed}: line 2: not a JSON string or object (the first line made \
             the file JSON lines)"
        )
    );

    // Texts on the command line and --input: clap refuses, naming both.
    let file = scratch.file("one.txt", "one\n");
    let out = embed(&["--input", &file, "also this"], None);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: the argument '--input <FILE>' cannot be used with"),
        "{stderr}"
    );
}

/// A text the model refuses is named by its line in the file (blank lines counted), and
/// `--json` prints nothing on stdout: no half document before the error (#35, MINOR list).
#[test]
fn a_refused_text_is_named_by_its_line_and_leaves_stdout_empty() {
    let scratch = Scratch::new("line");
    let long = "a ".repeat(200);
    let file = scratch.file("texts.txt", &format!("hello\n\nworld\n{long}\n"));
    let out = embed(&["--input", &file], None);
    let err = one_line_error(&out);
    assert!(
        err.starts_with(&format!(
            "error: --input {file}: line 4 has 202 tokens, more than the model's 64 positions: "
        )),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // On the command line, a text is still named by its place among the texts.
    let err = one_line_error(&embed(&["hello", &long], None));
    assert!(err.starts_with("error: text 1 has 202 tokens"), "{err}");
}
