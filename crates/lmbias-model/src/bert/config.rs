//! The fields of a BERT config.json that shape the computation.

use burn::tensor::Tensor;
use burn::tensor::activation::{gelu_approximate, relu};
use serde::Deserialize;

use crate::checkpoint::{Checkpoint, read_json};
use crate::error::ModelError;
use crate::gelu::gelu;

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
}

fn default_type_vocab_size() -> usize {
    2
}
fn default_layer_norm_eps() -> f64 {
    1e-12
}

impl BertConfig {
    /// config.json of `checkpoint`, with the shapes the model needs checked.
    pub(super) fn read(checkpoint: &Checkpoint) -> Result<Self, ModelError> {
        let path = checkpoint.config_path();
        let config: BertConfig = read_json(&path)?;
        let invalid = |message: String| ModelError::Config {
            path: path.clone(),
            message,
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
        if config.type_vocab_size == 0 {
            return Err(invalid(
                "type_vocab_size is 0: BERT reads token type 0".into(),
            ));
        }
        Ok(config)
    }
}

/// `hidden_act` of config.json, as transformers' ACT2FN maps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub(super) enum Activation {
    /// Exact erf GELU (transformers "gelu", its default).
    #[default]
    Gelu,
    /// tanh approximation (transformers "gelu_new").
    GeluNew,
    /// "relu".
    Relu,
}

impl TryFrom<String> for Activation {
    type Error = String;
    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "gelu" => Ok(Activation::Gelu),
            "gelu_new" => Ok(Activation::GeluNew),
            "relu" => Ok(Activation::Relu),
            other => Err(format!(
                "hidden_act {other:?} is not supported (expected gelu, gelu_new or relu)"
            )),
        }
    }
}

impl Activation {
    pub(super) fn forward<const D: usize>(self, x: Tensor<D>) -> Tensor<D> {
        match self {
            Activation::Gelu => gelu(x),
            Activation::GeluNew => gelu_approximate(x),
            Activation::Relu => relu(x),
        }
    }
}

/// `position_embedding_type` of config.json: only learned absolute positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub(super) enum PositionEmbeddingType {
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

#[cfg(test)]
mod tests {
    use burn::tensor::TensorData;

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

    #[test]
    fn unknown_activation_names_the_field() {
        let err = serde_json::from_str::<Activation>("\"swish\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "hidden_act \"swish\" is not supported (expected gelu, gelu_new or relu)"
            ),
            "{err}"
        );
    }
}
