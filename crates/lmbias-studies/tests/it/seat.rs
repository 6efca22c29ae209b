//! The SEAT battery against a fake embedder with a planted bias: every number
//! must equal lmbias-metrics run directly on the same vectors.

use std::collections::HashMap;
use std::error::Error;
use std::path::PathBuf;

use lmbias_core::testing::{FakeEmbedder, noise};
use lmbias_core::{EncoderError, Layer, Pooling};
use lmbias_data::association::{AssociationTest, LoadOptions, Role};
use lmbias_metrics::correction;
use lmbias_metrics::weat::{self, Associations, Options};
use lmbias_studies::seat::{
    self, Battery, BatteryResult, Copies, CoverageFlag, Lost, LostExample, Refusal, SeatError,
    SeatOptions, SeatRow,
};

const DIM: usize = 6;

/// Vectors: deterministic noise from the text ([`noise`]), plus `bias` times the first
/// axis (a text with `NAN` gets a NaN on the third). A call with a `FAIL` text is refused
/// as too long, one with a `CRASH` text as out of memory. Pieces: one per 4 characters
/// of a word; a word with a `q` is unknown.
fn fake(name: &str, bias: &[(&'static str, f32)]) -> FakeEmbedder {
    let bias: HashMap<&'static str, f32> = bias.iter().copied().collect();
    FakeEmbedder::new(name, DIM)
        .with_text_vectors(move |text| {
            let mut v = noise(text, DIM);
            v[0] += bias.get(text).copied().unwrap_or(0.0);
            if text.contains("NAN") {
                v[2] = f32::NAN;
            }
            v
        })
        .refusing("FAIL", |index, text| EncoderError::TooLong {
            index,
            tokens: 600,
            max: 512,
            text: text.to_owned(),
        })
        .refusing("CRASH", |_, _| {
            EncoderError::Backend("out of memory".into())
        })
}

/// The tests as one battery, without lower-cased copies, run on each model in turn:
/// rows in model then battery order, Holm and BH within each model's run.
fn run(
    models: &[&FakeEmbedder],
    tests: &[AssociationTest],
    options: &SeatOptions,
) -> Result<BatteryResult, SeatError> {
    let battery = Battery::new(tests.iter().cloned().map(|t| (t, None)).collect())?;
    let mut result = BatteryResult::default();
    for model in models {
        result.append(seat::run_battery(
            *model,
            &battery,
            options,
            Copies::AsWritten,
        )?);
    }
    Ok(result)
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("lmbias-seat-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, name: &str, sets: [(&str, &[&str]); 4]) -> PathBuf {
        let keys = ["targ1", "targ2", "attr1", "attr2"];
        let json: serde_json::Map<String, serde_json::Value> = keys
            .iter()
            .zip(sets)
            .map(|(k, (category, examples))| {
                (
                    k.to_string(),
                    serde_json::json!({ "category": category, "examples": examples }),
                )
            })
            .collect();
        let path = self.0.join(name);
        std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const FLOWERS: &[&str] = &["rose", "tulip", "lily", "daisy", "iris"];
const INSECTS: &[&str] = &["ant", "wasp", "flea", "moth", "gnat"];
const PLEASANT: &[&str] = &["love", "peace", "joy", "kind"];
const UNPLEASANT: &[&str] = &["hate", "war", "pain", "evil"];

/// Flowers lean to pleasant, insects to unpleasant: a bias planted on axis 0.
fn planted() -> Vec<(&'static str, f32)> {
    let mut bias = Vec::new();
    for (set, sign) in [
        (FLOWERS, 1.0),
        (INSECTS, -1.0),
        (PLEASANT, 1.0),
        (UNPLEASANT, -1.0),
    ] {
        bias.extend(set.iter().map(|w| (*w, sign * 1.5)));
    }
    bias
}

/// Two tests sharing their attribute words, plus a long-name test for coverage.
fn battery(dir: &TempDir) -> Vec<AssociationTest> {
    let paths = [
        dir.write(
            "a_flowers.jsonl",
            [
                ("Flowers", FLOWERS),
                ("Insects", INSECTS),
                ("Pleasant", PLEASANT),
                ("Unpleasant", UNPLEASANT),
            ],
        ),
        dir.write(
            "b_reversed.jsonl",
            [
                ("Insects", INSECTS),
                ("Flowers", FLOWERS),
                ("Pleasant", PLEASANT),
                ("Unpleasant", UNPLEASANT),
            ],
        ),
        dir.write(
            "c_rare.jsonl",
            [
                // 3 of 4 fragmented (≥ 9 characters = ≥ 3 pieces), one unknown.
                ("Rare", &["Berxwedanxx", "Rojhatxxxx", "Şervanxxxxx", "Ali"]),
                ("Common", &["Ahmet", "Ayşe's book.", "Elif", "qat"]),
                ("Pleasant", PLEASANT),
                ("Unpleasant", UNPLEASANT),
            ],
        ),
    ];
    paths
        .iter()
        .map(|p| AssociationTest::from_path(p, &LoadOptions::default()).unwrap())
        .collect()
}

fn options() -> SeatOptions {
    SeatOptions {
        pooling: Pooling::Cls,
        layer: Layer::Last,
        weat: Options::default(),
        lost: Lost::Keep,
        wefe: Default::default(),
    }
}

#[test]
fn battery_matches_metrics_on_the_same_vectors() {
    let dir = TempDir::new("match");
    let tests = battery(&dir);
    let model = fake("fake", &planted());
    let rows = run(&[&model], &tests, &options()).unwrap().rows;
    assert_eq!(rows.len(), 3);

    for (row, test) in rows.iter().zip(&tests) {
        let vecs = |set: &[String]| set.iter().map(|t| model.text_vector(t)).collect::<Vec<_>>();
        let assoc = Associations::from_vectors(
            &vecs(test.targ1().examples()),
            &vecs(test.targ2().examples()),
            &vecs(test.attr1().examples()),
            &vecs(test.attr2().examples()),
        )
        .unwrap();
        let direct = weat::weat(&assoc, &Options::default()).unwrap();
        assert_eq!(row.test, test.name());
        assert_eq!(row.model, "fake");
        assert_eq!(row.effect_size, direct.effect_size);
        assert_eq!(row.p_value, direct.permutation.p_value);
        assert_eq!(row.exact, direct.permutation.exact);
        assert_eq!(row.n_partitions, direct.permutation.n_partitions);
    }

    // The planted bias shows: flowers-pleasant is strong and significant; reversed is its mirror.
    let d = rows[0].effect_size.unwrap();
    assert!(d > 1.5, "planted bias gives d = {d}");
    assert!(rows[0].p_value < 0.01, "p = {}", rows[0].p_value);
    assert!((rows[1].effect_size.unwrap() + d).abs() < 1e-12);
    assert!(rows[1].p_value > 0.99);
    // C(10, 5) = 252 splits: exact at the default 100000 samples.
    assert!(rows[0].exact);
    assert_eq!(rows[0].n_partitions, Some(252));
    let json = serde_json::to_value(&rows[0]).unwrap();
    assert_eq!(
        (&json["layer"], &json["pooling"]),
        (&serde_json::json!("last"), &serde_json::json!("cls"))
    );
    assert_eq!(
        (
            rows[0].sizes.targ1,
            rows[0].sizes.targ2,
            rows[0].sizes.attr1,
            rows[0].sizes.attr2
        ),
        (5, 5, 4, 4)
    );

    let p: Vec<f64> = rows.iter().map(|r| r.p_value).collect();
    let holm = correction::holm(&p).unwrap();
    let bh = correction::benjamini_hochberg(&p).unwrap();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.p_holm, holm[i]);
        assert_eq!(r.p_bh, bh[i]);
        assert!(r.p_holm >= r.p_value && r.p_bh >= r.p_value);
    }
}

#[test]
fn each_distinct_text_is_embedded_once_per_model() {
    let dir = TempDir::new("once");
    let tests = battery(&dir);
    let model = fake("fake", &planted());
    run(&[&model], &tests, &options()).unwrap();
    let embedded = model.embedded();
    let mut distinct = embedded.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(embedded.len(), distinct.len(), "a text was embedded twice");
    // 5 + 5 + 4 + 4 shared by the first two tests, + 8 new targets in the third.
    assert_eq!(distinct.len(), 26);
    // In one call: the model batches internally.
    assert_eq!(model.calls(), 1);
}

#[test]
fn several_models_make_one_table_corrected_per_model() {
    let dir = TempDir::new("models");
    let tests = battery(&dir);
    let biased = fake("biased", &planted());
    let neutral = fake("neutral", &[]);
    let rows = run(&[&biased, &neutral], &tests, &options()).unwrap().rows;
    let names: Vec<_> = rows
        .iter()
        .map(|r| (r.model.as_str(), r.test.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("biased", "a_flowers"),
            ("biased", "b_reversed"),
            ("biased", "c_rare"),
            ("neutral", "a_flowers"),
            ("neutral", "b_reversed"),
            ("neutral", "c_rare"),
        ]
    );
    let neutral_p: Vec<f64> = rows[3..].iter().map(|r| r.p_value).collect();
    let holm = correction::holm(&neutral_p).unwrap();
    assert_eq!(rows[3..].iter().map(|r| r.p_holm).collect::<Vec<_>>(), holm);
    // Without the planted axis the effect is far weaker.
    assert!(rows[3].effect_size.unwrap().abs() < rows[0].effect_size.unwrap().abs());
}

#[test]
fn coverage_counts_pieces_and_flags_rare_targets() {
    let dir = TempDir::new("coverage");
    let tests = battery(&dir);
    let model = fake("fake", &planted());
    let rows = run(&[&model], &tests, &options()).unwrap().rows;

    // Flowers: all ≤ 5 chars; "tulip", "daisy" have 5 chars → 2 pieces.
    let flowers = &rows[0].coverage.sets[0];
    assert_eq!(
        (
            flowers.examples,
            flowers.single_piece,
            flowers.split,
            flowers.fragmented
        ),
        (5, 3, 2, 0)
    );
    assert!((flowers.mean_pieces - 7.0 / 5.0).abs() < 1e-12);
    assert!(rows[0].coverage.flags.is_empty());

    let rare = &rows[2].coverage;
    let targ1 = &rare.sets[0];
    // Berxwedanxx 11 chars → 3, Rojhatxxxx 10 → 3, Şervanxxxxx 11 → 3, Ali → 1.
    assert_eq!(
        (
            targ1.single_piece,
            targ1.split,
            targ1.fragmented,
            targ1.with_unknown
        ),
        (1, 3, 3, 0)
    );
    assert!((targ1.mean_pieces - 10.0 / 4.0).abs() < 1e-12);
    // "Ayşe's book." → words Ayşe, s, book: hardest is one piece; "qat" is unknown.
    let targ2 = &rare.sets[1];
    assert_eq!(
        (targ2.single_piece, targ2.split, targ2.with_unknown),
        (3, 1, 1)
    );
    assert_eq!(
        rare.flags,
        [
            CoverageFlag::Fragmented {
                set: Role::Targ1,
                share: 0.75
            },
            CoverageFlag::Unknown {
                set: Role::Targ2,
                examples: 1
            },
        ]
    );
}

/// The error and its causes, as anyhow's `{:#}` prints them.
fn chain(err: &dyn Error) -> String {
    let mut line = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        line.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    line
}

fn one_test(dir: &TempDir, attr2: &[&str]) -> Vec<AssociationTest> {
    let path = dir.write(
        "broken.jsonl",
        [
            ("X", &["a", "b"]),
            ("Y", &["c", "d"]),
            ("A", &["e", "f"]),
            ("B", attr2),
        ],
    );
    vec![AssociationTest::from_path(&path, &LoadOptions::default()).unwrap()]
}

#[test]
fn a_text_the_model_cannot_encode_names_test_and_set() {
    let dir = TempDir::new("fail");
    let tests = one_test(&dir, &["g", "FAIL here"]);
    let model = fake("fake", &[]);
    let err = run(&[&model], &tests, &options()).unwrap_err();
    let msg = chain(&err);
    assert!(
        matches!(
            err,
            SeatError::Encode {
                set: Role::Attr2,
                ..
            }
        ),
        "{msg}"
    );
    assert_eq!(err.test(), Some("broken"));
    // Found from the error's index, without embedding texts one at a time.
    assert_eq!(model.calls(), 1);
    // The cause is printed once, after the test and set.
    assert_eq!(
        msg,
        "model fake: test broken, set attr2: cannot encode \"FAIL here\": \
         text 7 has 600 tokens, more than the model's 512 positions: \"FAIL here\""
    );
}

/// A model whose vector for a text holds a NaN: an error naming the model, test, set
/// and text, never a NaN effect size.
#[test]
fn a_non_finite_vector_names_the_model_and_text() {
    let dir = TempDir::new("nan");
    let tests = one_test(&dir, &["g", "NAN here"]);
    let model = fake("fake", &[]);
    let err = run(&[&model], &tests, &options()).unwrap_err();
    assert!(
        matches!(
            err,
            SeatError::Encode {
                set: Role::Attr2,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        chain(&err),
        "model fake: test broken, set attr2: cannot encode \"NAN here\": \
         text 7: the model's output value 2 is NaN, not a finite number"
    );
}

#[test]
fn a_failure_of_the_whole_call_names_the_model() {
    let dir = TempDir::new("crash");
    let tests = one_test(&dir, &["g", "CRASH"]);
    let model = fake("fake", &[]);
    let err = run(&[&model], &tests, &options()).unwrap_err();
    assert!(matches!(err, SeatError::Embed { .. }), "{err}");
    assert_eq!(err.test(), None);
    assert_eq!(
        chain(&err),
        "model fake: cannot encode the battery: model: out of memory"
    );
}

#[test]
fn an_empty_battery_is_an_error() {
    let model = fake("fake", &[]);
    let err = run(&[&model], &[], &options()).unwrap_err();
    assert_eq!(err.to_string(), "the battery has no tests");
}

/// Every model runs the tests as written (the paper's procedure); only when
/// asked does an uncased model also run the lower-cased copies, as rows of their
/// own after the others, named as the tests they copy, with the copy's own texts
/// embedded and Holm/BH within each run.
#[test]
fn an_uncased_model_runs_the_lowercased_copy_only_when_asked() {
    let dir = TempDir::new("copy");
    let tests = battery(&dir);
    let lower = |t: &AssociationTest| {
        let sets: Vec<(String, Vec<String>)> = Role::ALL
            .iter()
            .map(|&r| {
                let set = t.set(r);
                (
                    set.category().to_owned(),
                    set.examples().iter().map(|e| e.to_lowercase()).collect(),
                )
            })
            .collect();
        let spec: Vec<(&str, Vec<&str>)> = sets
            .iter()
            .map(|(c, e)| (c.as_str(), e.iter().map(String::as_str).collect()))
            .collect();
        let path = dir.write(
            &format!("lower-{}.jsonl", t.name()),
            [0, 1, 2, 3].map(|i| (spec[i].0, spec[i].1.as_slice())),
        );
        AssociationTest::from_path(&path, &LoadOptions::default()).unwrap()
    };
    // Only the rare-names test (the one with capitals) has a copy.
    let copy = lower(&tests[2]);
    let battery = Battery::new(vec![
        (tests[0].clone(), None),
        (tests[1].clone(), None),
        (tests[2].clone(), Some(copy)),
    ])
    .unwrap();
    assert_eq!(battery.copies().len(), 1);
    let cased = fake("cased", &planted());
    let uncased = fake("uncased", &planted()).lowercasing();
    let copy_flags = |rows: &[SeatRow]| -> Vec<(String, bool)> {
        rows.iter()
            .map(|r| (r.test.clone(), r.lowercased_copy))
            .collect()
    };
    let as_written: Vec<(String, bool)> =
        tests.iter().map(|t| (t.name().to_owned(), false)).collect();

    // A cased model runs the tests as written, asked for the copies or not.
    for copies in [Copies::AsWritten, Copies::AlsoLowercased] {
        let rows = seat::run_battery(&cased, &battery, &options(), copies)
            .unwrap()
            .rows;
        assert_eq!(copy_flags(&rows), as_written, "{copies:?}");
    }
    assert!(cased.embedded().iter().any(|t| t == "Berxwedanxx"));
    assert!(!cased.embedded().iter().any(|t| t == "berxwedanxx"));

    // An uncased model, by default: exactly the tests as written, no copy.
    let given = seat::run_battery(&uncased, &battery, &options(), Copies::AsWritten)
        .unwrap()
        .rows;
    assert_eq!(copy_flags(&given), as_written);
    assert!(uncased.embedded().iter().any(|t| t == "Berxwedanxx"));
    assert!(!uncased.embedded().iter().any(|t| t == "berxwedanxx"));

    // Asked: the same rows, then the copy's, named as the battery lists its test.
    let both = seat::run_battery(&uncased, &battery, &options(), Copies::AlsoLowercased)
        .unwrap()
        .rows;
    let mut expected = as_written.clone();
    expected.push(("c_rare".to_owned(), true));
    assert_eq!(copy_flags(&both), expected);
    assert_eq!(both[..3], given[..]);
    assert!(uncased.embedded().iter().any(|t| t == "berxwedanxx"));
    // The copy is a run of one test: Holm and BH leave its p as it is.
    assert_eq!(
        (both[3].p_holm, both[3].p_bh),
        (both[3].p_value, both[3].p_value)
    );

    // A copy with other set sizes is refused, naming the test.
    let short = dir.write(
        "short.jsonl",
        [
            ("Rare", &["a", "b", "c", "d"][..]),
            ("Common", &["e", "f", "g", "h"][..]),
            ("Pleasant", &["i"][..]),
            ("Unpleasant", &["j"][..]),
        ],
    );
    let short = AssociationTest::from_path(&short, &LoadOptions::default()).unwrap();
    let err = Battery::new(vec![(tests[2].clone(), Some(short))]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "test c_rare: its lower-cased copy has set sizes [4, 4, 1, 1], the test [4, 4, 4, 4]: \
         the copy must hold the same examples, lower-cased"
    );
}

/// The fake's words with a `q` are unknown: an example holding one is lost, even
/// beside known words (sent-bias's bag-of-words encoder cannot encode it either).
fn lossy_battery(dir: &TempDir) -> Vec<AssociationTest> {
    let flowers_q: Vec<&str> = FLOWERS.iter().copied().chain(["quince"]).collect();
    let insects_q: Vec<&str> = INSECTS.iter().copied().chain(["squid"]).collect();
    let pleasant_q: Vec<&str> = PLEASANT.iter().copied().chain(["quiet"]).collect();
    let paths = [
        // Loses one example of X, Y and A: still 5/5, runs.
        dir.write(
            "a_lost.jsonl",
            [
                ("Flowers", &flowers_q),
                ("Insects", &insects_q),
                ("Pleasant", &pleasant_q),
                ("Unpleasant", UNPLEASANT),
            ],
        ),
        // A loses every example: refused.
        dir.write(
            "b_empty.jsonl",
            [
                ("Flowers", FLOWERS),
                ("Insects", INSECTS),
                ("Q", &["quiz", "queue qi", "a quiz"]),
                ("Unpleasant", UNPLEASANT),
            ],
        ),
        // X loses one of three, Y none: 2 against 3, refused.
        dir.write(
            "c_unequal.jsonl",
            [
                ("X", &["rose", "quilt", "a rose"]),
                ("Y", &["ant", "beetle", "moth"]),
                ("Pleasant", PLEASANT),
                ("Unpleasant", UNPLEASANT),
            ],
        ),
        // Nothing to lose.
        dir.write(
            "d_plain.jsonl",
            [
                ("Insects", INSECTS),
                ("Flowers", FLOWERS),
                ("Pleasant", PLEASANT),
                ("Unpleasant", UNPLEASANT),
            ],
        ),
    ];
    paths
        .iter()
        .map(|p| AssociationTest::from_path(p, &LoadOptions::default()).unwrap())
        .collect()
}

fn dropping() -> SeatOptions {
    SeatOptions {
        lost: Lost::Drop,
        wefe: Default::default(),
        ..options()
    }
}

fn lost(set: Role, text: &str) -> LostExample {
    LostExample {
        set,
        text: text.to_owned(),
    }
}

#[test]
fn dropped_examples_are_listed_and_refused_tests_do_not_stop_the_battery() {
    let dir = TempDir::new("lost");
    let tests = lossy_battery(&dir);
    let battery = Battery::new(tests.iter().map(|t| (t.clone(), None)).collect()).unwrap();
    let model = fake("fake", &planted());
    let result = seat::run_battery(&model, &battery, &dropping(), Copies::AsWritten).unwrap();

    // The two tests that still fit WEAT ran, the two others are refused, in battery order.
    let ran: Vec<&str> = result.rows.iter().map(|r| r.test.as_str()).collect();
    assert_eq!(ran, ["a_lost", "d_plain"]);
    let refused: Vec<(&str, Refusal)> = result
        .refused
        .iter()
        .map(|r| (r.test.as_str(), r.reason))
        .collect();
    assert_eq!(
        refused,
        [
            ("b_empty", Refusal::EmptySet { set: Role::Attr1 }),
            ("c_unequal", Refusal::UnequalTargets { targ1: 2, targ2: 3 }),
        ]
    );
    assert_eq!(
        result.refused[0].lost,
        [
            lost(Role::Attr1, "quiz"),
            lost(Role::Attr1, "queue qi"),
            lost(Role::Attr1, "a quiz")
        ]
    );
    assert_eq!(result.refused[1].lost, [lost(Role::Targ1, "quilt")]);
    assert_eq!(
        (result.refused[1].sizes.targ1, result.refused[1].sizes.targ2),
        (2, 3)
    );
    assert_eq!(
        result.refused[1].to_string(),
        "model fake: test c_unequal refused: targ1 and targ2 have 2 and 3 examples once lost \
         ones are dropped (WEAT needs equal sizes); lost: targ1 \"quilt\""
    );

    // The lost examples are listed, left out of the sizes, and never embedded; nor is any
    // text of a refused test alone ("beetle").
    let a = &result.rows[0];
    assert_eq!(
        a.lost,
        [
            lost(Role::Targ1, "quince"),
            lost(Role::Targ2, "squid"),
            lost(Role::Attr1, "quiet")
        ]
    );
    assert_eq!(
        (a.sizes.targ1, a.sizes.targ2, a.sizes.attr1, a.sizes.attr2),
        (5, 5, 4, 4)
    );
    // Coverage still describes the test as written.
    assert_eq!(a.coverage.sets[0].examples, 6);
    for text in ["quince", "squid", "quiet", "quiz", "quilt", "beetle"] {
        let embedded = model.embedded();
        assert!(!embedded.iter().any(|t| t == text), "{text} was embedded");
    }
    assert!(result.rows[1].lost.is_empty());

    // The numbers are the metrics' on the examples kept.
    let vecs = |set: &[&str]| set.iter().map(|t| model.text_vector(t)).collect::<Vec<_>>();
    let assoc = Associations::from_vectors(
        &vecs(FLOWERS),
        &vecs(INSECTS),
        &vecs(PLEASANT),
        &vecs(UNPLEASANT),
    )
    .unwrap();
    let direct = weat::weat(&assoc, &Options::default()).unwrap();
    assert_eq!(a.effect_size, direct.effect_size);
    assert_eq!(a.p_value, direct.permutation.p_value);

    // Holm and BH over the two tests that ran.
    let p: Vec<f64> = result.rows.iter().map(|r| r.p_value).collect();
    let holm = correction::holm(&p).unwrap();
    let bh = correction::benjamini_hochberg(&p).unwrap();
    for (i, r) in result.rows.iter().enumerate() {
        assert_eq!((r.p_holm, r.p_bh), (holm[i], bh[i]), "{}", r.test);
    }

    // A test with nothing to lose gives what it gives when nothing is dropped.
    let kept = seat::run_battery(&model, &battery, &options(), Copies::AsWritten).unwrap();
    assert!(kept.refused.is_empty() && kept.rows.iter().all(|r| r.lost.is_empty()));
    assert_eq!(kept.rows.len(), 4);
    let (plain_kept, plain_dropped) = (&kept.rows[3], &result.rows[1]);
    assert_eq!(plain_kept.test, "d_plain");
    assert_eq!(plain_kept.effect_size, plain_dropped.effect_size);
    assert_eq!(plain_kept.p_value, plain_dropped.p_value);
    assert_eq!(kept.rows[0].sizes.targ1, 6);

    // JSON: rows and refused, each refusal tagged by kind.
    let json = serde_json::to_value(&result).unwrap();
    assert_eq!(
        json["rows"][0]["lost"][0],
        serde_json::json!({"set": "targ1", "text": "quince"})
    );
    assert_eq!(
        json["refused"][0]["reason"],
        serde_json::json!({"kind": "empty_set", "set": "attr1"})
    );
    assert_eq!(
        json["refused"][1]["reason"],
        serde_json::json!({"kind": "unequal_targets", "targ1": 2, "targ2": 3})
    );
}

#[test]
fn unequal_sizes_allowed_are_not_refused() {
    let dir = TempDir::new("unequal-allowed");
    let tests = lossy_battery(&dir);
    let model = fake("fake", &planted());
    let mut options = dropping();
    options.weat.allow_unequal_sizes = true;
    let result = run(&[&model], &tests[2..3], &options).unwrap();
    assert!(result.refused.is_empty());
    assert_eq!(result.rows[0].sizes.targ1, 2);
    assert_eq!(result.rows[0].lost, [lost(Role::Targ1, "quilt")]);
}

#[test]
fn a_battery_refused_whole_asks_the_model_nothing() {
    let dir = TempDir::new("all-refused");
    let tests = lossy_battery(&dir);
    let model = fake("fake", &planted());
    let result = run(&[&model], &tests[1..3], &dropping()).unwrap();
    assert!(result.rows.is_empty());
    assert_eq!(result.refused.len(), 2);
    assert_eq!(model.calls(), 0);
}
