//! The fields of a BERT config.json that shape the computation.

use burn::tensor::Tensor;
use burn::tensor::activation::{gelu_approximate, relu};
use serde::{Deserialize, Serialize};

use crate::checkpoint::Checkpoint;
use crate::config_file::{nonnegative, read_json};
use crate::error::ModelError;
use crate::gelu::gelu;

use super::variant::Variant;

/// transformers' `BertConfig` names and defaults; other fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BertConfig {
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) num_hidden_layers: usize,
    pub(super) num_attention_heads: usize,
    pub(super) intermediate_size: usize,
    pub(super) max_position_embeddings: usize,
    #[serde(default = "default_type_vocab_size")]
    pub(super) type_vocab_size: usize,
    #[serde(default)]
    pub(super) hidden_act: Activation,
    #[serde(default = "default_layer_norm_eps")]
    pub(super) layer_norm_eps: f64,
    /// Only "absolute" is read; the field is checked so a relative-position
    /// BERT is refused instead of computed wrongly.
    #[serde(default)]
    pub(super) position_embedding_type: PositionEmbeddingType,
    /// Dropout after the embeddings, the attention output and the feed-forward
    /// output; read only when training.
    #[serde(default = "default_dropout")]
    pub(super) hidden_dropout_prob: f64,
    /// Dropout on the attention probabilities; read only when training.
    #[serde(default = "default_dropout")]
    pub(super) attention_probs_dropout_prob: f64,
    /// Standard deviation of freshly initialised weights (a new MLM head, or a
    /// model trained from scratch).
    #[serde(default = "default_initializer_range")]
    pub(super) initializer_range: f64,
    /// The padding token's id: RoBERTa numbers positions from the one after it.
    #[serde(default)]
    pub(super) pad_token_id: Option<usize>,
    /// ELECTRA's and ALBERT's embedding width, projected to `hidden_size`.
    #[serde(default)]
    pub(super) embedding_size: Option<usize>,
    /// ALBERT: how many groups of layers are stored (steps are split evenly among them).
    #[serde(default)]
    pub(super) num_hidden_groups: Option<usize>,
    /// ALBERT: layers in each group, applied in order at every step of the group.
    #[serde(default)]
    pub(super) inner_group_num: Option<usize>,
    /// DistilBERT's fixed sinusoidal position table, computed where a checkpoint lacks it.
    #[serde(skip)]
    pub(super) sinusoidal_positions: bool,
    /// Which of BERT's descendants this is: set from the checkpoint's `model_type`.
    #[serde(skip)]
    pub(super) variant: Variant,
}

fn default_initializer_range() -> f64 {
    0.02
}

/// transformers' `BertConfig` default for both dropout rates.
fn default_dropout() -> f64 {
    0.1
}

fn default_type_vocab_size() -> usize {
    2
}
fn default_layer_norm_eps() -> f64 {
    1e-12
}

/// The shape of a BERT trained from scratch; every other field takes
/// transformers' `BertConfig` default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BertShape {
    /// `num_hidden_layers`.
    pub layers: usize,
    /// `hidden_size`.
    pub hidden: usize,
    /// `num_attention_heads`; must divide `hidden`.
    pub heads: usize,
    /// `intermediate_size`.
    pub intermediate: usize,
    /// `max_position_embeddings`: the longest input.
    pub max_positions: usize,
}

/// The shape as the command line gives it, for messages.
impl std::fmt::Display for BertShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--layers {} --hidden {} --heads {} --intermediate {} --max-positions {}",
            self.layers, self.hidden, self.heads, self.intermediate, self.max_positions
        )
    }
}

impl BertShape {
    /// The first size that is 0, by its option: a network with nothing in it, named before
    /// any arithmetic on it (a width of 0 would divide by zero further on).
    pub fn zero_size(&self) -> Option<&'static str> {
        [
            ("--layers", self.layers),
            ("--hidden", self.hidden),
            ("--heads", self.heads),
            ("--intermediate", self.intermediate),
            ("--max-positions", self.max_positions),
        ]
        .into_iter()
        .find_map(|(option, size)| (size == 0).then_some(option))
    }

    /// Parameters of a `BertForMaskedLM` of this shape over `vocab_size` pieces (embeddings,
    /// layers, the MLM head with its decoder tied), counted exactly in u128.
    pub fn parameters(&self, vocab_size: usize) -> u128 {
        let (h, i, l) = (
            self.hidden as u128,
            self.intermediate as u128,
            self.layers as u128,
        );
        let type_vocab = default_type_vocab_size() as u128;
        let embeddings = (vocab_size as u128 + self.max_positions as u128 + type_vocab) * h + 2 * h;
        // Q, K, V, output (weights and biases), two LayerNorms, the feed-forward pair.
        let layer = 4 * (h * h + h) + 2 * 2 * h + (h * i + i) + (i * h + h);
        // The head's transform, its LayerNorm and the decoder's bias.
        let head = h * h + h + 2 * h + vocab_size as u128;
        embeddings + l * layer + head
    }
}

