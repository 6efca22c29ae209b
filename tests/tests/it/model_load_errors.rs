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
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "missing");
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
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "missinghead");
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
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "shape");
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

/// The f32 values of tensor `name` in `dir`'s weights.
fn tensor_values(dir: &Path, name: &str) -> Vec<f32> {
    let bytes = std::fs::read(dir.join("model.safetensors")).unwrap();
    let file = SafeTensors::deserialize(&bytes).unwrap();
    let view = file.tensor(name).unwrap();
    assert_eq!(view.dtype(), safetensors::Dtype::F32, "{name}");
    view.data()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn non_finite_weights_are_refused_naming_the_tensor() {
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "nonfinite");
    let weights = dir.join("model.safetensors");
    // A NaN in an f32 tensor.
    let query = "bert.encoder.layer.1.attention.self.query.weight";
    let mut values = tensor_values(&dir, query);
    values[37] = f32::NAN;
    let nan: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let view = TensorView::new(safetensors::Dtype::F32, vec![32, 32], &nan).unwrap();
    rewrite_tensor(&dir, query, Some(view));
    // An infinity in a half-precision one (widened on load): 0x7c00 is f16 +inf.
    let bias = "bert.embeddings.LayerNorm.bias";
    let mut half = vec![0u8; 32 * 2];
    half[2 * 5..2 * 5 + 2].copy_from_slice(&0x7c00u16.to_le_bytes());
    let view = TensorView::new(safetensors::Dtype::F16, vec![32], &half).unwrap();
    rewrite_tensor(&dir, bias, Some(view));
    // The embeddings load before the encoder: the infinity is met first.
    assert_eq!(
        load_error(&dir),
        format!(
            "{}: tensor {bias}: value 5 is inf, not a finite number",
            weights.display()
        )
    );
    let zeros = vec![0u8; 32 * 2];
    let view = TensorView::new(safetensors::Dtype::F16, vec![32], &zeros).unwrap();
    rewrite_tensor(&dir, bias, Some(view));
    assert_eq!(
        load_error(&dir),
        format!(
            "{}: tensor {query}: value 37 is NaN, not a finite number",
            weights.display()
        )
    );
    // The encoder alone is refused the same way (fill-mask is not what reads it).
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    let err = load_embedder(&checkpoint, DeviceKind::Cpu).err().unwrap();
    assert!(
        matches!(err, ModelError::NonFinite { index: 37, .. }),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Finite weights can still overflow: the outputs are then refused, naming the text.
#[test]
fn outputs_that_overflow_are_errors_naming_the_text() {
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "overflow");
    // Embeddings of 3e38: their sum (word + position + type) is infinite, LayerNorm's NaN.
    let name = "bert.embeddings.word_embeddings.weight";
    let huge: Vec<u8> = (0..1000 * 32).flat_map(|_| 3e38f32.to_le_bytes()).collect();
    let view = TensorView::new(safetensors::Dtype::F32, vec![1000, 32], &huge).unwrap();
    rewrite_tensor(&dir, name, Some(view));
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    let embedder = load_embedder(&checkpoint, DeviceKind::Cpu).unwrap();
    let err = embedder
        .embed(
            &["fine", "the cat"],
            lmbias_core::Pooling::Mean,
            lmbias_core::Layer::Last,
        )
        .unwrap_err();
    assert_eq!(err.index(), Some(0), "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with("text 0: the model's output value 0 is ")
            && message.ends_with(", not a finite number"),
        "{message}"
    );
    let lm = load_masked_lm(&checkpoint, DeviceKind::Cpu).unwrap();
    let err = lm.fill_mask(&["the [MASK] sat"], 3).unwrap_err();
    assert!(
        matches!(err, lmbias_core::EncoderError::NonFinite { index: 0, .. }),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn integer_weights_are_refused() {
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "dtype");
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
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "corrupt");
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
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "noweights");
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
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "config");
    let config_path = dir.join("config.json");
    let original = std::fs::read_to_string(&config_path).unwrap();

    std::fs::write(&config_path, original.replace("\"bert\"", "\"gpt2\"")).unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!(
            "{}: unsupported architecture: model_type \"gpt2\" (supported: bert, roberta",
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
            "{}: invalid config: hidden_act \"swish\" is not supported (expected gelu, gelu_new, relu or tanh) at line ",
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

/// DeBERTa: the head its config's `legacy` names must be in the file (transformers would
/// give a random one), and relative-position settings lmbias cannot compute with are named.
#[test]
fn deberta_head_and_position_settings_are_checked() {
    let dir = lmbias_testing::copy_fixture("tiny-deberta-v3-mlm", "deberta");
    let config_path = dir.join("config.json");
    let original = std::fs::read_to_string(&config_path).unwrap();
    let with = |from: &str, to: &str| {
        assert!(original.contains(from), "{from}");
        std::fs::write(&config_path, original.replace(from, to)).unwrap();
        load_error(&dir)
    };
    // The file holds lm_predictions.lm_head; legacy asks for cls.predictions.
    assert_eq!(
        with("\"legacy\": false", "\"legacy\": true"),
        format!(
            "{}: missing tensor cls.predictions.transform.dense.weight",
            dir.join("model.safetensors").display()
        )
    );
    let invalid = |problem: &str| format!("{}: invalid config: {problem}", config_path.display());
    assert_eq!(
        with(
            "\"pos_att_type\": \"p2c|c2p\"",
            "\"pos_att_type\": \"p2c|p2q\""
        ),
        invalid("pos_att_type \"p2q\" is not c2p or p2c")
    );
    assert_eq!(
        with("\"position_buckets\": 8", "\"position_buckets\": 200"),
        invalid(
            "position_buckets 200 leaves no room for log buckets below max_relative_positions 64"
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn relative_position_berts_are_refused() {
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "relative");
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
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "notokenizer");
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

/// A tensor listed twice in the safetensors header is named as such, not as the offsets
/// the second entry's removal would leave wrong (#35, MINOR list).
#[test]
fn a_tensor_listed_twice_is_named() {
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "twice");
    let path = dir.join("model.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&bytes[8..8 + n]).unwrap();
    let parsed: serde_json::Value = serde_json::from_str(header).unwrap();
    let name = "bert.embeddings.LayerNorm.bias";
    let entry = format!("\"{name}\":{},", parsed[name]);
    let doubled = header.replacen('{', &format!("{{{entry}"), 1);
    let mut out = (doubled.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(doubled.as_bytes());
    out.extend_from_slice(&bytes[8 + n..]);
    std::fs::write(&path, out).unwrap();
    assert_eq!(
        load_error(&dir),
        format!(
            "{}: tensor {name} is listed twice in the header",
            path.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Weights for more layers than config.json declares are refused, naming the first tensor
/// left over, rather than silently ignored (#35, MINOR list).
#[test]
fn weights_for_a_layer_the_config_lacks_are_refused() {
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "extra-layer");
    let config_path = dir.join("config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    let layers = config["num_hidden_layers"].as_u64().unwrap();
    config["num_hidden_layers"] = serde_json::json!(layers - 1);
    std::fs::write(&config_path, config.to_string()).unwrap();
    let err = load_error(&dir);
    assert!(
        err.starts_with(&format!(
            "{}: tensor bert.encoder.layer.{}.",
            dir.join("model.safetensors").display(),
            layers - 1
        )),
        "{err}"
    );
    assert!(
        err.ends_with(&format!(
            "belongs to a layer config.json does not declare (it declares {}): the config and \
             the weights are of different models",
            layers - 1
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Values that would make every output NaN are named by their config.json field: a
/// negative LayerNorm epsilon, a rotary base of 0; and a config that is a JSON array is
/// said to be one (#35, MINOR list).
#[test]
fn config_values_that_give_nan_are_named() {
    let edit = |fixture: &str, tag: &str, field: &str, value: serde_json::Value| {
        let dir = lmbias_testing::copy_fixture(fixture, tag);
        let path = dir.join("config.json");
        let mut config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        config[field] = value;
        std::fs::write(&path, config.to_string()).unwrap();
        // The encoder alone: mT5 has no masked-LM head.
        let err = crate::load_error(&dir, |c| load_embedder(c, DeviceKind::Cpu));
        std::fs::remove_dir_all(&dir).unwrap();
        (path, err)
    };
    let (path, err) = edit(
        "tiny-bert-mlm",
        "eps",
        "layer_norm_eps",
        serde_json::json!(-1e-5),
    );
    assert_eq!(
        err,
        format!(
            "{}: invalid config: layer_norm_eps -0.00001 must be a finite number ≥ 0",
            path.display()
        )
    );
    let (path, err) = edit(
        "tiny-modernbert-mlm",
        "theta",
        "global_rope_theta",
        serde_json::json!(0),
    );
    assert_eq!(
        err,
        format!(
            "{}: invalid config: global_rope_theta (rope_parameters.full_attention) 0 must be a \
             finite number > 0",
            path.display()
        )
    );
    let (path, err) = edit(
        "tiny-mt5",
        "buckets",
        "relative_attention_num_buckets",
        serde_json::json!(2),
    );
    assert!(
        err.starts_with(&format!(
            "{}: invalid config: relative_attention_num_buckets 2 is below 4",
            path.display()
        )),
        "{err}"
    );
    let dir = lmbias_testing::copy_fixture("tiny-bert-mlm", "array");
    std::fs::write(dir.join("config.json"), "[1, 2]").unwrap();
    assert_eq!(
        load_error(&dir),
        format!(
            "{}: invalid config: not a JSON object (config.json holds one object of settings)",
            dir.join("config.json").display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A model path that is a symbolic link loop is said as the system says it, not as a model
/// that is neither a folder nor in the cache (#35, MINOR list).
#[test]
fn a_link_loop_is_not_a_missing_model() {
    let dir = std::env::temp_dir().join(format!("lmbias-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let looped = dir.join("model");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let err = match Checkpoint::resolve(looped.to_str().unwrap()) {
        Err(e) => e,
        Ok(_) => panic!("a link loop resolved"),
    };
    assert!(matches!(err, ModelError::Io { .. }), "{err}");
    let source = std::error::Error::source(&err).unwrap().to_string();
    assert_eq!(
        format!("{err}: {source}"),
        format!(
            "{}: cannot read: Too many levels of symbolic links (os error 40)",
            looped.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
