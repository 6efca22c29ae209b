//! A checkpoint's file problems keep their typed cause: the message names the file, the
//! `io::Error` (or serde_json's, or the weights reader's) is its `source()`, and
//! `ModelError::io_kind` tells a front-end which problem it is.

use std::error::Error;
use std::io::ErrorKind;
use std::path::Path;

use lmbias_model::{Checkpoint, DeviceKind, ModelError, Origin, load_embedder};

fn broken(tag: &str) -> std::path::PathBuf {
    lmbias_testing::copy_fixture("tiny-bert-mlm", &format!("model-errors-{tag}"))
}

fn open(dir: &Path) -> Result<(), ModelError> {
    load_embedder(&Checkpoint::from_dir("broken", dir)?, DeviceKind::Cpu).map(drop)
}

#[test]
fn a_missing_config_is_not_found_and_names_the_file() {
    let dir = broken("noconfig");
    std::fs::remove_file(dir.join("config.json")).unwrap();
    let err = open(&dir).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: cannot read", dir.join("config.json").display())
    );
    let cause = err
        .source()
        .and_then(|e| e.downcast_ref::<std::io::Error>());
    assert_eq!(cause.map(std::io::Error::kind), Some(ErrorKind::NotFound));
    assert_eq!(err.io_kind(), Some(ErrorKind::NotFound));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_where_a_file_belongs_is_a_directory_error() {
    let dir = broken("dirs");
    std::fs::remove_file(dir.join("config.json")).unwrap();
    std::fs::create_dir(dir.join("config.json")).unwrap();
    assert_eq!(
        open(&dir).unwrap_err().io_kind(),
        Some(ErrorKind::IsADirectory)
    );

    std::fs::remove_dir(dir.join("config.json")).unwrap();
    std::fs::copy(
        lmbias_testing::model_dir("tiny-bert-mlm").join("config.json"),
        dir.join("config.json"),
    )
    .unwrap();
    std::fs::remove_file(dir.join("model.safetensors")).unwrap();
    std::fs::create_dir(dir.join("model.safetensors")).unwrap();
    let err = open(&dir).unwrap_err();
    // Named, not skipped for a missing file.
    assert_eq!(
        err.to_string(),
        format!("{}: cannot read", dir.join("model.safetensors").display())
    );
    assert_eq!(err.io_kind(), Some(ErrorKind::IsADirectory));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_weights_are_not_found() {
    let dir = broken("noweights");
    std::fs::remove_file(dir.join("model.safetensors")).unwrap();
    let err = open(&dir).unwrap_err();
    assert!(matches!(err, ModelError::NoWeights { .. }), "{err:?}");
    assert_eq!(err.io_kind(), Some(ErrorKind::NotFound));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_json_and_bad_weights_are_no_file_problem_and_keep_their_cause() {
    let dir = broken("badfiles");
    std::fs::write(dir.join("config.json"), "{ not json").unwrap();
    let err = open(&dir).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: invalid config", dir.join("config.json").display())
    );
    let cause = err.source().expect("serde_json's reason");
    assert!(cause.is::<serde_json::Error>(), "{cause:?}");
    assert!(cause.to_string().contains("line 1 column 3"), "{cause}");
    assert_eq!(err.io_kind(), None);

    std::fs::copy(
        lmbias_testing::model_dir("tiny-bert-mlm").join("config.json"),
        dir.join("config.json"),
    )
    .unwrap();
    std::fs::write(dir.join("model.safetensors"), b"not a safetensors file").unwrap();
    let err = open(&dir).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: cannot read weights",
            dir.join("model.safetensors").display()
        )
    );
    assert!(err.source().is_some());
    assert_eq!(err.io_kind(), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_given_by_path_has_no_origin_but_itself() {
    let dir = lmbias_testing::model_dir("tiny-bert-mlm");
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    assert_eq!(checkpoint.origin(), &Origin::Folder);
    assert_eq!(
        Checkpoint::resolve("/dev/null").unwrap_err().io_kind(),
        Some(ErrorKind::NotADirectory)
    );
}