/// Bytes per parameter of a training run: the f32 weight, its gradient and AdamW's two moments.
const TRAINING_BYTES_PER_PARAMETER: u128 = 16;

/// The machine's memory from `/proc/meminfo` (Linux), or `None` where it cannot be read.
fn machine_memory() -> Option<u128> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u128 = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// Where the machine's memory cannot be read, the largest training lmbias starts (1 TiB).
const MEMORY_WHEN_UNKNOWN: u128 = 1 << 40;

impl BertConfig {
    /// A new model's config: `shape`, a vocabulary of `vocab_size`, and
    /// transformers' defaults (GELU, dropout 0.1, two token types, eps 1e-12). A shape
    /// whose training would need more memory than the machine has is refused here, before
    /// anything is allocated.
    pub(crate) fn scratch(shape: BertShape, vocab_size: usize) -> Result<Self, String> {
        if let Some(option) = shape.zero_size() {
            return Err(format!("{option} 0: must be at least 1"));
        }
        if !shape.hidden.is_multiple_of(shape.heads) {
            return Err(format!(
                "--hidden {} is not a multiple of --heads {}",
                shape.hidden, shape.heads
            ));
        }
        let parameters = shape.parameters(vocab_size);
        let needed = parameters.saturating_mul(TRAINING_BYTES_PER_PARAMETER);
        let memory = machine_memory();
        if needed > memory.unwrap_or(MEMORY_WHEN_UNKNOWN) {
            let gb = |bytes: u128| bytes as f64 / 1e9;
            return Err(format!(
                "{parameters} parameters (vocabulary {vocab_size}) need at least {:.1} GB to \
                 train (f32 weights, gradients and AdamW's two moments), more than {}",
                gb(needed),
                match memory {
                    Some(m) => format!("this machine's {:.1} GB", gb(m)),
                    None => format!("the {:.0} GB lmbias allows", gb(MEMORY_WHEN_UNKNOWN)),
                }
            ));
        }
        Ok(Self {
            vocab_size,
            hidden_size: shape.hidden,
            num_hidden_layers: shape.layers,
            num_attention_heads: shape.heads,
            intermediate_size: shape.intermediate,
            max_position_embeddings: shape.max_positions,
            type_vocab_size: default_type_vocab_size(),
            hidden_act: Activation::Gelu,
            layer_norm_eps: default_layer_norm_eps(),
            position_embedding_type: PositionEmbeddingType::Absolute,
            hidden_dropout_prob: default_dropout(),
            attention_probs_dropout_prob: default_dropout(),
            initializer_range: default_initializer_range(),
            pad_token_id: None,
            embedding_size: None,
            num_hidden_groups: None,
            inner_group_num: None,
            sinusoidal_positions: false,
            variant: Variant::Bert,
        })
    }

    /// config.json of a `BertForMaskedLM` with these fields, as transformers writes it.
    pub(crate) fn to_json(&self, pad_token_id: u32) -> serde_json::Value {
        serde_json::json!({
            "architectures": ["BertForMaskedLM"],
            "model_type": "bert",
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size,
            "num_hidden_layers": self.num_hidden_layers,
            "num_attention_heads": self.num_attention_heads,
            "intermediate_size": self.intermediate_size,
            "max_position_embeddings": self.max_position_embeddings,
            "type_vocab_size": self.type_vocab_size,
            "hidden_act": self.hidden_act.name(),
            "layer_norm_eps": self.layer_norm_eps,
            "position_embedding_type": "absolute",
            "hidden_dropout_prob": self.hidden_dropout_prob,
            "attention_probs_dropout_prob": self.attention_probs_dropout_prob,
            "initializer_range": self.initializer_range,
            "pad_token_id": pad_token_id,
            "tie_word_embeddings": true,
            "dtype": "float32",
        })
    }

