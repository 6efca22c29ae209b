//! A sentence-transformers folder declares its pooling (`modules.json` and the
//! Pooling module's config.json); lmbias makes it the model's default sentence
//! vector, as `SentenceTransformer.encode` does, and refuses a mode it cannot compute.

use std::path::Path;

use lmbias_core::{Layer, Pooling};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder};

const MODULES: &str = r#"[
  {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
  {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}
]"#;

/// The tiny BERT encoder with a Pooling module whose config sets `modes` true.
fn with_pooling(tag: &str, modes: &[&str]) -> std::path::PathBuf {
    let dir = lmbias_testing::copy_fixture("tiny-bert-nohead", tag);
    std::fs::write(dir.join("modules.json"), MODULES).unwrap();
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let all = [
        "pooling_mode_cls_token",
        "pooling_mode_mean_tokens",
        "pooling_mode_max_tokens",
        "pooling_mode_mean_sqrt_len_tokens",
    ];
    let fields: Vec<String> = all
        .iter()
        .map(|m| format!("\"{m}\": {}", modes.contains(m)))
        .collect();
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        format!(
            "{{\"word_embedding_dimension\": 32, {}}}",
            fields.join(", ")
        ),
    )
    .unwrap();
    dir
}

fn default_pooling(dir: &Path) -> Pooling {
    let checkpoint = Checkpoint::from_dir("tiny", dir).unwrap();
    load_embedder(&checkpoint, DeviceKind::Cpu)
        .unwrap()
        .default_pooling()
}

#[test]
fn minilm_pools_by_the_mean_its_folder_declares() {
    let dir = crate::minilm::minilm_dir();
    let checkpoint = Checkpoint::from_dir("minilm", &dir).unwrap();
    assert_eq!(checkpoint.declared_pooling(), Some(Pooling::Mean));
    let model = load_embedder(&checkpoint, DeviceKind::Cpu).unwrap();
    assert_eq!(model.default_pooling(), Pooling::Mean);
    // The default is the mean, not [CLS]: the two vectors differ.
    let text = ["Thou art more lovely and more temperate."];
    let default = model
        .embed(&text, model.default_pooling(), Layer::Last)
        .unwrap();
    let cls = model.embed(&text, Pooling::Cls, Layer::Last).unwrap();
    let mean = model.embed(&text, Pooling::Mean, Layer::Last).unwrap();
    assert_eq!(default, mean);
    assert_ne!(default, cls);
}

#[test]
fn a_declared_pooling_replaces_the_familys_default() {
    // Without modules.json, a BERT encoder's sentence vector is [CLS].
    assert_eq!(
        default_pooling(&lmbias_testing::model_dir("tiny-bert-nohead")),
        Pooling::Cls
    );
    let mean = with_pooling("st-mean", &["pooling_mode_mean_tokens"]);
    assert_eq!(default_pooling(&mean), Pooling::Mean);
    let cls = with_pooling("st-cls", &["pooling_mode_cls_token"]);
    assert_eq!(default_pooling(&cls), Pooling::Cls);
    // A modules.json without a Pooling module declares nothing.
    std::fs::write(
        cls.join("modules.json"),
        r#"[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}]"#,
    )
    .unwrap();
    assert_eq!(default_pooling(&cls), Pooling::Cls);
    for dir in [mean, cls] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_pooling_lmbias_cannot_compute_is_refused_naming_the_file_and_field() {
    let max = with_pooling("st-max", &["pooling_mode_max_tokens"]);
    let config = max.join("1_Pooling/config.json");
    let err = Checkpoint::from_dir("tiny", &max).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: invalid config: pooling_mode_max_tokens is true: lmbias pools by [CLS] or by the mean only",
            config.display()
        )
    );
    let two = with_pooling(
        "st-two",
        &["pooling_mode_cls_token", "pooling_mode_mean_tokens"],
    );
    let err = Checkpoint::from_dir("tiny", &two).unwrap_err().to_string();
    assert!(
        err.ends_with(
            "invalid config: pooling_mode_cls_token, pooling_mode_mean_tokens are all true: lmbias \
             pools by one mode, [CLS] or the mean"
        ),
        "{err}"
    );
    std::fs::write(two.join("modules.json"), "[{").unwrap();
    let err = Checkpoint::from_dir("tiny", &two).unwrap_err();
    // The file is the error's, serde_json's reason its source.
    assert_eq!(
        err.to_string(),
        format!("{}: invalid config", two.join("modules.json").display())
    );
    let cause = std::error::Error::source(&err).expect("serde_json's reason");
    assert!(cause.to_string().contains("EOF while parsing"), "{cause}");
    for dir in [max, two] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}
