//! The fields of a DeBERTa-v2/v3 config.json that shape the encoder and its head.

use serde::Deserialize;

use crate::bert::Activation;
use crate::checkpoint::Checkpoint;
use crate::config_file::{nonnegative, read_json};
use crate::error::ModelError;

/// transformers' `DebertaV2Config` names and defaults (the fields it reads with `getattr`
/// included, at those defaults); other fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct DebertaV2Config {
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) num_hidden_layers: usize,
    pub(super) num_attention_heads: usize,
    pub(super) intermediate_size: usize,
    #[serde(default = "default_max_positions")]
    pub(super) max_position_embeddings: usize,
    #[serde(default)]
    pub(super) type_vocab_size: usize,
    #[serde(default)]
    pub(super) hidden_act: Activation,
    #[serde(default = "default_eps")]
    pub(super) layer_norm_eps: f64,
    /// Width of the token table, projected to `hidden_size` by `embed_proj` where it differs.
    #[serde(default)]
    embedding_size: Option<usize>,
    /// Head width where it is not `hidden_size / num_attention_heads`.
    #[serde(default)]
    attention_head_size: Option<usize>,
    /// Whether absolute position embeddings are added to the tokens' (DeBERTa-v3: no).
    #[serde(default = "yes")]
    pub(super) position_biased_input: bool,
    #[serde(default)]
    relative_attention: bool,
    #[serde(default = "minus_one")]
    max_relative_positions: i64,
    #[serde(default = "minus_one")]
    position_buckets: i64,
    /// Which disentangled terms are added: "c2p", "p2c", as a list or as "p2c|c2p".
    #[serde(default)]
    pos_att_type: Option<PosAttType>,
    /// "layer_norm" normalises the relative-position table before use; "none" does not.
    #[serde(default = "default_norm_rel_ebd")]
    norm_rel_ebd: String,
    /// Whether positions are projected by the content's query and key projections.
    #[serde(default)]
    pub(super) share_att_key: bool,
    /// A convolution beside the first layer (DeBERTa-v2 xlarge and up); 0 for none.
    #[serde(default)]
    pub(super) conv_kernel_size: usize,
    #[serde(default = "one")]
    pub(super) conv_groups: usize,
    #[serde(default = "default_conv_act")]
    pub(super) conv_act: Activation,
    /// transformers reads the MLM head from `cls.predictions` when true (its default), from
    /// `lm_predictions.lm_head` (the original DeBERTa's) when false.
    #[serde(default = "yes")]
    pub(super) legacy: bool,
}

/// `pos_att_type` as either spelling.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum PosAttType {
    List(Vec<String>),
    Joined(String),
}

fn default_max_positions() -> usize {
    512
}
fn default_eps() -> f64 {
    1e-7
}
fn yes() -> bool {
    true
}
fn one() -> usize {
    1
}
fn minus_one() -> i64 {
    -1
}
fn default_norm_rel_ebd() -> String {
    "none".into()
}
fn default_conv_act() -> Activation {
    Activation::Tanh
}

/// The relative-position settings of a model with `relative_attention`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Relative {
    /// Log buckets (`position_buckets`) when positive, else plain distances.
    pub(super) buckets: Option<usize>,
    /// `max_relative_positions`, or `max_position_embeddings` where that is below 1.
    pub(super) max_distance: usize,
    /// Rows used on either side of distance 0: the buckets, else the maximum distance.
    pub(super) span: usize,
    /// Content-to-position and position-to-content terms.
    pub(super) c2p: bool,
    pub(super) p2c: bool,
    /// Whether the table passes through the encoder's LayerNorm.
    pub(super) norm: bool,
}

