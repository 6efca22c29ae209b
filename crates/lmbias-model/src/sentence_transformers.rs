//! The sentence vector a sentence-transformers folder declares: `modules.json`
//! lists its modules, and the `Pooling` module's `config.json` (e.g.
//! `1_Pooling/config.json`) says which pooling its model was trained with.
//! That pooling is the folder's default, as `SentenceTransformer.encode` uses it.
//! A `Normalize` module after it scales each vector to unit length: `lmbias embed` applies
//! it, as `encode` does; the studies take the raw vectors (no cosine-based statistic, WEAT
//! or SEAT, can see the scaling, and the probe's published setting reads hidden states).
//! WEFE's RND, RIPA and RNSB (`seat --metric`) do see it: they get the raw vectors too, as
//! WEFE's own default (`normalize=False`) leaves vectors as given.

use std::path::Path;

use lmbias_core::Pooling;
use serde::Deserialize;

use crate::config_file::read_json;
use crate::error::ModelError;

#[derive(Deserialize)]
struct Module {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    path: String,
}

/// sentence-transformers' `Pooling` config: one `pooling_mode_*` flag per mode.
#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

/// What a sentence-transformers folder declares after its transformer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Declared {
    /// Its `Pooling` module's mode; `None` without one.
    pub(crate) pooling: Option<Pooling>,
    /// Whether a `Normalize` module follows.
    pub(crate) normalize: bool,
}

/// What `dir` declares; nothing when it is not a sentence-transformers folder (no
/// `modules.json`). A declared pooling mode lmbias cannot compute is an error naming the
/// file and field, never a silent substitute.
pub(crate) fn declared(dir: &Path) -> Result<Declared, ModelError> {
    let modules_path = dir.join("modules.json");
    if !modules_path.is_file() {
        return Ok(Declared::default());
    }
    let modules: Vec<Module> = read_json(&modules_path)?;
    let is = |m: &Module, kind: &str| m.kind.rsplit('.').next() == Some(kind);
    Ok(Declared {
        pooling: match modules.iter().find(|m| is(m, "Pooling")) {
            Some(module) => Some(pooling(dir, module)?),
            None => None,
        },
        normalize: modules.iter().any(|m| is(m, "Normalize")),
    })
}

/// The mode of the `Pooling` module at `module.path`.
fn pooling(dir: &Path, module: &Module) -> Result<Pooling, ModelError> {
    let path = dir.join(&module.path).join("config.json");
    let config: PoolingConfig = read_json(&path)?;
    let invalid = |problem: String| ModelError::ConfigValue {
        path: path.clone(),
        problem,
    };
    let modes = [
        ("pooling_mode_cls_token", config.pooling_mode_cls_token),
        ("pooling_mode_mean_tokens", config.pooling_mode_mean_tokens),
        ("pooling_mode_max_tokens", config.pooling_mode_max_tokens),
        (
            "pooling_mode_mean_sqrt_len_tokens",
            config.pooling_mode_mean_sqrt_len_tokens,
        ),
        (
            "pooling_mode_weightedmean_tokens",
            config.pooling_mode_weightedmean_tokens,
        ),
        ("pooling_mode_lasttoken", config.pooling_mode_lasttoken),
    ];
    let on: Vec<&str> = modes
        .iter()
        .filter(|(_, set)| *set)
        .map(|(name, _)| *name)
        .collect();
    match on[..] {
        ["pooling_mode_cls_token"] => Ok(Pooling::Cls),
        ["pooling_mode_mean_tokens"] => Ok(Pooling::Mean),
        [] => Err(invalid("no pooling_mode_* is true".to_owned())),
        [one] => Err(invalid(format!(
            "{one} is true: lmbias pools by [CLS] or by the mean only"
        ))),
        _ => Err(invalid(format!(
            "{} are all true: lmbias pools by one mode, [CLS] or the mean",
            on.join(", ")
        ))),
    }
}
