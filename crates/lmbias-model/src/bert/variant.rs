//! BERT's descendants that keep its encoder: RoBERTa (whose network XLM-R and CamemBERT
//! are), ELECTRA, DistilBERT and ALBERT (whose layers are BERT's, shared). transformers writes their layers as copies of BERT's
//! ("Copied from transformers.models.bert.modeling_bert.BertLayer"); they differ in where
//! the weights sit and what they are called, how positions are numbered, the width of the
//! embeddings, and the masked-LM head. This file holds those differences, so that one
//! encoder ([`super::Bert`]) computes all four (DistilBERT's config.json names are read with
//! the others, in `config.rs`).

use crate::checkpoint::Architecture;

/// Which of BERT's descendants a checkpoint is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Variant {
    /// BERT itself.
    #[default]
    Bert,
    /// RoBERTa, XLM-R, CamemBERT: positions numbered from `pad_token_id + 1`, as fairseq
    /// numbered them; one token type; the head `lm_head`.
    Roberta,
    /// ELECTRA: embeddings of `embedding_size`, projected to the hidden size
    /// (`embeddings_project`) where the two differ; the generator's head.
    Electra,
    /// DistilBERT: its own config names and tensor names, no token types.
    DistilBert,
    /// ALBERT: embeddings of `embedding_size` always projected
    /// (`encoder.embedding_hidden_mapping_in`), and `num_hidden_groups` groups of
    /// `inner_group_num` layers shared across the `num_hidden_layers` steps.
    Albert,
}

/// Where a variant's tensors sit, relative to one encoder layer and to the checkpoint.
pub(super) struct Names {
    /// The encoder's scope in a checkpoint with a head (`bert`, `roberta`, …).
    pub(super) prefix: &'static str,
    /// The stack of layers, under the encoder's scope (ALBERT's is read by group).
    pub(super) layers: &'static str,
    /// The projection from the embeddings' width to the layers', where there is one.
    pub(super) project: Option<&'static str>,
    pub(super) query: &'static str,
    pub(super) key: &'static str,
    pub(super) value: &'static str,
    pub(super) attention_output: &'static str,
    pub(super) attention_norm: &'static str,
    pub(super) intermediate: &'static str,
    pub(super) output: &'static str,
    pub(super) output_norm: &'static str,
    /// The masked-LM head, from the checkpoint's root.
    pub(super) head: HeadNames,
}

/// The masked-LM head's tensors: a transform (dense, activation, LayerNorm), then a
/// decoder onto the vocabulary (tied to the word embeddings where not stored) with a bias.
pub(super) struct HeadNames {
    pub(super) dense: &'static str,
    pub(super) norm: &'static str,
    pub(super) decoder: &'static str,
    /// The head's bias, and the decoder's (the one used where the decoder is untied).
    pub(super) bias: [&'static str; 2],
}

const BERT_LAYER: [&str; 8] = [
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "attention.output.LayerNorm",
    "intermediate.dense",
    "output.dense",
    "output.LayerNorm",
];

const fn names(
    prefix: &'static str,
    layers: &'static str,
    project: Option<&'static str>,
    layer: [&'static str; 8],
    head: HeadNames,
) -> Names {
    let [
        query,
        key,
        value,
        attention_output,
        attention_norm,
        intermediate,
        output,
        output_norm,
    ] = layer;
    Names {
        prefix,
        layers,
        project,
        query,
        key,
        value,
        attention_output,
        attention_norm,
        intermediate,
        output,
        output_norm,
        head,
    }
}

const BERT: Names = names(
    "bert",
    "encoder.layer",
    None,
    BERT_LAYER,
    HeadNames {
        dense: "cls.predictions.transform.dense",
        norm: "cls.predictions.transform.LayerNorm",
        decoder: "cls.predictions.decoder.weight",
        bias: ["cls.predictions.bias", "cls.predictions.decoder.bias"],
    },
);

const ROBERTA: Names = names(
    "roberta",
    "encoder.layer",
    None,
    BERT_LAYER,
    HeadNames {
        dense: "lm_head.dense",
        norm: "lm_head.layer_norm",
        decoder: "lm_head.decoder.weight",
        bias: ["lm_head.bias", "lm_head.decoder.bias"],
    },
);

const ELECTRA: Names = names(
    "electra",
    "encoder.layer",
    Some("embeddings_project"),
    BERT_LAYER,
    HeadNames {
        dense: "generator_predictions.dense",
        norm: "generator_predictions.LayerNorm",
        decoder: "generator_lm_head.weight",
        bias: ["generator_lm_head.bias", "generator_lm_head.bias"],
    },
);

const DISTILBERT: Names = names(
    "distilbert",
    "transformer.layer",
    None,
    [
        "attention.q_lin",
        "attention.k_lin",
        "attention.v_lin",
        "attention.out_lin",
        "sa_layer_norm",
        "ffn.lin1",
        "ffn.lin2",
        "output_layer_norm",
    ],
    HeadNames {
        dense: "vocab_transform",
        norm: "vocab_layer_norm",
        decoder: "vocab_projector.weight",
        bias: ["vocab_projector.bias", "vocab_projector.bias"],
    },
);

const ALBERT: Names = names(
    "albert",
    "encoder.albert_layer_groups",
    Some("encoder.embedding_hidden_mapping_in"),
    [
        "attention.query",
        "attention.key",
        "attention.value",
        "attention.dense",
        "attention.LayerNorm",
        "ffn",
        "ffn_output",
        "full_layer_layer_norm",
    ],
    HeadNames {
        dense: "predictions.dense",
        norm: "predictions.LayerNorm",
        decoder: "predictions.decoder.weight",
        bias: ["predictions.bias", "predictions.decoder.bias"],
    },
);

impl Variant {
    /// The variant of a checkpoint of BERT's family (`None` for T5).
    pub(crate) fn of(architecture: Architecture) -> Option<Variant> {
        Some(match architecture {
            Architecture::BertEncoder | Architecture::BertMaskedLm => Variant::Bert,
            Architecture::RobertaEncoder | Architecture::RobertaMaskedLm => Variant::Roberta,
            Architecture::ElectraEncoder | Architecture::ElectraMaskedLm => Variant::Electra,
            Architecture::DistilBertEncoder | Architecture::DistilBertMaskedLm => {
                Variant::DistilBert
            }
            Architecture::AlbertEncoder | Architecture::AlbertMaskedLm => Variant::Albert,
            Architecture::T5Encoder
            | Architecture::ModernBertEncoder
            | Architecture::ModernBertMaskedLm
            | Architecture::DebertaV2Encoder
            | Architecture::DebertaV2MaskedLm => return None,
        })
    }

    pub(super) fn names(self) -> &'static Names {
        match self {
            Variant::Bert => &BERT,
            Variant::Roberta => &ROBERTA,
            Variant::Electra => &ELECTRA,
            Variant::DistilBert => &DISTILBERT,
            Variant::Albert => &ALBERT,
        }
    }
}