    /// The longest input (learned positions): RoBERTa's table starts after the padding
    /// token's id (514 rows for 512 tokens).
    pub(crate) fn max_positions(&self) -> usize {
        self.max_position_embeddings
            .saturating_sub(self.position_offset())
    }

    /// The position id of a text's first token.
    pub(super) fn position_offset(&self) -> usize {
        match self.variant {
            Variant::Roberta => self.pad_token_id.unwrap_or(1) + 1,
            _ => 0,
        }
    }

    /// Width of the embeddings: ELECTRA's and ALBERT's `embedding_size` (transformers'
    /// default 128), else the hidden size.
    pub(super) fn embedding_size(&self) -> usize {
        match self.variant {
            Variant::Electra | Variant::Albert => self.embedding_size.unwrap_or(128),
            _ => self.hidden_size,
        }
    }

    /// ALBERT's groups and layers per group (1 and 1 by transformers' defaults).
    fn albert_groups(&self) -> (usize, usize) {
        (
            self.num_hidden_groups.unwrap_or(1),
            self.inner_group_num.unwrap_or(1),
        )
    }

    /// The names of the layers stored, under the encoder's scope.
    pub(super) fn stored_layers(&self) -> Vec<String> {
        let stack = self.variant.names().layers;
        match self.variant {
            Variant::Albert => {
                let (groups, inner) = self.albert_groups();
                (0..groups)
                    .flat_map(|g| (0..inner).map(move |i| format!("{stack}.{g}.albert_layers.{i}")))
                    .collect()
            }
            _ => (0..self.num_hidden_layers)
                .map(|i| format!("{stack}.{i}"))
                .collect(),
        }
    }

    /// The stored layer each layer of the output applies, in order (indices into
    /// [`BertConfig::stored_layers`]): one per layer in BERT. ALBERT's step i of
    /// `num_hidden_layers` runs the `inner_group_num` layers of group ⌊i / (layers /
    /// groups)⌋, as transformers' `AlbertTransformer` does, and transformers 5 reports
    /// the hidden state after each of them (one per step where, as in the published
    /// ALBERTs, a group has one layer).
    pub(super) fn layer_schedule(&self) -> Vec<usize> {
        match self.variant {
            Variant::Albert => {
                let (groups, inner) = self.albert_groups();
                let per_group = self.num_hidden_layers / groups;
                (0..self.num_hidden_layers)
                    .flat_map(|i| {
                        let g = i / per_group;
                        g * inner..(g + 1) * inner
                    })
                    .collect()
            }
            _ => (0..self.num_hidden_layers).collect(),
        }
    }

    /// The activation of the masked-LM head's transform: RoBERTa's `lm_head` and ELECTRA's
    /// generator use exact GELU whatever `hidden_act` says.
    pub(super) fn head_activation(&self) -> Activation {
        match self.variant {
            Variant::Roberta | Variant::Electra => Activation::Gelu,
            Variant::Bert | Variant::DistilBert | Variant::Albert => self.hidden_act,
        }
    }

    /// Which of BERT's descendants this is.
    pub(crate) fn variant(&self) -> Variant {
        self.variant
    }

    /// Rows of the word-embedding table.
    pub(crate) fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    /// The same network over `extra` more vocabulary entries (`train-mlm --add-words`).
    pub(crate) fn with_more_words(mut self, extra: usize) -> Self {
        self.vocab_size += extra;
        self
    }

    /// Standard deviation of freshly initialised weights.
    pub(crate) fn initializer_range(&self) -> f64 {
        self.initializer_range
    }

