//! ModernBERT (Warner et al. 2024) as Hugging Face transformers computes it
//! (`ModernBertModel`, `ModernBertForMaskedLM`). Inference only.
//!
//! What differs from BERT, and why each matters for parity: no position embeddings but
//! rotary positions in every attention layer, with one base for global layers and another
//! for local ones; every `global_attn_every_n_layers`-th layer (layer 0 among them)
//! attends to the whole text, the others only to keys within `local_attention / 2`
//! positions, so a text longer than the window reads differently from its pieces;
//! pre-norm layers (no attention norm in layer 0, whose input the embeddings' norm has
//! already normalised) and a final norm; a GeGLU feed-forward; LayerNorms and projections
//! without biases where the config says so.

mod config;
mod model;

pub(crate) use model::{ModernBert, ModernBertForMaskedLm};
