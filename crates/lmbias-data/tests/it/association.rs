//! Association tests: sent-bias's files load unmodified; every bad input is a one-line error
//! naming the file and the set or field.

use std::path::{Path, PathBuf};

use lmbias_data::{
    AssociationError, AssociationTest, Duplicates, LoadOptions, Role, TargetSizes, load_battery,
};

use crate::chain;

fn seat_en() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/seat/en")
}

fn parse(json: &str, options: &LoadOptions) -> Result<AssociationTest, AssociationError> {
    AssociationTest::from_slice(Path::new("dir/mytest.jsonl"), json.as_bytes(), options)
}

fn spec(targ1: &str, targ2: &str) -> String {
    format!(
        r#"{{"targ1": {{"category": "Flowers", "examples": {targ1}}},
            "targ2": {{"category": "Insects", "examples": {targ2}}},
            "attr1": {{"category": "Pleasant", "examples": ["love", "peace"]}},
            "attr2": {{"category": "Unpleasant", "examples": ["hatred"]}}}}"#
    )
}

fn one_line_error(json: &str, options: &LoadOptions) -> String {
    let message = chain(&parse(json, options).expect_err("must be rejected"));
    assert!(!message.contains('\n'), "not one line: {message}");
    assert!(
        message.starts_with("dir/mytest.jsonl: "),
        "does not name the file: {message}"
    );
    message
}

#[test]
fn sent_bias_weat1_loads_unmodified() {
    let test = AssociationTest::from_path(&seat_en().join("weat1.jsonl"), &LoadOptions::default())
        .unwrap();
    assert_eq!(test.name(), "weat1");
    assert_eq!(test.targ1().category(), "Flowers");
    assert_eq!(test.targ2().category(), "Insects");
    assert_eq!(test.attr1().category(), "Pleasant");
    assert_eq!(test.attr2().category(), "Unpleasant");
    assert_eq!(
        [
            test.targ1().len(),
            test.targ2().len(),
            test.attr1().len(),
            test.attr2().len()
        ],
        [25, 25, 25, 25]
    );
    assert_eq!(test.targ1().examples()[0], "aster");
    assert_eq!(test.set(Role::Attr2).examples()[24], "prison");
}

#[test]
fn the_whole_english_battery_loads_sorted() {
    let battery = load_battery(&[seat_en()], &LoadOptions::default()).unwrap();
    let tests: Vec<&AssociationTest> = battery.iter().map(|b| &b.test).collect();
    let names: Vec<&str> = tests.iter().map(|t| t.name()).collect();
    assert_eq!(names.len(), 46);
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(names[0], "angry_black_woman_stereotype");
    assert!(names.contains(&"heilman_double_bind_competent_1+3-"));
    assert!(names.contains(&"sent-weat8b"));
    // sentence-level weat1: 350 flower/insect sentences per side, 215 pleasant, 250 unpleasant
    let sent_weat1 = tests.iter().find(|t| t.name() == "sent-weat1").unwrap();
    assert_eq!(
        [
            sent_weat1.targ1().len(),
            sent_weat1.attr1().len(),
            sent_weat1.attr2().len()
        ],
        [350, 215, 250]
    );
    assert_eq!(sent_weat1.targ1().examples()[0], "This is an aster.");
}