    /// config.json of `checkpoint`, with the shapes the model needs checked.
    pub(super) fn read(checkpoint: &Checkpoint) -> Result<Self, ModelError> {
        let path = checkpoint.config_path();
        let variant = Variant::of(checkpoint.architecture()).unwrap_or_default();
        let config = match variant {
            Variant::DistilBert => distilbert_config(&path)?,
            _ => BertConfig {
                variant,
                ..read_json(&path)?
            },
        };
        let invalid = |problem: String| ModelError::ConfigValue {
            path: path.clone(),
            problem,
        };
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            return Err(invalid(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                config.hidden_size, config.num_attention_heads
            )));
        }
        for (field, p) in [
            ("hidden_dropout_prob", config.hidden_dropout_prob),
            (
                "attention_probs_dropout_prob",
                config.attention_probs_dropout_prob,
            ),
        ] {
            if !(0.0..1.0).contains(&p) {
                return Err(invalid(format!("{field} {p} is not in [0, 1)")));
            }
        }
        nonnegative("layer_norm_eps", config.layer_norm_eps).map_err(invalid)?;
        if config.type_vocab_size == 0 && variant != Variant::DistilBert {
            return Err(invalid(
                "type_vocab_size is 0: BERT reads token type 0".into(),
            ));
        }
        if variant == Variant::Albert {
            let (groups, inner) = config.albert_groups();
            if groups == 0 || inner == 0 || !config.num_hidden_layers.is_multiple_of(groups) {
                return Err(invalid(format!(
                    "num_hidden_layers {} is not split evenly into num_hidden_groups {groups} \
                     (each of inner_group_num {inner} layers)",
                    config.num_hidden_layers
                )));
            }
        }
        if config.max_positions() == 0 {
            return Err(invalid(format!(
                "max_position_embeddings {} leaves no position after the padding token's id",
                config.max_position_embeddings
            )));
        }
        Ok(config)
    }
}

/// `hidden_act` of config.json, as transformers' ACT2FN maps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub(crate) enum Activation {
    /// Exact erf GELU (transformers "gelu", its default).
    #[default]
    Gelu,
    /// tanh approximation (transformers "gelu_new").
    GeluNew,
    /// "relu".
    Relu,
    /// "tanh" (DeBERTa-v2's default `conv_act`).
    Tanh,
}

impl TryFrom<String> for Activation {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "gelu" => Ok(Activation::Gelu),
            "gelu_new" => Ok(Activation::GeluNew),
            "relu" => Ok(Activation::Relu),
            "tanh" => Ok(Activation::Tanh),
            other => Err(format!(
                "hidden_act {other:?} is not supported (expected gelu, gelu_new, relu or tanh)"
            )),
        }
    }
}

impl Activation {
    /// The name config.json gives it.
    fn name(self) -> &'static str {
        match self {
            Activation::Gelu => "gelu",
            Activation::GeluNew => "gelu_new",
            Activation::Relu => "relu",
            Activation::Tanh => "tanh",
        }
    }

    pub(crate) fn forward<const D: usize>(self, x: Tensor<D>) -> Tensor<D> {
        match self {
            Activation::Gelu => gelu(x),
            Activation::GeluNew => gelu_approximate(x),
            Activation::Relu => relu(x),
            Activation::Tanh => x.tanh(),
        }
    }
}

/// `position_embedding_type` of config.json: only learned absolute positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub(crate) enum PositionEmbeddingType {
    /// "absolute", the default.
    #[default]
    Absolute,
}

impl TryFrom<String> for PositionEmbeddingType {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "absolute" => Ok(PositionEmbeddingType::Absolute),
            other => Err(format!(
                "position_embedding_type {other:?} is not supported (only absolute)"
            )),
        }
    }
}

/// transformers' `DistilBertConfig` names and defaults; read into a [`BertConfig`].
#[derive(Deserialize)]
struct DistilBertConfig {
    vocab_size: usize,
    dim: usize,
    n_layers: usize,
    n_heads: usize,
    hidden_dim: usize,
    max_position_embeddings: usize,
    #[serde(default)]
    activation: Activation,
    #[serde(default = "distilbert_dropout")]
    dropout: f64,
    #[serde(default = "distilbert_dropout")]
    attention_dropout: f64,
    #[serde(default)]
    sinusoidal_pos_embds: bool,
    #[serde(default = "distilbert_initializer_range")]
    initializer_range: f64,
}

fn distilbert_dropout() -> f64 {
    0.1
}

fn distilbert_initializer_range() -> f64 {
    0.02
}

