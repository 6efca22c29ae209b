//! What a model family provides to the shared adapter ([`crate::adapter`]): a
//! network that turns a padded batch of token ids into hidden states. Everything
//! else — tokenizing, checking texts, batching, pooling, fill-mask — is written
//! once, generic over [`Network`], as ripgrep's searcher is generic over `Matcher`.

use std::cell::{Cell, RefCell};

use crate::dense::Dense;
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use lmbias_core::Pooling;

use crate::checkpoint::Checkpoint;
use crate::error::ModelError;
use crate::weights::Weights;

/// A transformer encoder of one family, loaded from a checkpoint.
pub(crate) trait Network: Send + Sync + Sized {
    /// The fields of config.json that shape the network.
    type Config;

    /// Reads and checks config.json (`checkpoint.config_path()`), before any
    /// weight is read; an error names the file and field.
    fn config(checkpoint: &Checkpoint) -> Result<Self::Config, ModelError>;

    /// Reads every tensor the network needs; a missing or misshapen one is an
    /// error naming it.
    fn load(config: Self::Config, weights: Weights<'_>) -> Result<Self, ModelError>;

    /// Hidden states after `layers` blocks (0 = the embedding output):
    /// `[batch, seq, hidden_size]`. `layers` is at most `num_layers`.
    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3>;

    /// Number of transformer blocks.
    fn num_layers(&self) -> usize;

    /// Width of the hidden states.
    fn hidden_size(&self) -> usize;

    /// Rows of the token-embedding table: every id fed in must be below it.
    fn vocab_size(&self) -> usize;

    /// Longest input the network can read: `Some` for learned absolute positions
    /// (BERT), `None` for relative ones (T5).
    fn max_positions(&self) -> Option<usize>;

    /// The family's sentence vector (see `Embedder::default_pooling`).
    fn default_pooling(&self) -> Pooling;
}

/// A network with a masked-language-modelling head.
pub(crate) trait MaskedNetwork: Network {
    /// Vocabulary logits `[n, vocab_size]` of final hidden states `[n, hidden_size]`.
    fn mask_logits(&self, hidden: Tensor<2>) -> Tensor<2>;
}

/// A masked-LM head of encoder `N`: read beside it, applied to its final hidden states, with
/// the encoder at hand for a decoder tied to its token table.
pub(crate) trait Head<N: Network>: Send + Sync + Sized {
    /// Reads the head's tensors (from the checkpoint's root: heads sit beside the encoder).
    fn load(config: &N::Config, weights: &Weights<'_>) -> Result<Self, ModelError>;

    /// Vocabulary logits `[n, vocab_size]` of final hidden states `[n, hidden_size]`.
    fn logits(&self, encoder: &N, hidden: Tensor<2>) -> Tensor<2>;
}

/// An encoder with a masked-LM head (`…ForMaskedLM`): the encoder answers for the network,
/// the head for the logits.
pub(crate) struct WithHead<N, H> {
    encoder: N,
    head: H,
}

impl<N, H> Network for WithHead<N, H>
where
    N: Network,
    N::Config: Clone,
    H: Head<N>,
{
    type Config = N::Config;

    fn config(checkpoint: &Checkpoint) -> Result<N::Config, ModelError> {
        N::config(checkpoint)
    }

    fn load(config: N::Config, weights: Weights<'_>) -> Result<Self, ModelError> {
        let head = H::load(&config, &weights)?;
        Ok(Self {
            encoder: N::load(config, weights)?,
            head,
        })
    }

    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3> {
        self.encoder.hidden_states(batch, layers)
    }

    fn num_layers(&self) -> usize {
        self.encoder.num_layers()
    }

    fn hidden_size(&self) -> usize {
        self.encoder.hidden_size()
    }

    fn vocab_size(&self) -> usize {
        self.encoder.vocab_size()
    }

    fn max_positions(&self) -> Option<usize> {
        self.encoder.max_positions()
    }

    fn default_pooling(&self) -> Pooling {
        self.encoder.default_pooling()
    }
}

impl<N, H> MaskedNetwork for WithHead<N, H>
where
    N: Network,
    N::Config: Clone,
    H: Head<N>,
{
    fn mask_logits(&self, hidden: Tensor<2>) -> Tensor<2> {
        self.head.logits(&self.encoder, hidden)
    }
}

/// `linear` on every position of `x` `[batch, seq, in]`, as one `[batch·seq, in]`
/// product: burn's `Linear` on a 3-D input broadcasts the weight over the batch,
/// and its weight gradient is then a batch of products summed afterwards.
pub(crate) fn per_token(linear: &Dense, x: Tensor<3>) -> Tensor<3> {
    let [batch, seq, d] = x.dims();
    let y = linear.forward(x.reshape([batch * seq, d]));
    let [_, out] = y.dims();
    y.reshape([batch, seq, out])
}

/// Token ids of a batch, right-padded, with their attention mask.
pub(crate) struct Batch {
    ids: Tensor<2, Int>,
    /// 1.0 for real tokens, 0.0 for padding: `[batch, seq]`.
    mask: Tensor<2>,
    /// When asked for ([`Batch::observing_attention`]): the attention each key received,
    /// summed over the real queries and averaged over heads, added up layer by layer.
    received: Option<RefCell<Option<Tensor<2>>>>,
    /// Attention layers seen so far.
    layers_seen: Cell<usize>,
}

/// What the attention layers of one forward pass read: the keys' padding mask as an
/// additive bias, and the batch that may be adding up the attention (AULA).
pub(crate) struct Keys<'a> {
    /// `[batch, 1, 1, seq]`: see [`Batch::attention_bias`].
    pub(crate) bias: Tensor<4>,
    batch: &'a Batch,
}

impl Keys<'_> {
    /// The attention probabilities of `scores` `[batch, heads, query, key]` (softmax over
    /// the keys), told to the batch when it is adding them up.
    pub(crate) fn attend(&self, scores: Tensor<4>) -> Tensor<4> {
        let probs = softmax(scores, 3);
        self.batch.observe(&probs);
        probs
    }
}

