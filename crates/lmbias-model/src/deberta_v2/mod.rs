//! DeBERTa-v2 and v3 (He et al. 2021, 2023; `model_type` "deberta-v2") as Hugging Face
//! transformers computes them (`DebertaV2Model`, `DebertaV2ForMaskedLM`). Inference only.
//!
//! What differs from BERT, and why each matters for parity: attention scores add two
//! disentangled terms to content-to-content — content-to-position (c2p) and
//! position-to-content (p2c) — through a table of relative positions, log-bucketed past
//! half of `position_buckets` and clamped to its span; every term is divided by
//! √(head size · (1 + number of terms)); the table may pass through a LayerNorm and be
//! projected by the content's own query and key projections (`share_att_key`); absolute
//! positions are optional (DeBERTa-v3 has none); xlarge models add a convolution beside
//! layer 0; two MLM heads exist, chosen by the config's `legacy` flag.

mod config;
mod model;

pub(crate) use model::{DebertaV2, DebertaV2ForMaskedLm};
