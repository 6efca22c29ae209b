//! The SEAT battery on real models: all-MiniLM-L6-v2 against sent-bias's
//! `weat.py` run on the same model's vectors (`fixtures/reference/seat-minilm.json`,
//! made by `fixtures/generate/seat_minilm_reference.py`), and the 37-test Turkish
//! battery on MiniLM and on the tiny cased Turkish fixture.

use std::path::PathBuf;

use crate::minilm::minilm_dir;
use lmbias_core::{Embedder, Layer, Pooling};
use lmbias_data::association::{self, AssociationTest, LoadOptions};
use lmbias_metrics::weat::Options;
use lmbias_model::{Checkpoint, DeviceKind, load_embedder};
use lmbias_papers::Marks;
use lmbias_studies::seat::{
    self, Battery, Copies, CoverageFlag, Lost, SeatError, SeatOptions, SeatRow,
};
use lmbias_testing::{fixtures, repo_root};
use serde_json::Value;

fn embedder(name: &str, dir: &std::path::Path) -> Box<dyn Embedder + Send + Sync> {
    let checkpoint = Checkpoint::from_dir(name, dir).unwrap();
    load_embedder(&checkpoint, DeviceKind::Cpu).unwrap()
}

/// The tests as one battery, without lower-cased copies, run on `model`.
fn run_tests(
    model: &dyn Embedder,
    tests: &[AssociationTest],
    options: &SeatOptions,
) -> Result<lmbias_studies::seat::BatteryResult, SeatError> {
    let battery = Battery::new(tests.iter().cloned().map(|t| (t, None)).collect())?;
    seat::run_battery(model, &battery, options, Copies::AsWritten)
}

fn options(pooling: Pooling) -> SeatOptions {
    // sent-bias's defaults: n_samples 100000 (weat.py `run_test`).
    SeatOptions {
        pooling,
        layer: Layer::Last,
        weat: Options::default(),
        lost: Lost::Keep,
        wefe: Default::default(),
    }
}

fn english(name: &str) -> AssociationTest {
    let path = repo_root()
        .join("datasets/seat/en")
        .join(format!("{name}.jsonl"));
    AssociationTest::from_path(&path, &LoadOptions::default()).unwrap()
}

fn reference() -> Vec<Value> {
    let path = fixtures().join("reference/seat-minilm.json");
    let json: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    json["results"].as_array().unwrap().clone()
}