/// config.json of a DistilBERT checkpoint as the BERT fields it means: no token types,
/// LayerNorm eps 1e-12 (fixed in transformers' DistilBERT).
fn distilbert_config(path: &std::path::Path) -> Result<BertConfig, ModelError> {
    let c: DistilBertConfig = read_json(path)?;
    Ok(BertConfig {
        vocab_size: c.vocab_size,
        hidden_size: c.dim,
        num_hidden_layers: c.n_layers,
        num_attention_heads: c.n_heads,
        intermediate_size: c.hidden_dim,
        max_position_embeddings: c.max_position_embeddings,
        type_vocab_size: 0,
        hidden_act: c.activation,
        layer_norm_eps: 1e-12,
        position_embedding_type: PositionEmbeddingType::Absolute,
        hidden_dropout_prob: c.dropout,
        attention_probs_dropout_prob: c.attention_dropout,
        initializer_range: c.initializer_range,
        pad_token_id: None,
        embedding_size: None,
        num_hidden_groups: None,
        inner_group_num: None,
        sinusoidal_positions: c.sinusoidal_pos_embds,
        variant: Variant::DistilBert,
    })
}

#[cfg(test)]
mod tests {
    use burn::tensor::TensorData;

    use super::*;

    /// all-MiniLM-L6-v2's shape as a BertForMaskedLM (decoder tied, no pooler): 22,744,506
    /// parameters, as transformers counts them: embeddings (30522 + 512 + 2) × 384 + 768,
    /// six layers of 1,774,464, the head 384 × 384 + 384 + 768 + 30522.
    #[test]
    fn parameters_of_a_shape() {
        let minilm = BertShape {
            layers: 6,
            hidden: 384,
            heads: 12,
            intermediate: 1536,
            max_positions: 512,
        };
        assert_eq!(minilm.parameters(30522), 22_744_506);
        assert_eq!(
            minilm.to_string(),
            "--layers 6 --hidden 384 --heads 12 --intermediate 1536 --max-positions 512"
        );
        // A trillion positions is refused before anything is allocated.
        let huge = BertShape {
            max_positions: 1_000_000_000_000,
            ..minilm
        };
        let err = BertConfig::scratch(huge, 30522).unwrap_err();
        assert!(
            err.starts_with("384000022547898 parameters (vocabulary 30522) need at least "),
            "{err}"
        );
        assert!(BertConfig::scratch(minilm, 30522).is_ok());
        // Zero-sized shapes, each named by its option, never a panic further on.
        for (option, shape) in [
            (
                "--layers",
                BertShape {
                    layers: 0,
                    ..minilm
                },
            ),
            (
                "--hidden",
                BertShape {
                    hidden: 0,
                    ..minilm
                },
            ),
            ("--heads", BertShape { heads: 0, ..minilm }),
            (
                "--intermediate",
                BertShape {
                    intermediate: 0,
                    ..minilm
                },
            ),
            (
                "--max-positions",
                BertShape {
                    max_positions: 0,
                    ..minilm
                },
            ),
        ] {
            assert_eq!(
                BertConfig::scratch(shape, 30522).unwrap_err(),
                format!("{option} 0: must be at least 1")
            );
        }
        let uneven = BertShape { heads: 5, ..minilm };
        assert_eq!(
            BertConfig::scratch(uneven, 30522).unwrap_err(),
            "--hidden 384 is not a multiple of --heads 5"
        );
    }

    /// transformers' ACT2FN["gelu" | "gelu_new" | "relu" | "tanh"] on these inputs (transformers 5.24,
    /// torch 2.15, rounded to 7 decimals).
    #[test]
    fn activations_match_transformers() {
        let device = crate::DeviceKind::Cpu.device().unwrap();
        let x = [-3.0f32, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0];
        let cases = [
            (
                Activation::Gelu,
                [
                    -0.0040502, -0.1586553, -0.1542688, 0.0, 0.3457312, 0.8413447, 2.9959497,
                ],
            ),
            (
                Activation::GeluNew,
                [
                    -0.0036374, -0.158808, -0.154286, 0.0, 0.345714, 0.841192, 2.9963627,
                ],
            ),
            (Activation::Relu, [0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 3.0]),
            (
                Activation::Tanh,
                [
                    -0.9950548, -0.7615942, -0.4621172, 0.0, 0.4621172, 0.7615942, 0.9950548,
                ],
            ),
        ];
        for (activation, want) in cases {
            let input = Tensor::<1>::from_data(TensorData::new(x.to_vec(), [x.len()]), &device);
            let got = activation
                .forward(input)
                .into_data()
                .try_into_vec::<f32>()
                .unwrap();
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-6, "{activation:?}: {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn unknown_activation_names_the_field() {
        let err = serde_json::from_str::<Activation>("\"swish\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "hidden_act \"swish\" is not supported (expected gelu, gelu_new, relu or tanh)"
            ),
            "{err}"
        );
    }
}