#[test]
fn a_directory_without_tests_is_an_error() {
    let dir = std::env::temp_dir().join(format!("lmbias-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("README.md"), "not a test").unwrap();
    let err = load_battery(&[&dir], &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "{}: no association tests (*.jsonl or *.json files) in this directory",
            dir.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreadable_files_name_the_file_once_and_keep_the_io_error() {
    let missing = Path::new("/nonexistent/weat1.jsonl");
    let err = AssociationTest::from_path(missing, &LoadOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "/nonexistent/weat1.jsonl: cannot read");
    let line = chain(&err);
    assert!(
        line.starts_with("/nonexistent/weat1.jsonl: cannot read: No such file"),
        "{line}"
    );
    match err {
        AssociationError::Read(read) => {
            assert_eq!(read.source.kind(), std::io::ErrorKind::NotFound)
        }
        other => panic!("{other:?}"),
    }
    let err = load_battery(&[Path::new("/nonexistent")], &LoadOptions::default()).unwrap_err();
    assert!(
        chain(&err).starts_with("/nonexistent: cannot read: "),
        "{err}"
    );
}

#[test]
fn duplicates_are_an_error_unless_merged() {
    let json = spec(r#"["rose", "tulip", "rose"]"#, r#"["ant", "flea", "moth"]"#);
    assert_eq!(
        one_line_error(&json, &LoadOptions::default()),
        "dir/mytest.jsonl: targ1 (\"Flowers\"): example \"rose\" appears more than once (sent-bias silently merges duplicates; `lmbias weat --merge-duplicates`, or merge_duplicates=True in Python, merges them; `lmbias seat` refuses them)"
    );
    let merged = LoadOptions {
        duplicates: Duplicates::Merge,
        target_sizes: TargetSizes::AllowUnequal,
    };
    let test = parse(&json, &merged).unwrap();
    assert_eq!(test.targ1().examples(), ["rose", "tulip"]);
}

#[test]
fn unequal_targets_are_an_error_unless_allowed() {
    let json = spec(r#"["rose", "tulip"]"#, r#"["ant", "flea", "moth"]"#);
    assert_eq!(
        one_line_error(&json, &LoadOptions::default()),
        "dir/mytest.jsonl: targ1 (\"Flowers\") has 2 examples but targ2 (\"Insects\") has 3: sent-bias requires equal target sizes (`lmbias weat --allow-unequal-sizes`, or allow_unequal_sizes=True in Python, runs it anyway; `lmbias seat` keeps the rule)"
    );
    let allow = LoadOptions {
        target_sizes: TargetSizes::AllowUnequal,
        ..LoadOptions::default()
    };
    assert_eq!(parse(&json, &allow).unwrap().targ2().len(), 3);
}

#[test]
fn empty_sets_and_blank_examples_are_named() {
    assert_eq!(
        one_line_error(&spec("[]", "[]"), &LoadOptions::default()),
        "dir/mytest.jsonl: targ1 (\"Flowers\"): has no examples"
    );
    assert_eq!(
        one_line_error(&spec(r#"["rose"]"#, r#"["  "]"#), &LoadOptions::default()),
        "dir/mytest.jsonl: targ2 (\"Insects\"): example 0 is blank"
    );
}

#[test]
fn schema_errors_name_the_field() {
    let missing = r#"{"targ1": {"category": "a", "examples": ["x"]}, "targ2": {"category": "b", "examples": ["y"]},
                     "attr1": {"category": "c", "examples": ["z"]}}"#;
    let err = one_line_error(missing, &LoadOptions::default());
    assert!(err.contains("missing field `attr2`"), "{err}");
    let typo = spec(r#"["rose"]"#, r#"["ant"]"#).replace("\"attr2\"", "\"atr2\"");
    let err = one_line_error(&typo, &LoadOptions::default());
    assert!(err.contains("unknown field `atr2`"), "{err}");
    let wrong_type = spec(r#""rose""#, r#"["ant"]"#);
    let err = one_line_error(&wrong_type, &LoadOptions::default());
    assert!(
        err.contains("invalid type: string \"rose\", expected a sequence"),
        "{err}"
    );
    let err = one_line_error("{\"targ1\": ", &LoadOptions::default());
    assert!(err.contains("EOF while parsing"), "{err}");
    assert!(
        err.starts_with(
            "dir/mytest.jsonl: not an association test ({\"targ1\", \"targ2\", \"attr1\", \"attr2\"}): "
        ),
        "{err}"
    );
    // The serde error stays typed: a caller can point at the line and column.
    match parse("{\n\"targ1\": 1}", &LoadOptions::default()) {
        Err(AssociationError::Json { source, .. }) => assert_eq!(source.line(), 2),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        one_line_error(" \n", &LoadOptions::default()),
        "dir/mytest.jsonl: empty file"
    );
}

#[test]
fn in_memory_tests_are_named_by_their_name() {
    let spec: lmbias_data::TestSpec = serde_json::from_str(&spec("[]", r#"["ant"]"#)).unwrap();
    let err = AssociationTest::new("my-seat", spec, &LoadOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "my-seat: targ1 (\"Flowers\"): has no examples"
    );
}

/// A battery from a folder and a file: tests in order, each with the copy from
/// the `-uncased` folder beside it (Turkish) or none (English); a test named
/// twice names both files.
#[test]
fn batteries_load_in_order_with_their_lowercased_copies() {
    let tr = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/seat/tr");
    let weat1 = seat_en().join("weat1.jsonl");
    let options = LoadOptions::default();
    let battery = load_battery(&[tr.clone(), weat1.clone()], &options).unwrap();
    assert_eq!(battery.len(), 38, "the 37 Turkish tests and weat1");
    let (last, turkish) = battery.split_last().unwrap();
    assert_eq!((last.test.name(), &last.file), ("weat1", &weat1));
    assert!(
        last.lowercased.is_none(),
        "datasets/seat/en has no -uncased copy"
    );
    let tr_uncased = tr.with_file_name("tr-uncased");
    for t in turkish {
        assert_eq!(t.file.parent(), Some(tr.as_path()), "{}", t.test.name());
        let copy = t
            .lowercased
            .as_ref()
            .expect("every Turkish test has a lower-cased copy");
        assert_eq!(copy.test.name(), t.test.name());
        // The copy keeps its own file: same name, in the `-uncased` folder.
        assert_eq!(copy.file, tr_uncased.join(t.file.file_name().unwrap()));
        assert_eq!(t.tests(), (t.test.clone(), Some(copy.test.clone())));
    }
    let err = load_battery(&[weat1.clone(), seat_en()], &options).unwrap_err();
    assert!(matches!(err, AssociationError::DuplicateTest { ref name, .. } if name == "weat1"));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: test weat1 is already loaded from {}",
            seat_en().join("weat1.jsonl").display(),
            weat1.display()
        )
    );
}

/// Within one folder too: `a.json` and `a.jsonl` are two tests named `a`, refused with both
/// files named (sorted by name, then path: `.json` first).
#[test]
fn one_folder_with_two_tests_of_one_name_is_an_error() {
    let dir = std::env::temp_dir().join(format!("lmbias-twice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let weat1 = std::fs::read(seat_en().join("weat1.jsonl")).unwrap();
    for name in ["a.json", "a.jsonl", "b.jsonl"] {
        std::fs::write(dir.join(name), &weat1).unwrap();
    }
    let err = load_battery(&[&dir], &LoadOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: test a is already loaded from {}",
            dir.join("a.jsonl").display(),
            dir.join("a.json").display()
        )
    );
    std::fs::remove_file(dir.join("a.json")).unwrap();
    let battery = load_battery(&[&dir], &LoadOptions::default()).unwrap();
    let files: Vec<&Path> = battery.iter().map(|b| b.file.as_path()).collect();
    assert_eq!(files, [dir.join("a.jsonl"), dir.join("b.jsonl")]);
    std::fs::remove_dir_all(&dir).unwrap();
}
