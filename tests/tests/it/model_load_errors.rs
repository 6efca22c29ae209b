//! Every way a checkpoint folder can be broken gives a one-line error naming
//! the file (and the tensor): broken copies of the tiny fixture in a temp dir.

use std::path::Path;

use lmbias_model::{Checkpoint, DeviceKind, ModelError, load_embedder, load_masked_lm};
use lmbias_text::TextError;
use safetensors::SafeTensors;
use safetensors::tensor::TensorView;

/// Rewrite `model.safetensors` in `dir` with tensor `name` replaced, or removed when `None`.
fn rewrite_tensor(dir: &Path, name: &str, replacement: Option<TensorView<'_>>) {
    let path = dir.join("model.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let mut tensors: Vec<(String, TensorView<'_>)> = file
        .tensors()
        .into_iter()
        .filter(|(n, _)| n != name)
        .collect();
    assert_eq!(
        tensors.len() + 1,
        file.len(),
        "{name} is not in the fixture"
    );
    if let Some(view) = replacement {
        tensors.push((name.to_string(), view));
    }
    let out = safetensors::serialize(tensors, None).unwrap();
    std::fs::write(&path, out).unwrap();
}

fn load_error(dir: &Path) -> String {
    crate::load_error(dir, |c| load_masked_lm(c, DeviceKind::Cpu))
}

#[test]
fn missing_tensor_is_named() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "missing");
    rewrite_tensor(&dir, "bert.encoder.layer.1.output.dense.weight", None);
    assert_eq!(
        load_error(&dir),
        format!(
            "{}: missing tensor bert.encoder.layer.1.output.dense.weight",
            dir.join("model.safetensors").display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_head_tensor_is_named() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "missinghead");
    rewrite_tensor(&dir, "cls.predictions.transform.LayerNorm.weight", None);
    let err = load_error(&dir);
    assert!(
        err.ends_with(
            "model.safetensors: missing tensor cls.predictions.transform.LayerNorm.weight"
        ),
        "{err}"
    );
    // The encoder alone still loads: the head is only read for fill-mask.
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    assert!(load_embedder(&checkpoint, DeviceKind::Cpu).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wrong_shape_is_named() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "shape");
    let small = [0u8; 16];
    let view = TensorView::new(safetensors::Dtype::F32, vec![2, 2], &small).unwrap();
    rewrite_tensor(&dir, "bert.encoder.layer.1.output.dense.weight", Some(view));
    assert_eq!(
        load_error(&dir),
        format!(
            "{}: tensor bert.encoder.layer.1.output.dense.weight has shape [2, 2], expected [32, 37]",
            dir.join("model.safetensors").display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn integer_weights_are_refused() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "dtype");
    let ints = vec![0u8; 32 * 8];
    let view = TensorView::new(safetensors::Dtype::I64, vec![32], &ints).unwrap();
    rewrite_tensor(&dir, "bert.embeddings.LayerNorm.bias", Some(view));
    let err = load_error(&dir);
    assert!(
        err.ends_with(
            "tensor bert.embeddings.LayerNorm.bias has dtype I64, expected f32, f16 or bf16"
        ),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_weights_file_is_named() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "corrupt");
    std::fs::write(dir.join("model.safetensors"), b"not a safetensors file").unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!(
            "{}: cannot read weights:",
            dir.join("model.safetensors").display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn folder_without_weights_is_named() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "noweights");
    std::fs::remove_file(dir.join("model.safetensors")).unwrap();
    assert_eq!(
        load_error(&dir),
        format!(
            "{}: no model.safetensors or pytorch_model.bin",
            dir.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_problems_are_named() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "config");
    let config_path = dir.join("config.json");
    let original = std::fs::read_to_string(&config_path).unwrap();

    std::fs::write(&config_path, original.replace("\"bert\"", "\"roberta\"")).unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!(
            "{}: unsupported architecture: model_type \"roberta\" (supported: bert",
            config_path.display()
        )),
        "{err}"
    );

    std::fs::write(
        &config_path,
        original.replace("\"hidden_act\": \"gelu\"", "\"hidden_act\": \"swish\""),
    )
    .unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!(
            "{}: invalid config: hidden_act \"swish\" is not supported (expected gelu, gelu_new or relu) at line ",
            config_path.display()
        )),
        "{err}"
    );

    std::fs::write(&config_path, "{ not json").unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!("{}: invalid config:", config_path.display())),
        "{err}"
    );

    std::fs::remove_file(&config_path).unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!("{}:", config_path.display())),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn relative_position_berts_are_refused() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "relative");
    let config_path = dir.join("config.json");
    let original = std::fs::read_to_string(&config_path).unwrap();
    std::fs::write(
        &config_path,
        original.replace(
            "\"hidden_act\": \"gelu\"",
            "\"hidden_act\": \"gelu\", \"position_embedding_type\": \"relative_key\"",
        ),
    )
    .unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!(
            "{}: invalid config: position_embedding_type \"relative_key\" is not supported (only absolute)",
            config_path.display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The tokenizer's own error, typed, is the model error: one message naming the
/// folder, and no source repeating it.
#[test]
fn tokenizer_problems_keep_their_type() {
    let dir = lmbias_tests::copy_fixture("tiny-bert-mlm", "notokenizer");
    std::fs::remove_file(dir.join("tokenizer.json")).unwrap();
    std::fs::remove_file(dir.join("vocab.txt")).unwrap();
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    let err = load_embedder(&checkpoint, DeviceKind::Cpu).err().unwrap();
    assert!(
        matches!(err, ModelError::Tokenizer(TextError::NoTokenizer { .. })),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("{}: no tokenizer found", dir.display())),
        "{err}"
    );
    assert!(std::error::Error::source(&err).is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_model_says_how_to_get_it() {
    let err = load_error(Path::new("no-such-org/no-such-model"));
    assert!(
        err.starts_with("model \"no-such-org/no-such-model\" not found"),
        "{err}"
    );
    assert!(
        err.contains("huggingface-cli download no-such-org/no-such-model"),
        "{err}"
    );
}
