//! Where each parameter is, the network's sizes, and one step's input.

/// A torch `nn.Linear`: weight `[in, out]` (Burn's order), bias `[out]`.
#[derive(Debug, Clone, Copy)]
pub struct Linear<I> {
    /// `[in, out]`.
    pub weight: I,
    /// `[out]`.
    pub bias: I,
}

/// A LayerNorm's scale and shift.
#[derive(Debug, Clone, Copy)]
pub struct Norm<I> {
    /// Scale.
    pub gamma: I,
    /// Shift.
    pub beta: I,
}

/// One encoder layer.
#[derive(Debug, Clone, Copy)]
pub struct Layer<I> {
    /// Query projection.
    pub query: Linear<I>,
    /// Key projection.
    pub key: Linear<I>,
    /// Value projection.
    pub value: Linear<I>,
    /// The attention's output projection.
    pub attention_output: Linear<I>,
    /// The LayerNorm after the attention's residual.
    pub attention_norm: Norm<I>,
    /// The feed-forward's first projection (GELU after it).
    pub intermediate: Linear<I>,
    /// The feed-forward's second projection.
    pub output: Linear<I>,
    /// The LayerNorm after the feed-forward's residual.
    pub output_norm: Norm<I>,
}

/// Widths and settings of the network.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Attention heads.
    pub heads: usize,
    /// Hidden width.
    pub hidden: usize,
    /// Feed-forward width.
    pub intermediate: usize,
    /// Vocabulary.
    pub vocab: usize,
    /// The first position's row of the position table.
    pub position_offset: usize,
    /// Every LayerNorm's epsilon.
    pub layer_norm_eps: f64,
    /// Dropout after the embeddings and each sub-layer's projection.
    pub hidden_dropout: f64,
    /// Dropout on the attention probabilities.
    pub attention_dropout: f64,
}

/// Where each parameter is: `I` is the caller's handle for a parameter (lmbias-model
/// fills it with Burn's ids, then maps them to indices with [`Layout::map`]).
#[derive(Debug, Clone)]
pub struct Layout<I> {
    /// `[vocab, hidden]`; the decoder too when `decoder` is `None`.
    pub word: I,
    /// `[positions, hidden]`.
    pub position: I,
    /// `[types, hidden]`: row 0 is added to every token.
    pub token_type: Option<I>,
    /// The embeddings' LayerNorm.
    pub embedding_norm: Norm<I>,
    /// The encoder layers.
    pub layers: Vec<Layer<I>>,
    /// The head's transform.
    pub head_dense: Linear<I>,
    /// The head's LayerNorm.
    pub head_norm: Norm<I>,
    /// An untied decoder `[hidden, vocab]`.
    pub decoder: Option<I>,
    /// The decoder's bias `[vocab]`.
    pub head_bias: I,
    /// Widths and settings.
    pub sizes: Sizes,
}

impl<I: Copy> Layout<I> {
    /// The same layout with every handle passed through `f`.
    pub fn map<J: Copy>(&self, f: impl Fn(I) -> J) -> Layout<J> {
        let lin = |l: Linear<I>| Linear {
            weight: f(l.weight),
            bias: f(l.bias),
        };
        let norm = |n: Norm<I>| Norm {
            gamma: f(n.gamma),
            beta: f(n.beta),
        };
        Layout {
            word: f(self.word),
            position: f(self.position),
            token_type: self.token_type.map(&f),
            embedding_norm: norm(self.embedding_norm),
            layers: self
                .layers
                .iter()
                .map(|l| Layer {
                    query: lin(l.query),
                    key: lin(l.key),
                    value: lin(l.value),
                    attention_output: lin(l.attention_output),
                    attention_norm: norm(l.attention_norm),
                    intermediate: lin(l.intermediate),
                    output: lin(l.output),
                    output_norm: norm(l.output_norm),
                })
                .collect(),
            head_dense: lin(self.head_dense),
            head_norm: norm(self.head_norm),
            decoder: self.decoder.map(&f),
            head_bias: f(self.head_bias),
            sizes: self.sizes,
        }
    }
}

/// One step's input: `batch` sequences of `seq` token ids, and the chosen positions
/// (indices into the flattened `[batch · seq]`) with the ids to predict there.
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    /// `[batch · seq]` token ids.
    pub ids: &'a [u32],
    /// Tokens per sequence.
    pub seq: usize,
    /// The chosen positions, distinct.
    pub positions: &'a [usize],
    /// The id to predict at each.
    pub labels: &'a [usize],
}
