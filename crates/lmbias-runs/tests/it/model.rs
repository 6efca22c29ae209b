use std::sync::Arc;

use lmbias_runs::studies::seat::Lost;
use lmbias_runs::{DeviceKind, ModelOrigin, Pooling, RunError, open};
use lmbias_testing::model_dir;

use crate::{scratch, sha256};

#[test]
fn a_folder_is_a_checkpoint_pinned_by_the_digest_of_its_files() {
    let dir = model_dir("tiny-bert-mlm");
    let model = open(dir.to_str().unwrap(), DeviceKind::Cpu).unwrap();
    assert!(!model.is_static());
    assert_eq!(model.lost(), Lost::Keep);
    // The digest over "NAME SHA256\n" lines, by name.
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let lines: String = names
        .iter()
        .map(|n| format!("{n} {}\n", sha256(&std::fs::read(dir.join(n)).unwrap())))
        .collect();
    let provenance = model.provenance().unwrap();
    assert_eq!(
        provenance.origin,
        ModelOrigin::Folder {
            sha256: sha256(lines.as_bytes())
        }
    );
    let tokenizer = ["tokenizer.json", "vocab.txt"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
        .unwrap();
    assert_eq!(
        provenance.tokenizer_sha256.as_deref(),
        Some(sha256(&std::fs::read(tokenizer).unwrap()).as_str())
    );
    // Loaded once, then kept.
    let first = model.embedder().unwrap();
    assert!(Arc::ptr_eq(&first, &model.embedder().unwrap()));
    assert_eq!(model.pooling(None).unwrap(), Pooling::Cls);
    assert_eq!(model.pooling(Some(Pooling::Mean)).unwrap(), Pooling::Mean);
}

#[test]
fn a_vectors_file_is_static_pinned_by_its_digest_and_cannot_fill_masks() {
    let dir = scratch("static");
    let path = dir.join("v.txt");
    let text = "2 3\nking 1 0 0\nqueen 0 1 0\n";
    std::fs::write(&path, text).unwrap();
    let model = open(path.to_str().unwrap(), DeviceKind::Cpu).unwrap();
    assert!(model.is_static());
    assert_eq!(model.lost(), Lost::Drop);
    assert_eq!(
        model.provenance().unwrap().origin,
        ModelOrigin::File {
            sha256: sha256(text.as_bytes())
        }
    );
    assert_eq!(model.provenance().unwrap().tokenizer_sha256, None);
    assert!(matches!(model.masked_lm(), Err(RunError::NotMasked)));
    assert_eq!(model.embedder().unwrap().hidden_size(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}
