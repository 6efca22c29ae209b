use std::path::PathBuf;

use lmbias_runs::data::association::{AssociationTest, LoadOptions};
use lmbias_runs::inputs::{TestSource, Tests};
use lmbias_runs::seat::{self, SeatSettings};
use lmbias_runs::studies::seat::Copies;
use lmbias_runs::{Ctx, DeviceKind, RunError, open};
use lmbias_testing::{model_dir, repo_root};

use crate::sha256;

fn turkish(name: &str) -> PathBuf {
    repo_root().join("datasets/seat/tr").join(name)
}

const DOUBLE_BIND: &str = "heilman_double_bind_competent_one_word_tr.jsonl";

#[test]
fn a_run_names_every_file_it_read_with_its_digest_and_every_option() {
    let file = turkish(DOUBLE_BIND);
    let tests = Tests::load(std::slice::from_ref(&file)).unwrap();
    let model = open(
        model_dir("tiny-bert-cased-tr").to_str().unwrap(),
        DeviceKind::Cpu,
    )
    .unwrap();
    let settings = SeatSettings {
        n_samples: 1000,
        seed: 7,
        copies: Copies::AlsoLowercased,
        ..SeatSettings::default()
    };
    let run = seat::run(&model, &tests, &settings, &Ctx::none()).unwrap();
    assert_eq!(
        run.rows.len() + run.refused.len(),
        1,
        "a cased model runs no copy"
    );
    let p = &run.provenance;
    assert_eq!(p.lmbias, env!("CARGO_PKG_VERSION"));
    assert_eq!(&p.model, model.provenance().unwrap());
    // The test as written and its lower-cased copy beside it, each with its own digest.
    let copy = repo_root()
        .join("datasets/seat/tr-uncased")
        .join(DOUBLE_BIND);
    let files: Vec<(String, String)> = p
        .inputs
        .iter()
        .map(|d| (d.file.clone(), d.sha256.clone()))
        .collect();
    let expected: Vec<(String, String)> = [&file, &copy]
        .iter()
        .map(|f| (f.display().to_string(), sha256(&std::fs::read(f).unwrap())))
        .collect();
    assert_eq!(files, expected);
    assert_eq!(p.options["seed"], "7");
    assert_eq!(p.options["n_samples"], "1000");
    assert_eq!(p.options["pooling"], "cls", "BERT's own: [CLS]");
    assert_eq!(p.options["lost_examples"], "kept");
    assert_eq!(p.options["lowercased_copies"], "true");
    // Rows are complete where they are built: Holm and BH are real numbers.
    for row in &run.rows {
        assert!((0.0..=1.0).contains(&row.p_holm) && (0.0..=1.0).contains(&row.p_bh));
        assert!(row.p_holm >= row.p_value);
    }
}

#[test]
fn a_test_given_twice_is_refused_naming_both_origins() {
    let file = turkish(DOUBLE_BIND);
    let test = AssociationTest::from_path(&file, &LoadOptions::default()).unwrap();
    let err = Tests::new(vec![TestSource::Test(test), TestSource::Path(file.clone())])
        .err()
        .expect("refused");
    assert!(matches!(err, RunError::DuplicateTest { .. }));
    let name = "heilman_double_bind_competent_one_word_tr";
    assert_eq!(
        err.to_string(),
        format!(
            "{}: test {name} is already loaded from a dict",
            file.display()
        )
    );
}
