use lmbias_runs::data::probe::load_word_list;
use lmbias_runs::inputs::Vectors;
use lmbias_runs::probe::{self, Lists, ProbeSettings, Words};
use lmbias_runs::{Ctx, DeviceKind, RunError, open};
use lmbias_testing::{model_dir, repo_root};

use crate::scratch;

fn lists(templates: bool) -> Lists {
    let data = repo_root().join("datasets/probe");
    let t = data.join("templates.txt");
    Lists::load(
        &data.join("religion.csv"),
        &data.join("adjectives.csv"),
        templates.then_some(t.as_path()),
    )
    .unwrap()
}

/// Word2vec text for every word of the two lists: 6 dimensions, the first planted with
/// the word's class, the others a fixed scramble of its position.
fn vectors_file(dir: &std::path::Path) -> std::path::PathBuf {
    let data = repo_root().join("datasets/probe");
    let mut text = String::new();
    let mut i = 0u64;
    for file in ["religion.csv", "adjectives.csv"] {
        for entry in load_word_list(&data.join(file)).unwrap().entries() {
            i += 1;
            let planted = match entry.class.as_str() {
                "christian" | "positive" => 1.0,
                _ => -1.0,
            };
            let rest: Vec<String> = (1..6u64)
                .map(|d| format!("{:.3}", ((i * 7919 + d * 104_729) % 1000) as f64 / 1000.0))
                .collect();
            text.push_str(&format!("{} {planted} {}\n", entry.word, rest.join(" ")));
        }
    }
    let path = dir.join("vectors.txt");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn static_vectors_and_the_same_file_read_as_precomputed_vectors_give_one_result() {
    let dir = scratch("probe-static");
    let path = vectors_file(&dir);
    let settings = ProbeSettings::default();
    // Templates are given: static vectors ignore them, each word is its own vector.
    let as_model = probe::run(
        &open(path.to_str().unwrap(), DeviceKind::Cpu).unwrap(),
        &lists(true),
        &settings,
        &Ctx::none(),
    )
    .unwrap();
    let as_file = probe::run_on_vectors(
        &Vectors::load(&path).unwrap(),
        &lists(false),
        &settings,
        &Ctx::none(),
    )
    .unwrap();
    assert_eq!(as_model.words, Words::OwnVectors);
    assert_eq!(as_file.words, Words::Precomputed);
    assert_eq!(as_model.run.relevance_order, as_file.run.relevance_order);
    assert_eq!(as_model.run.relevance_order[0], 0, "the planted dimension");
    assert_eq!(as_model.run.sweep, as_file.run.sweep);
    assert_eq!(as_model.run.sweep.len(), 5, "n = 2 … 6");
    assert_eq!(as_model.run.pair, "religion × adjectives");
    // The templates were not read into the static run's provenance: it did not use them.
    assert_eq!(as_model.provenance.inputs.len(), 2);
    assert_eq!(
        as_model.provenance.options["words"],
        Words::OwnVectors.note()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_needs_templates_and_records_them() {
    let model = open(
        model_dir("tiny-bert-mlm").to_str().unwrap(),
        DeviceKind::Cpu,
    )
    .unwrap();
    let settings = ProbeSettings {
        n: Some(4),
        ..ProbeSettings::default()
    };
    let err = probe::run(&model, &lists(false), &settings, &Ctx::none()).unwrap_err();
    assert!(matches!(err, RunError::NeedsTemplates), "{err}");
    let result = probe::run(&model, &lists(true), &settings, &Ctx::none()).unwrap();
    assert_eq!(result.words, Words::Templates);
    assert_eq!(result.run.sweep.len(), 1);
    assert_eq!(result.run.sweep[0].n, 4);
    assert_eq!(
        result.provenance.inputs.len(),
        3,
        "both lists and the templates"
    );
    assert_eq!(result.provenance.options["layer"], "last");
    let err = probe::run(
        &model,
        &lists(true),
        &ProbeSettings {
            n: Some(33),
            ..ProbeSettings::default()
        },
        &Ctx::none(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "n 33: must be between 1 and the hidden size 32"
    );
}
