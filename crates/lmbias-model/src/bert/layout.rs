//! Where each parameter of a `BertForMaskedLM` is, by id, with the sizes and
//! settings of its forward pass: what the trainer's hand-written CPU step
//! (lmbias-kernels' `bert::Step`) needs to compute the same network as
//! [`BertForMaskedLm`] without Burn's graph.

use burn::module::ParamId;
use burn::nn::LayerNorm;
use lmbias_kernels::bert::{Layer, Layout, Linear, Norm, Sizes};

use super::config::Activation;
use super::mlm::BertForMaskedLm;
use super::variant::Variant;
use crate::dense::Dense;

impl BertForMaskedLm {
    /// The layout of this network if it is plain BERT as the hand-written step
    /// computes it: BERT's own layers (not a descendant's), f32 weights with biases,
    /// exact GELU, embeddings as wide as the layers. `None` otherwise (the trainer
    /// then takes Burn's graph).
    pub(crate) fn layout(&self) -> Option<Layout<ParamId>> {
        let bert = &self.bert;
        let c = bert.config();
        let e = &bert.embeddings;
        let plain = c.variant() == Variant::Bert
            && bert.project.is_none()
            && c.embedding_size() == c.hidden_size
            && c.hidden_act == Activation::Gelu
            && c.head_activation() == Activation::Gelu
            && c.num_attention_heads > 0
            && c.hidden_size.is_multiple_of(c.num_attention_heads)
            && bert.encoder.layers.len() == bert.encoder.schedule.len()
            && bert
                .encoder
                .schedule
                .iter()
                .enumerate()
                .all(|(i, &j)| i == j);
        if !plain {
            return None;
        }
        let layers = bert
            .encoder
            .layers
            .iter()
            .map(|l| {
                let a = &l.attention;
                Some(Layer {
                    query: linear(&a.query)?,
                    key: linear(&a.key)?,
                    value: linear(&a.value)?,
                    attention_output: linear(&a.output)?,
                    attention_norm: norm(&a.norm)?,
                    intermediate: linear(&l.intermediate)?,
                    output: linear(&l.output)?,
                    output_norm: norm(&l.norm)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let head = &self.head;
        Some(Layout {
            word: e.word.weight.id,
            position: e.position.id,
            token_type: e.token_type.as_ref().map(|t| t.id),
            embedding_norm: norm(&e.norm)?,
            layers,
            head_dense: linear(&head.dense)?,
            head_norm: norm(&head.norm)?,
            decoder: head.decoder.as_ref().map(|d| d.id),
            head_bias: head.bias.id,
            sizes: Sizes {
                heads: c.num_attention_heads,
                hidden: c.hidden_size,
                intermediate: c.intermediate_size,
                vocab: c.vocab_size,
                position_offset: e.position_offset,
                layer_norm_eps: c.layer_norm_eps,
                hidden_dropout: c.hidden_dropout_prob,
                attention_dropout: c.attention_probs_dropout_prob,
            },
        })
    }
}

fn linear(dense: &Dense) -> Option<Linear<ParamId>> {
    match dense {
        Dense::F32(l) => Some(Linear {
            weight: l.weight.id,
            bias: l.bias.as_ref()?.id,
        }),
        Dense::Bf16(_) => None,
    }
}

fn norm(n: &LayerNorm) -> Option<Norm<ParamId>> {
    Some(Norm {
        gamma: n.gamma.id,
        beta: n.beta.as_ref()?.id,
    })
}
