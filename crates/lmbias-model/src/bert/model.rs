//! The BERT encoder, one struct per Hugging Face sub-module, each loading its
//! own tensors from a scoped view, computing its own forward pass and naming
//! its tensors for export. The structs are Burn modules, so the one definition
//! serves inference and training (`crate::train`); dropout acts only on an
//! autodiff device, as in transformers' train mode.

use burn::module::{Module, Param};
use burn::nn::{Dropout, DropoutConfig, Embedding, LayerNorm};
use burn::tensor::{Int, Tensor};
use lmbias_core::Pooling;

use super::config::{Activation, BertConfig, PositionEmbeddingType};
use super::variant::{Names, Variant};
use crate::checkpoint::Checkpoint;
use crate::dense::Dense;
use crate::error::ModelError;
use crate::network::{Batch, Keys, Network, per_token};
use crate::weights::{Weights, WeightsOut};

/// `embeddings`: word + absolute position + token type 0 (none in DistilBERT), then
/// LayerNorm.
#[derive(Module, Debug)]
pub(super) struct Embeddings {
    pub(super) word: Embedding,
    /// `[max_position, width]`, read from the row of the first position on.
    pub(super) position: Param<Tensor<2>>,
    /// The token-type table; every lmbias input is one segment, so only row 0 is read.
    pub(super) token_type: Option<Param<Tensor<2>>>,
    pub(super) norm: LayerNorm,
    dropout: Dropout,
    /// The position id of the first token: RoBERTa's are `pad_token_id + 1` on. Padding
    /// takes the positions after its text's rather than the padding id: only padding's
    /// own outputs could differ, and nothing reads them (attention masks padding out).
    #[module(skip)]
    pub(super) position_offset: usize,
}

