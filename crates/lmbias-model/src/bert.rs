//! BERT (Devlin et al. 2019) as Hugging Face transformers computes it: the
//! encoder of `BertModel` and the prediction head of `BertForMaskedLM`.
//! Inference only: no dropout, absolute position embeddings, token type 0.

use burn::nn::{Embedding, LayerNorm, Linear};
use burn::tensor::activation::{gelu, gelu_approximate, relu, softmax};
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde::Deserialize;

use crate::checkpoint::{Checkpoint, read_json};
use crate::error::ModelError;
use crate::weights::Weights;

/// The fields of config.json that shape the computation.
#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab_size")]
    pub type_vocab_size: usize,
    #[serde(default = "default_hidden_act")]
    pub hidden_act: String,
    #[serde(default = "default_layer_norm_eps")]
    pub layer_norm_eps: f64,
    #[serde(default)]
    pub pad_token_id: u32,
    #[serde(default = "default_position_embedding_type")]
    pub position_embedding_type: String,
}

// transformers' BertConfig defaults.
fn default_type_vocab_size() -> usize {
    2
}
fn default_hidden_act() -> String {
    "gelu".into()
}
fn default_layer_norm_eps() -> f64 {
    1e-12
}
fn default_position_embedding_type() -> String {
    "absolute".into()
}

/// `hidden_act` of config.json, as transformers' ACT2FN maps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// Exact erf GELU (transformers "gelu").
    Gelu,
    /// tanh approximation (transformers "gelu_new").
    GeluNew,
    Relu,
}

impl Activation {
    fn forward<const D: usize>(self, x: Tensor<D>) -> Tensor<D> {
        match self {
            Activation::Gelu => gelu(x),
            Activation::GeluNew => gelu_approximate(x),
            Activation::Relu => relu(x),
        }
    }
}

/// Token ids of a batch, right-padded, with their attention mask.
pub struct BertInput {
    ids: Tensor<2, Int>,
    /// 1.0 for real tokens, 0.0 for padding: `[batch, seq]`.
    mask: Tensor<2>,
}

impl BertInput {
    pub fn new(sequences: &[Vec<u32>], pad_id: u32, device: &Device) -> Self {
        let batch = sequences.len();
        let seq = sequences.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut ids = vec![pad_id as i64; batch * seq];
        let mut mask = vec![0f32; batch * seq];
        for (b, s) in sequences.iter().enumerate() {
            for (t, &id) in s.iter().enumerate() {
                ids[b * seq + t] = id as i64;
                mask[b * seq + t] = 1.0;
            }
        }
        Self {
            ids: Tensor::from_data(TensorData::new(ids, [batch, seq]), device),
            mask: Tensor::from_data(TensorData::new(mask, [batch, seq]), device),
        }
    }

    /// The token ids, `[batch, seq]`.
    pub fn ids(&self) -> Tensor<2, Int> {
        self.ids.clone()
    }

    /// The attention mask, `[batch, seq]`, 1.0 on real tokens.
    pub fn mask(&self) -> Tensor<2> {
        self.mask.clone()
    }
}

struct Embeddings {
    word: Embedding,
    /// `[max_position, hidden]`, sliced to the sequence length.
    position: Tensor<2>,
    /// Row 0 of the token-type table: every lmbias input is one segment.
    token_type0: Tensor<1>,
    norm: LayerNorm,
}

