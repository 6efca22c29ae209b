//! The fields of a T5 / mT5 config.json that shape the encoder.

use serde::Deserialize;

use crate::checkpoint::Checkpoint;
use crate::config_file::{nonnegative, read_json};
use crate::error::ModelError;

/// transformers' `T5Config` / `MT5Config` names and defaults; other fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct T5Config {
    model_type: String,
    pub(super) vocab_size: usize,
    pub(super) d_model: usize,
    pub(super) d_kv: usize,
    pub(super) d_ff: usize,
    pub(super) num_layers: usize,
    pub(super) num_heads: usize,
    #[serde(default = "default_num_buckets")]
    pub(super) relative_attention_num_buckets: usize,
    #[serde(default = "default_max_distance")]
    pub(super) relative_attention_max_distance: usize,
    #[serde(default = "default_layer_norm_epsilon")]
    pub(super) layer_norm_epsilon: f64,
    /// Absent means the class default: see [`T5Config::feed_forward`].
    feed_forward_proj: Option<FeedForwardProj>,
}

fn default_num_buckets() -> usize {
    32
}
fn default_max_distance() -> usize {
    128
}
fn default_layer_norm_epsilon() -> f64 {
    1e-6
}

impl T5Config {
    /// config.json of `checkpoint`, with the shapes the encoder needs checked.
    pub(super) fn read(checkpoint: &Checkpoint) -> Result<Self, ModelError> {
        let path = checkpoint.config_path();
        let config: T5Config = read_json(&path)?;
        let invalid = |problem: String| ModelError::ConfigValue {
            path: path.clone(),
            problem,
        };
        if config.num_heads == 0 {
            return Err(invalid("num_heads is 0".into()));
        }
        // T5 gives half the buckets to each direction and half of those to exact distances:
        // with fewer than 4 no distance has a bucket of its own.
        if config.relative_attention_num_buckets < 4 {
            return Err(invalid(format!(
                "relative_attention_num_buckets {} is below 4: T5 splits the buckets by \
                 direction, then into exact and log-spaced distances",
                config.relative_attention_num_buckets
            )));
        }
        nonnegative("layer_norm_epsilon", config.layer_norm_epsilon).map_err(invalid)?;
        Ok(config)
    }

    /// The feed-forward sub-layer: config.json's, else the class default
    /// ("gated-gelu" for mT5, "relu" for T5).
    pub(super) fn feed_forward(&self) -> FeedForwardProj {
        self.feed_forward_proj
            .unwrap_or(if self.model_type == "mt5" {
                FeedForwardProj::GatedGelu
            } else {
                FeedForwardProj::Relu
            })
    }
}

/// `feed_forward_proj` of config.json.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub(super) enum FeedForwardProj {
    /// `"relu"`: `wo(relu(wi(x)))` (original T5).
    Relu,
    /// `"gated-gelu"`: `wo(gelu_new(wi_0(x)) * wi_1(x))` (T5 v1.1, mT5). transformers
    /// maps "gated-gelu" to `gelu_new`, the tanh approximation, not erf GELU.
    GatedGelu,
}

impl TryFrom<String> for FeedForwardProj {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "relu" => Ok(FeedForwardProj::Relu),
            "gated-gelu" => Ok(FeedForwardProj::GatedGelu),
            other => Err(format!(
                "feed_forward_proj {other:?} is not supported (expected gated-gelu or relu)"
            )),
        }
    }
}