impl Embeddings {
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let e = c.embedding_size();
        let max_positions = match c.position_embedding_type {
            PositionEmbeddingType::Absolute => c.max_position_embeddings,
        };
        let position = if c.sinusoidal_positions && !w.contains("position_embeddings.weight") {
            sinusoidal(max_positions, e, w)
        } else {
            w.tensor("position_embeddings.weight", [max_positions, e])?
        };
        let token_type = match c.type_vocab_size {
            0 => None,
            n => Some(Param::from_tensor(
                w.tensor("token_type_embeddings.weight", [n, e])?,
            )),
        };
        Ok(Self {
            word: w.pp("word_embeddings").embedding(c.vocab_size, e)?,
            position: Param::from_tensor(position),
            token_type,
            norm: w.pp("LayerNorm").layer_norm(e, c.layer_norm_eps)?,
            dropout: dropout(c.hidden_dropout_prob),
            position_offset: c.position_offset(),
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>) {
        out.pp("word_embeddings").embedding(&self.word);
        out.tensor("position_embeddings.weight", self.position.val());
        if let Some(token_type) = &self.token_type {
            out.tensor("token_type_embeddings.weight", token_type.val());
        }
        out.pp("LayerNorm").layer_norm(&self.norm);
    }

    fn forward(&self, ids: Tensor<2, Int>) -> Tensor<3> {
        let [_, seq] = ids.dims();
        let [_, e] = self.position.dims();
        let mut x = self.word.forward(ids)
            + self
                .position
                .val()
                .narrow(0, self.position_offset, seq)
                .reshape([1, seq, e]);
        if let Some(token_type) = &self.token_type {
            x = x + token_type.val().narrow(0, 0, 1).reshape([1, 1, e]);
        }
        self.dropout.forward(self.norm.forward(x))
    }
}

/// DistilBERT's `create_sinusoidal_embeddings`: row p, column j is sin (even j) or cos
/// (odd j) of p / 10000^(2⌊j/2⌋/width), for a checkpoint that does not store the table.
fn sinusoidal(rows: usize, width: usize, w: &Weights<'_>) -> Tensor<2> {
    let values: Vec<f32> = (0..rows)
        .flat_map(|p| {
            (0..width).map(move |j| {
                let angle = p as f64 / 10000f64.powf((2 * (j / 2)) as f64 / width as f64);
                (if j % 2 == 0 { angle.sin() } else { angle.cos() }) as f32
            })
        })
        .collect();
    w.constant(values, [rows, width])
}

/// transformers' `nn.Dropout(p)`: active only where gradients are tracked.
fn dropout(prob: f64) -> Dropout {
    DropoutConfig::new(prob).init()
}

/// `attention`: multi-head self-attention (`self`) and its output projection,
/// residual and LayerNorm (`output`).
#[derive(Module, Debug)]
pub(super) struct SelfAttention {
    pub(super) query: Dense,
    pub(super) key: Dense,
    pub(super) value: Dense,
    pub(super) output: Dense,
    pub(super) norm: LayerNorm,
    probs_dropout: Dropout,
    output_dropout: Dropout,
    heads: usize,
}

impl SelfAttention {
    /// `w` is the layer's view: the attention's tensors are named from there
    /// ([`Names`]: `attention.self.query` in BERT, `attention.q_lin` in DistilBERT).
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let h = c.hidden_size;
        let n = c.variant().names();
        Ok(Self {
            query: w.pp(n.query).linear(h, h)?,
            key: w.pp(n.key).linear(h, h)?,
            value: w.pp(n.value).linear(h, h)?,
            output: w.pp(n.attention_output).linear(h, h)?,
            norm: w.pp(n.attention_norm).layer_norm(h, c.layer_norm_eps)?,
            probs_dropout: dropout(c.attention_probs_dropout_prob),
            output_dropout: dropout(c.hidden_dropout_prob),
            heads: c.num_attention_heads,
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>, n: &Names) {
        out.pp(n.query).linear(&self.query);
        out.pp(n.key).linear(&self.key);
        out.pp(n.value).linear(&self.value);
        out.pp(n.attention_output).linear(&self.output);
        out.pp(n.attention_norm).layer_norm(&self.norm);
    }

    fn forward(&self, x: Tensor<3>, keys: &Keys<'_>) -> Tensor<3> {
        let [batch, seq, hidden] = x.dims();
        let heads = self.heads;
        let d = hidden / heads;
        let split = |t: Tensor<3>| t.reshape([batch, seq, heads, d]).swap_dims(1, 2);
        let q = split(per_token(&self.query, x.clone()));
        let k = split(per_token(&self.key, x.clone()));
        let v = split(per_token(&self.value, x.clone()));
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar((d as f64).sqrt()) + keys.bias.clone();
        let context = self
            .probs_dropout
            .forward(keys.attend(scores))
            .matmul(v)
            .swap_dims(1, 2)
            .reshape([batch, seq, hidden]);
        let projected = self
            .output_dropout
            .forward(per_token(&self.output, context));
        self.norm.forward(projected + x)
    }
}

/// `encoder.layer.{i}`: attention, then the feed-forward `intermediate` /
/// `output` pair with its residual and LayerNorm.
#[derive(Module, Debug)]
pub(super) struct Layer {
    pub(super) attention: SelfAttention,
    pub(super) intermediate: Dense,
    pub(super) output: Dense,
    pub(super) norm: LayerNorm,
    dropout: Dropout,
    #[module(skip)]
    activation: Activation,
}

impl Layer {
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let (h, m) = (c.hidden_size, c.intermediate_size);
        let n = c.variant().names();
        Ok(Self {
            attention: SelfAttention::load(w, c)?,
            intermediate: w.pp(n.intermediate).linear(h, m)?,
            output: w.pp(n.output).linear(m, h)?,
            norm: w.pp(n.output_norm).layer_norm(h, c.layer_norm_eps)?,
            dropout: dropout(c.hidden_dropout_prob),
            activation: c.hidden_act,
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>, n: &Names) {
        self.attention.save(out, n);
        out.pp(n.intermediate).linear(&self.intermediate);
        out.pp(n.output).linear(&self.output);
        out.pp(n.output_norm).layer_norm(&self.norm);
    }

    fn forward(&self, x: Tensor<3>, keys: &Keys<'_>) -> Tensor<3> {
        let x = self.attention.forward(x, keys);
        let inner = self
            .activation
            .forward(per_token(&self.intermediate, x.clone()));
        let projected = self.dropout.forward(per_token(&self.output, inner));
        self.norm.forward(projected + x)
    }
}

/// `encoder`: the layers stored (`encoder.layer.N`; `transformer.layer.N` in DistilBERT;
/// ALBERT's shared `encoder.albert_layer_groups.G.albert_layers.I`) and which of them
/// each of the `num_hidden_layers` steps applies.
#[derive(Module, Debug)]
pub(super) struct Encoder {
    pub(super) layers: Vec<Layer>,
    /// Output layer i applies `layers[schedule[i]]`: `i` in BERT, a shared layer in ALBERT.
    #[module(skip)]
    pub(super) schedule: Vec<usize>,
}

impl Encoder {
    /// `w` is the encoder's view (under `bert.`).
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let layers = c
            .stored_layers()
            .iter()
            .map(|name| Layer::load(&w.pp(name), c))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            layers,
            schedule: c.layer_schedule(),
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>, c: &BertConfig) {
        let n = c.variant().names();
        for (name, layer) in c.stored_layers().iter().zip(&self.layers) {
            layer.save(&mut out.pp(name), n);
        }
    }