#[test]
fn minilm_battery_matches_sent_bias_weat_py() {
    let reference = reference();
    let model = embedder("all-MiniLM-L6-v2", &minilm_dir());
    let names = [
        "weat6",
        "sent-weat6",
        "weat8",
        "heilman_double_bind_competent_one_word",
        "heilman_double_bind_competent_one_sentence",
    ];
    let tests: Vec<AssociationTest> = names.iter().map(|n| english(n)).collect();
    let mut checked = 0;
    let mut worst_d = 0f64;
    // `first` pooling is in the fixture too but is not compared: on one-word texts
    // without special tokens MiniLM's vectors are nearly parallel (the spread of
    // s(w, A, B) on weat8 is 3.4e-8), so float noise of 1e-6 in the vectors, far
    // below what model parity allows, moves d by 5e-4. The numbers are ill-conditioned,
    // not wrong: transformers' own vectors give d = 0.45193, ours 0.45142.
    for pooling in [Pooling::Cls, Pooling::Mean] {
        let rows = run_tests(model.as_ref(), &tests, &options(pooling))
            .unwrap()
            .rows;
        for row in &rows {
            let want = reference
                .iter()
                .find(|r| r["test"] == row.test.as_str() && r["pooling"] == pooling.as_str())
                .unwrap_or_else(|| panic!("no reference for {} / {pooling}", row.test));
            let what = format!("{} / {pooling}", row.test);
            let d_ref = want["effect_size"].as_f64().unwrap();
            let d = row.effect_size.unwrap();
            worst_d = worst_d.max((d - d_ref).abs());
            assert!(
                (d - d_ref).abs() < 1e-4,
                "{what}: d = {d}, sent-bias {d_ref}"
            );
            let used = &want["sizes_used"];
            assert_eq!(
                [
                    row.sizes.targ1,
                    row.sizes.targ2,
                    row.sizes.attr1,
                    row.sizes.attr2
                ],
                ["targ1", "targ2", "attr1", "attr2"].map(|k| used[k].as_u64().unwrap() as usize),
                "{what}"
            );
            let p_ref = want["p_value"].as_f64().unwrap();
            assert_eq!(row.exact, want["exact"].as_bool().unwrap(), "{what}");
            if row.exact {
                // Identical: the same number of splits at least as extreme, out of the same total.
                let partitions = want["partitions"].as_u64().unwrap();
                assert_eq!(row.n_partitions, Some(u128::from(partitions)), "{what}");
                let hits = (row.p_value * partitions as f64).round();
                let hits_ref = (p_ref * partitions as f64).round();
                assert_eq!(
                    hits, hits_ref,
                    "{what}: p = {}, sent-bias {p_ref}",
                    row.p_value
                );
            } else {
                assert!(
                    (row.p_value - p_ref).abs() <= 0.01,
                    "{what}: p = {}, sent-bias {p_ref}",
                    row.p_value
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 10);
    eprintln!("largest effect-size difference from sent-bias: {worst_d:.2e}");
}

fn turkish(dir: &str) -> Vec<AssociationTest> {
    association::load_battery(
        &[repo_root().join("datasets/seat").join(dir)],
        &LoadOptions::default(),
    )
    .unwrap()
    .into_iter()
    .map(|b| b.test)
    .collect()
}

fn tiny_turkish_dir() -> PathBuf {
    fixtures().join("models/tiny-bert-cased-tr")
}

/// What every row of a battery must satisfy, whatever the model.
fn check_rows(rows: &[SeatRow], tests: &[AssociationTest]) {
    assert_eq!(rows.len(), tests.len());
    for (row, test) in rows.iter().zip(tests) {
        assert_eq!(row.test, test.name());
        assert!(
            (0.0..=1.0).contains(&row.p_value),
            "{}: p = {}",
            row.test,
            row.p_value
        );
        assert!(row.p_holm >= row.p_value && row.p_bh >= row.p_value && row.p_holm <= 1.0);
        assert!(
            row.effect_size
                .is_some_and(|d| d.is_finite() && d.abs() <= 2.0),
            "{}",
            row.test
        );
        assert_eq!(row.sizes.targ1, test.targ1().len());
        assert_eq!(row.coverage.sets.len(), 4);
    }
}

#[test]
fn turkish_battery_runs_on_minilm_and_flags_kurdish_names() {
    let tests = turkish("tr-uncased");
    assert_eq!(tests.len(), 37);
    // MiniLM's tokenizer lower-cases: given `tr` and asked for the copies, it
    // also runs the `tr-uncased` copy, after the tests as written.
    let battery = Battery::new(
        association::load_battery(
            &[repo_root().join("datasets/seat/tr")],
            &LoadOptions::default(),
        )
        .unwrap()
        .iter()
        .map(|b| b.tests())
        .collect(),
    )
    .unwrap();
    let model = embedder("all-MiniLM-L6-v2", &minilm_dir());
    assert!(model.lowercases());
    assert_eq!(battery.copies(), tests.as_slice());
    let rows = seat::run_battery(
        model.as_ref(),
        &battery,
        &options(Pooling::Cls),
        Copies::AlsoLowercased,
    )
    .unwrap()
    .rows;
    assert_eq!(rows.len(), 74);
    assert!(rows[..37].iter().all(|r| !r.lowercased_copy));
    let rows = &rows[37..];
    check_rows(rows, &tests);
    assert!(rows.iter().all(|r| r.lowercased_copy));

    // MiniLM's English WordPiece vocabulary splits the Kurdish names of C4 far
    // more than the Turkish ones: the paper's caveat, visible in the coverage.
    let c4 = rows.iter().find(|r| r.test == "weat4_tr").unwrap();
    let (turkish_names, kurdish_names) = (&c4.coverage.sets[0], &c4.coverage.sets[1]);
    assert_eq!(
        (
            turkish_names.category.as_str(),
            kurdish_names.category.as_str()
        ),
        ("TurkishNames", "KurdishNames")
    );
    assert!(
        kurdish_names.mean_pieces > turkish_names.mean_pieces,
        "Kurdish {} vs Turkish {} pieces",
        kurdish_names.mean_pieces,
        turkish_names.mean_pieces
    );
    assert!(
        kurdish_names.fragmented > turkish_names.fragmented,
        "{:?}",
        c4.coverage
    );
    // Measured: 7 of 16 Kurdish names fragmented (≥ 3 pieces), under the 50% flag line.
    assert!(
        !c4.coverage
            .flags
            .iter()
            .any(|f| matches!(f, CoverageFlag::Unknown { .. }))
    );
}

/// The likable Heilman vignette tests (the paper's "1" and "1+3"): their target
/// texts (27 and 69 words) are over the tiny fixture's 64 positions.
const VIGNETTES: [&str; 4] = [
    "heilman_double_bind_likable_1_tr",
    "heilman_double_bind_likable_1+3_tr",
    "heilman_double_bind_likable_religious_1_tr",
    "heilman_double_bind_likable_religious_1+3_tr",
];
/// The longest of them: texts of ~560 characters.
const VIGNETTE: &str = "heilman_double_bind_likable_1+3_tr";

#[test]
fn turkish_battery_runs_on_the_tiny_cased_fixture() {
    let mut tests = turkish("tr");
    assert_eq!(tests.len(), 37);
    tests.retain(|t| !VIGNETTES.contains(&t.name()));
    assert_eq!(tests.len(), 33);
    let model = embedder("tiny-bert-cased-tr", &tiny_turkish_dir());
    assert!(!model.lowercases());
    let rows = run_tests(model.as_ref(), &tests, &options(Pooling::Mean))
        .unwrap()
        .rows;
    check_rows(&rows, &tests);
    insta::assert_snapshot!(
        "turkish_battery_tiny_bert_cased_tr",
        lmbias_report::seat::markdown(&rows, Marks::Caglidil)
    );
}

#[test]
fn a_text_too_long_for_the_model_is_a_one_line_error() {
    let tests: Vec<_> = turkish("tr")
        .into_iter()
        .filter(|t| t.name() == VIGNETTE)
        .collect();
    let model = embedder("tiny-bert-cased-tr", &tiny_turkish_dir());
    let err = run_tests(model.as_ref(), &tests, &options(Pooling::Cls)).unwrap_err();
    assert!(matches!(err, SeatError::Encode { .. }), "{err}");
    // As anyhow's `{:#}` prints it: the study's line, then the encoder's, each once.
    let mut line = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        line.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    assert!(
        line.contains(VIGNETTE) && line.contains("set targ1"),
        "{line}"
    );
    assert_eq!(
        line.matches("more than the model's 64 positions").count(),
        1,
        "{line}"
    );
    assert!(!line.contains('\n'), "{line}");
}
