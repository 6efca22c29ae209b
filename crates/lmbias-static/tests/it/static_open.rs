//! `lmbias_static::open`: which model specs name static vectors, each opened with its
//! loader and named by the spec; anything else (a checkpoint folder, a hub id) is `None`.

use std::path::PathBuf;

use lmbias_core::Embedder;
use lmbias_static::{GLOVE_6B_50D, StaticEmbeddings, open};

use crate::{f32_le, npy_bytes, scratch};

/// A fresh folder of this process's scratch space.
fn folder(name: &str) -> PathBuf {
    let dir = scratch("placeholder", "")
        .parent()
        .expect("scratch folder")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("folder");
    dir
}

fn opened(spec: &str) -> StaticEmbeddings {
    match open(spec) {
        Some(Ok(model)) => model,
        Some(Err(e)) => panic!("{spec}: {e}"),
        None => panic!("{spec} not taken for static vectors"),
    }
}

#[test]
fn static_open_files_by_extension() {
    let text = scratch("open-glove.txt", "the 1 2\nking 3 4\n");
    let vec = scratch("open-fasttext.VEC", "2 2\nthe 1 2\nking 3 4\n");
    let mut bin = b"2 2\n".to_vec();
    for (word, values) in [("the", [1.0f32, 2.0]), ("king", [3.0, 4.0])] {
        bin.extend_from_slice(word.as_bytes());
        bin.push(b' ');
        bin.extend(f32_le(&values));
    }
    let bin = scratch("open-w2v.bin", bin);
    for path in [text, vec, bin] {
        let spec = path.display().to_string();
        let model = opened(&spec);
        assert_eq!(model.model_name(), spec);
        assert_eq!(model.vector("king"), Some(&[3.0f32, 4.0][..]), "{spec}");
    }
}

#[test]
fn static_open_npy_folder() {
    let dir = folder("open-npy");
    std::fs::write(dir.join("vocab.txt"), "the\nking\n").unwrap();
    std::fs::write(
        dir.join("vectors.npy"),
        npy_bytes(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
            &f32_le(&[1.0, 2.0, 3.0, 4.0]),
        ),
    )
    .unwrap();
    let spec = dir.display().to_string();
    let model = opened(&spec);
    assert_eq!(model.model_name(), spec);
    assert_eq!(model.vector("king"), Some(&[3.0f32, 4.0][..]));

    // Without vocab.txt it is still static vectors, and the error names the missing file.
    std::fs::remove_file(dir.join("vocab.txt")).unwrap();
    let err = open(&spec).unwrap().unwrap_err().to_string();
    assert!(err.contains("vocab.txt"), "{err}");

    // With config.json it is a Hugging Face checkpoint.
    std::fs::write(dir.join("config.json"), "{}").unwrap();
    assert!(open(&spec).is_none());
}

#[test]
fn static_open_leaves_other_specs_to_the_caller() {
    let empty = folder("open-empty");
    for spec in [
        "bert-base-uncased",
        "sentence-transformers/all-MiniLM-L6-v2",
        "GloVe-6B-50d",
        "",
        empty.to_str().unwrap(),
    ] {
        assert!(open(spec).is_none(), "{spec:?}");
    }
}

#[test]
fn static_open_a_missing_file_is_an_error_naming_it() {
    for spec in ["no-such-dir/vectors.txt", "no-such.vec", "no-such.bin"] {
        let err = open(spec).unwrap().unwrap_err().to_string();
        assert!(err.starts_with(spec) && !err.contains('\n'), "{err}");
    }
}

#[test]
fn static_open_glove_6b_50d() {
    let model = opened(GLOVE_6B_50D);
    assert_eq!(model.model_name(), "glove-6b-50d");
    assert_eq!((model.len(), model.dim()), (400_000, 50));
    assert_eq!(
        model.vector("king").unwrap()[..3],
        [0.50451f32, 0.68607, -0.59517]
    );
}

#[test]
fn static_names_static_agrees_with_open_without_loading() {
    for spec in ["glove-6b-50d", "no-such.txt", "no-such.bin", "x/y.vec"] {
        assert!(lmbias_static::names_static(spec), "{spec}");
    }
    for spec in ["bert-base-uncased", "org/name", "model.safetensors", ""] {
        assert!(!lmbias_static::names_static(spec), "{spec}");
    }
}