struct Block {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// `cls.predictions`: transform, then a decoder onto the vocabulary.
struct MlmHead {
    dense: Linear,
    norm: LayerNorm,
    decoder: Linear,
}

/// A loaded BERT, with its prediction head when the checkpoint has one.
pub struct Bert {
    config: BertConfig,
    activation: Activation,
    embeddings: Embeddings,
    blocks: Vec<Block>,
    head: Option<MlmHead>,
}

impl Bert {
    /// Load the encoder and, when `with_head`, the MLM head; any missing tensor is an error.
    pub fn load(
        checkpoint: &Checkpoint,
        with_head: bool,
        device: &Device,
    ) -> Result<Self, ModelError> {
        let config_path = checkpoint.config_path();
        let config: BertConfig = read_json(&config_path)?;
        let activation = match config.hidden_act.as_str() {
            "gelu" => Activation::Gelu,
            "gelu_new" => Activation::GeluNew,
            "relu" => Activation::Relu,
            other => {
                return Err(ModelError::Activation {
                    path: config_path,
                    name: other.to_string(),
                });
            }
        };
        if config.position_embedding_type != "absolute" {
            return Err(ModelError::Config {
                path: config_path,
                message: format!(
                    "position_embedding_type {:?} is not supported (only absolute)",
                    config.position_embedding_type
                ),
            });
        }
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            return Err(ModelError::Config {
                path: config_path,
                message: format!(
                    "hidden_size {} is not a multiple of num_attention_heads {}",
                    config.hidden_size, config.num_attention_heads
                ),
            });
        }
        let w = Weights::open(checkpoint, device)?;
        let (h, v) = (config.hidden_size, config.vocab_size);
        let eps = config.layer_norm_eps;
        let embeddings = Embeddings {
            word: w.embedding("embeddings.word_embeddings.weight", v, h)?,
            position: w.tensor(
                "embeddings.position_embeddings.weight",
                [config.max_position_embeddings, h],
            )?,
            token_type0: w
                .tensor(
                    "embeddings.token_type_embeddings.weight",
                    [config.type_vocab_size, h],
                )?
                .narrow(0, 0, 1)
                .reshape([h]),
            norm: w.layer_norm("embeddings.LayerNorm", h, eps)?,
        };
        let blocks = (0..config.num_hidden_layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}");
                let m = config.intermediate_size;
                Ok(Block {
                    query: w.linear(&format!("{p}.attention.self.query"), h, h)?,
                    key: w.linear(&format!("{p}.attention.self.key"), h, h)?,
                    value: w.linear(&format!("{p}.attention.self.value"), h, h)?,
                    attention_out: w.linear(&format!("{p}.attention.output.dense"), h, h)?,
                    attention_norm: w.layer_norm(
                        &format!("{p}.attention.output.LayerNorm"),
                        h,
                        eps,
                    )?,
                    intermediate: w.linear(&format!("{p}.intermediate.dense"), h, m)?,
                    output: w.linear(&format!("{p}.output.dense"), m, h)?,
                    output_norm: w.layer_norm(&format!("{p}.output.LayerNorm"), h, eps)?,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        let head = if with_head {
            // Tied checkpoints (the usual case) store no decoder weight: it is the word embeddings.
            let decoder_weight = if w.contains("cls.predictions.decoder.weight") {
                "cls.predictions.decoder.weight"
            } else {
                "embeddings.word_embeddings.weight"
            };
            let decoder_bias = if w.contains("cls.predictions.bias") {
                "cls.predictions.bias"
            } else {
                "cls.predictions.decoder.bias"
            };
            Some(MlmHead {
                dense: w.linear("cls.predictions.transform.dense", h, h)?,
                norm: w.layer_norm("cls.predictions.transform.LayerNorm", h, eps)?,
                decoder: w.linear_from(decoder_weight, decoder_bias, h, v)?,
            })
        } else {
            None
        };
        Ok(Self {
            config,
            activation,
            embeddings,
            blocks,
            head,
        })
    }

    pub fn config(&self) -> &BertConfig {
        &self.config
    }

    pub fn has_head(&self) -> bool {
        self.head.is_some()
    }

    /// Hidden states after `layers` blocks (0 = the embedding output): `[batch, seq, hidden]`.
    pub fn hidden_states(&self, input: &BertInput, layers: usize) -> Tensor<3> {
        let [batch, seq] = input.ids.dims();
        let e = &self.embeddings;
        let h = self.config.hidden_size;
        let x = e.word.forward(input.ids.clone())
            + e.position.clone().narrow(0, 0, seq).reshape([1, seq, h])
            + e.token_type0.clone().reshape([1, 1, h]);
        let mut x = e.norm.forward(x);
        // Additive mask over keys, [batch, 1, 1, seq]: 0 for tokens, a large negative for padding
        // (transformers uses the dtype's minimum; any value that underflows exp() to 0 agrees).
        let mask_bias = (input.mask.clone() - 1.0)
            .mul_scalar(1e30)
            .reshape([batch, 1, 1, seq]);
        for block in self.blocks.iter().take(layers) {
            x = self.block(block, x, mask_bias.clone());
        }
        x
    }

    fn block(&self, b: &Block, x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        let [batch, seq, hidden] = x.dims();
        let heads = self.config.num_attention_heads;
        let d = hidden / heads;
        let split = |t: Tensor<3>| t.reshape([batch, seq, heads, d]).swap_dims(1, 2);
        let q = split(b.query.forward(x.clone()));
        let k = split(b.key.forward(x.clone()));
        let v = split(b.value.forward(x.clone()));
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar((d as f64).sqrt()) + mask_bias;
        let context = softmax(scores, 3)
            .matmul(v)
            .swap_dims(1, 2)
            .reshape([batch, seq, hidden]);
        let x = b
            .attention_norm
            .forward(b.attention_out.forward(context) + x);
        let inner = self.activation.forward(b.intermediate.forward(x.clone()));
        b.output_norm.forward(b.output.forward(inner) + x)
    }

    /// Vocabulary logits for a set of final hidden states `[n, hidden]` → `[n, vocab]`.
    /// `None` when the model was loaded without its head.
    pub fn mlm_logits(&self, hidden: Tensor<2>) -> Option<Tensor<2>> {
        let head = self.head.as_ref()?;
        let x = head
            .norm
            .forward(self.activation.forward(head.dense.forward(hidden)));
        Some(head.decoder.forward(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// transformers' ACT2FN["gelu" | "gelu_new" | "relu"] on these inputs (transformers 5.24,
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
}