    /// The output of the first `n` layers.
    fn forward(&self, mut x: Tensor<3>, keys: &Keys<'_>, n: usize) -> Tensor<3> {
        for &j in self.schedule.iter().take(n) {
            x = self.layers[j].forward(x, keys);
        }
        x
    }

    /// Layers of the output (ALBERT: steps × layers per group).
    fn len(&self) -> usize {
        self.schedule.len()
    }
}

/// A loaded encoder of BERT or one of its descendants ([`super::Variant`]): `BertModel`,
/// `RobertaModel`, `ElectraModel`, `DistilBertModel`; a head, if stored, is not read.
#[derive(Module, Debug)]
pub(crate) struct Bert {
    #[module(skip)]
    config: BertConfig,
    pub(super) embeddings: Embeddings,
    /// ELECTRA's `embeddings_project` (where the embeddings are narrower than the layers)
    /// and ALBERT's `encoder.embedding_hidden_mapping_in` (always).
    pub(super) project: Option<Dense>,
    pub(super) encoder: Encoder,
}

impl Bert {
    /// The encoder's view of the file: checkpoints with a head store it under the
    /// variant's prefix (`bert.`, `roberta.`, …).
    pub(super) fn scope<'a>(weights: &Weights<'a>, config: &BertConfig) -> Weights<'a> {
        let prefix = config.variant().names().prefix;
        if weights.has_prefix(prefix) {
            weights.pp(prefix)
        } else {
            weights.clone()
        }
    }

    /// The encoder from its own view of the file (see [`Bert::scope`]).
    pub(super) fn load_scoped(config: BertConfig, w: &Weights<'_>) -> Result<Self, ModelError> {
        let (e, h) = (config.embedding_size(), config.hidden_size);
        let project = match config.variant().names().project {
            Some(name) if e != h || w.contains(&format!("{name}.weight")) => {
                Some(w.pp(name).linear(e, h)?)
            }
            _ => None,
        };
        Ok(Self {
            embeddings: Embeddings::load(&w.pp("embeddings"), &config)?,
            project,
            encoder: Encoder::load(w, &config)?,
            config,
        })
    }

    pub(super) fn config(&self) -> &BertConfig {
        &self.config
    }

    /// Names the encoder's tensors as transformers does, under `out`'s prefix.
    pub(super) fn save(&self, out: &mut WeightsOut<'_>) {
        let n = self.config.variant().names();
        self.embeddings.save(&mut out.pp("embeddings"));
        if let (Some(project), Some(name)) = (&self.project, n.project) {
            out.pp(name).linear(project);
        }
        self.encoder.save(out, &self.config);
    }
}

impl Network for Bert {
    type Config = BertConfig;

    fn config(checkpoint: &Checkpoint) -> Result<BertConfig, ModelError> {
        BertConfig::read(checkpoint)
    }

    fn load(config: BertConfig, weights: Weights<'_>) -> Result<Self, ModelError> {
        let scoped = Self::scope(&weights, &config);
        Self::load_scoped(config, &scoped)
    }

    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3> {
        let mut x = self.embeddings.forward(batch.ids());
        if let Some(project) = &self.project {
            x = per_token(project, x);
        }
        self.encoder.forward(x, &batch.keys(), layers)
    }

    fn num_layers(&self) -> usize {
        self.encoder.len()
    }

    fn hidden_size(&self) -> usize {
        self.config.hidden_size
    }

    fn vocab_size(&self) -> usize {
        self.config.vocab_size
    }

    fn max_positions(&self) -> Option<usize> {
        Some(self.config.max_positions())
    }

    /// May et al. (sent-bias) read BERT's [CLS], which next-sentence prediction trained
    /// as a summary of the input (ALBERT's sentence-order prediction reads it too).
    /// RoBERTa, ELECTRA and DistilBERT were pretrained without any objective on their
    /// first token, so their sentence vector is the mean over tokens.
    fn default_pooling(&self) -> Pooling {
        match self.config.variant() {
            Variant::Bert | Variant::Albert => Pooling::Cls,
            Variant::Roberta | Variant::Electra | Variant::DistilBert => Pooling::Mean,
        }
    }
}