impl Batch {
    /// Pads `sequences` (none empty: the adapter checks) with `pad_id` to the longest.
    pub(crate) fn new(sequences: &[&[u32]], pad_id: u32, device: &Device) -> Self {
        let batch = sequences.len();
        let seq = sequences.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![i64::from(pad_id); batch * seq];
        let mut mask = vec![0f32; batch * seq];
        for (b, s) in sequences.iter().enumerate() {
            for (t, &id) in s.iter().enumerate() {
                ids[b * seq + t] = i64::from(id);
                mask[b * seq + t] = 1.0;
            }
        }
        Self {
            ids: Tensor::from_data(TensorData::new(ids, [batch, seq]), device),
            mask: Tensor::from_data(TensorData::new(mask, [batch, seq]), device),
            received: None,
            layers_seen: Cell::new(0),
        }
    }

    /// This batch, adding up the attention its tokens receive as it runs.
    pub(crate) fn observing_attention(mut self) -> Self {
        self.received = Some(RefCell::new(None));
        self
    }

    /// The keys of a forward pass over this batch (see [`Keys`]).
    pub(crate) fn keys(&self) -> Keys<'_> {
        Keys {
            bias: self.attention_bias(),
            batch: self,
        }
    }

    fn observe(&self, probs: &Tensor<4>) {
        let Some(received) = &self.received else {
            return;
        };
        let [b, heads, q, k] = probs.dims();
        // Padding queries are not part of any text: their rows are left out.
        let real = self.mask.clone().reshape([b, 1, q, 1]);
        let got = (probs.clone() * real)
            .sum_dim(2)
            .sum_dim(1)
            .reshape([b, k])
            .div_scalar(heads as f64);
        let mut slot = received.borrow_mut();
        *slot = Some(match slot.take() {
            Some(sum) => sum + got,
            None => got,
        });
        self.layers_seen.set(self.layers_seen.get() + 1);
    }

    /// The attention each position received, averaged over the layers, heads and real
    /// query positions the pass ran: `[batch][seq]`, 0 on padding. `None` unless the batch
    /// was [observing](Batch::observing_attention) and a layer ran.
    pub(crate) fn attention_received(&self) -> Option<Vec<Vec<f32>>> {
        let sum = self.received.as_ref()?.borrow().clone()?;
        let [b, seq] = sum.dims();
        let lengths = self
            .mask
            .clone()
            .sum_dim(1)
            .into_data()
            .try_into_vec::<f32>()
            .ok()?;
        let layers = self.layers_seen.get() as f32;
        let values = sum.into_data().try_into_vec::<f32>().ok()?;
        Some(
            (0..b)
                .map(|r| {
                    values[r * seq..(r + 1) * seq]
                        .iter()
                        .map(|v| v / (layers * lengths[r]))
                        .collect()
                })
                .collect(),
        )
    }

    /// The token ids, `[batch, seq]`.
    pub(crate) fn ids(&self) -> Tensor<2, Int> {
        self.ids.clone()
    }

    /// The attention mask, `[batch, seq]`, 1.0 on real tokens.
    pub(crate) fn mask(&self) -> Tensor<2> {
        self.mask.clone()
    }

    /// The additive key mask of self-attention, `[batch, 1, 1, seq]`: 0 for
    /// tokens, a large negative for padding (transformers uses the dtype's
    /// minimum; any value that underflows exp() to 0 agrees).
    pub(crate) fn attention_bias(&self) -> Tensor<4> {
        let [batch, seq] = self.mask.dims();
        (self.mask.clone() - 1.0)
            .mul_scalar(1e30)
            .reshape([batch, 1, 1, seq])
    }
}
