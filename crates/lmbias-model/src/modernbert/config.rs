//! The fields of a ModernBERT config.json that shape the encoder and its head.

use serde::Deserialize;

use crate::bert::Activation;
use crate::checkpoint::Checkpoint;
use crate::config_file::{nonnegative, read_json};
use crate::error::ModelError;

/// transformers' `ModernBertConfig` names and defaults; other fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ModernBertConfig {
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) intermediate_size: usize,
    pub(super) num_hidden_layers: usize,
    pub(super) num_attention_heads: usize,
    #[serde(default = "default_max_positions")]
    pub(super) max_position_embeddings: usize,
    #[serde(default)]
    pub(super) hidden_activation: Activation,
    #[serde(default = "default_eps")]
    pub(super) norm_eps: f64,
    #[serde(default)]
    pub(super) norm_bias: bool,
    #[serde(default)]
    pub(super) attention_bias: bool,
    #[serde(default)]
    pub(super) mlp_bias: bool,
    #[serde(default)]
    pub(super) classifier_activation: Activation,
    #[serde(default)]
    pub(super) classifier_bias: bool,
    #[serde(default = "yes")]
    pub(super) decoder_bias: bool,
    /// Every this many layers one attends globally (layer 0 among them); the others see
    /// a window of `local_attention` tokens.
    #[serde(default = "default_global_every")]
    global_attn_every_n_layers: usize,
    /// transformers 5's spelling of the same: each layer's `full_attention` or
    /// `sliding_attention`.
    #[serde(default)]
    layer_types: Option<Vec<String>>,
    #[serde(default = "default_local_attention")]
    pub(super) local_attention: usize,
    /// Rotary bases, as transformers 4 names them …
    global_rope_theta: Option<f64>,
    local_rope_theta: Option<f64>,
    /// … and as transformers 5 writes them (`rope_parameters` by attention type).
    #[serde(default)]
    rope_parameters: Option<RopeParameters>,
}

#[derive(Debug, Clone, Deserialize)]
struct RopeParameters {
    full_attention: Option<Rope>,
    sliding_attention: Option<Rope>,
}

#[derive(Debug, Clone, Deserialize)]
struct Rope {
    rope_theta: f64,
}

fn default_max_positions() -> usize {
    8192
}
fn default_eps() -> f64 {
    1e-5
}
fn yes() -> bool {
    true
}
fn default_global_every() -> usize {
    3
}
fn default_local_attention() -> usize {
    128
}

impl ModernBertConfig {
    /// config.json of `checkpoint`, with the shapes the encoder needs checked.
    pub(super) fn read(checkpoint: &Checkpoint) -> Result<Self, ModelError> {
        let path = checkpoint.config_path();
        let config: ModernBertConfig = read_json(&path)?;
        let invalid = |problem: String| ModelError::ConfigValue {
            path: path.clone(),
            problem,
        };
        let heads = config.num_attention_heads;
        if heads == 0 || !config.hidden_size.is_multiple_of(heads) {
            return Err(invalid(format!(
                "hidden_size {} is not a multiple of num_attention_heads {heads}",
                config.hidden_size
            )));
        }
        if !(config.hidden_size / heads).is_multiple_of(2) {
            return Err(invalid(format!(
                "head size {} is odd: rotary positions rotate pairs of dimensions",
                config.hidden_size / heads
            )));
        }
        if config.global_attn_every_n_layers == 0 {
            return Err(invalid("global_attn_every_n_layers is 0".into()));
        }
        nonnegative("norm_eps", config.norm_eps).map_err(&invalid)?;
        // A base of 0 (or below) makes every rotary frequency infinite: NaN outputs.
        for (field, theta) in [
            (
                "global_rope_theta (rope_parameters.full_attention)",
                config.global_theta(),
            ),
            (
                "local_rope_theta (rope_parameters.sliding_attention)",
                config.local_theta(),
            ),
        ] {
            if !(theta.is_finite() && theta > 0.0) {
                return Err(invalid(format!(
                    "{field} {theta} must be a finite number > 0"
                )));
            }
        }
        Ok(config)
    }

    /// Whether layer `i` attends globally (else within its window).
    pub(super) fn is_global(&self, i: usize) -> bool {
        match self.layer_types.as_ref().and_then(|t| t.get(i)) {
            Some(kind) => kind != "sliding_attention",
            None => i.is_multiple_of(self.global_attn_every_n_layers),
        }
    }

    /// The rotary base of layer `i`: the global one, or the local one for a windowed layer.
    pub(super) fn rope_theta(&self, i: usize) -> f64 {
        if self.is_global(i) {
            self.global_theta()
        } else {
            self.local_theta()
        }
    }

    /// The rotary base of the global layers (default 160,000).
    fn global_theta(&self) -> f64 {
        let rope = self.rope_parameters.as_ref();
        self.global_rope_theta
            .or_else(|| Some(rope?.full_attention.as_ref()?.rope_theta))
            .unwrap_or(160_000.0)
    }

    /// The rotary base of the windowed layers (default 10,000).
    fn local_theta(&self) -> f64 {
        let rope = self.rope_parameters.as_ref();
        self.local_rope_theta
            .or_else(|| Some(rope?.sliding_attention.as_ref()?.rope_theta))
            .unwrap_or(10_000.0)
    }
}