impl DebertaV2Config {
    /// config.json of `checkpoint`, with the shapes the encoder needs checked.
    pub(super) fn read(checkpoint: &Checkpoint) -> Result<Self, ModelError> {
        let path = checkpoint.config_path();
        let config: DebertaV2Config = read_json(&path)?;
        let invalid = |problem: String| ModelError::ConfigValue {
            path: path.clone(),
            problem,
        };
        let heads = config.num_attention_heads;
        if heads == 0
            || (config.attention_head_size.is_none() && !config.hidden_size.is_multiple_of(heads))
        {
            return Err(invalid(format!(
                "hidden_size {} is not a multiple of num_attention_heads {heads}",
                config.hidden_size
            )));
        }
        nonnegative("layer_norm_eps", config.layer_norm_eps).map_err(invalid)?;
        for kind in config.pos_att_types() {
            if !matches!(kind.as_str(), "c2p" | "p2c" | "p2p") {
                return Err(invalid(format!("pos_att_type {kind:?} is not c2p or p2c")));
            }
        }
        if let Some(r) = config.relative_attention() {
            if r.span == 0 {
                return Err(invalid("relative attention over no position".into()));
            }
            // The log buckets divide by ln((max_distance − 1) / (buckets / 2)).
            if let Some(b) = r.buckets
                && (b < 2 || r.max_distance <= b / 2 + 1)
            {
                return Err(invalid(format!(
                    "position_buckets {b} leaves no room for log buckets below max_relative_positions {}",
                    r.max_distance
                )));
            }
        }
        if config.conv_kernel_size > 0
            && (config.conv_groups == 0 || !config.hidden_size.is_multiple_of(config.conv_groups))
        {
            return Err(invalid(format!(
                "hidden_size {} is not split evenly into conv_groups {}",
                config.hidden_size, config.conv_groups
            )));
        }
        if config.conv_kernel_size > 0 && config.conv_kernel_size.is_multiple_of(2) {
            // torch pads (k − 1) / 2 on each side: an even kernel would shorten the text.
            return Err(invalid(format!(
                "conv_kernel_size {} is even",
                config.conv_kernel_size
            )));
        }
        Ok(config)
    }

    /// `pos_att_type` as transformers splits it (lower-cased, `|`-separated).
    fn pos_att_types(&self) -> Vec<String> {
        match &self.pos_att_type {
            None => Vec::new(),
            Some(PosAttType::List(kinds)) => kinds.clone(),
            Some(PosAttType::Joined(s)) => s
                .to_lowercase()
                .split('|')
                .map(|k| k.trim().to_owned())
                .collect(),
        }
    }

    fn has(&self, kind: &str) -> bool {
        self.pos_att_types().iter().any(|k| k == kind)
    }

    /// The width of the token table.
    pub(super) fn embedding_size(&self) -> usize {
        self.embedding_size.unwrap_or(self.hidden_size)
    }

    /// The width of one attention head.
    pub(super) fn head_size(&self) -> usize {
        self.attention_head_size
            .unwrap_or(self.hidden_size / self.num_attention_heads)
    }

    /// `1 + [c2p] + [p2c]`: every score is divided by √(head size · this), whether or not
    /// relative attention is on (transformers' `scale_factor`).
    pub(super) fn scale_factor(&self) -> usize {
        1 + usize::from(self.has("c2p")) + usize::from(self.has("p2c"))
    }

    /// The relative-position settings, `None` without relative attention.
    pub(super) fn relative_attention(&self) -> Option<Relative> {
        self.relative_attention.then(|| self.relative())
    }

    fn relative(&self) -> Relative {
        let max_distance = usize::try_from(self.max_relative_positions)
            .ok()
            .filter(|&m| m >= 1)
            .unwrap_or(self.max_position_embeddings);
        let buckets = usize::try_from(self.position_buckets)
            .ok()
            .filter(|&b| b > 0);
        Relative {
            buckets,
            max_distance,
            span: buckets.unwrap_or(max_distance),
            c2p: self.has("c2p"),
            p2c: self.has("p2c"),
            norm: self
                .norm_rel_ebd
                .to_lowercase()
                .split('|')
                .any(|x| x.trim() == "layer_norm"),
        }
    }
}
