//! The encoder of T5 (Raffel et al. 2020), T5 v1.1 and mT5 (Xue et al. 2021) as
//! Hugging Face transformers computes it (`T5EncoderModel` / `MT5EncoderModel`,
//! or the encoder half of `*ForConditionalGeneration`). Inference only.
//!
//! What differs from BERT, and why each matters for parity: no absolute
//! positions but a learned bias per (bucketed relative distance, head), computed
//! by the first block and added in every block; no 1/sqrt(d) scaling of the
//! attention scores (folded into the initialisation by the authors); RMS layer
//! norm without bias or mean subtraction, applied *before* each sub-layer
//! (pre-norm), plus a final one; bias-free projections.
//!
//! T5 has no [CLS]: the tokenizer only appends `</s>`. The poolings therefore mean:
//! `mean` (the default) — attention-masked mean over all positions including
//! `</s>` (the usual sentence vector for T5 encoders, e.g. sentence-t5); `cls` —
//! position 0 of the encoded input, i.e. the first piece of the text, kept so a
//! study written for BERT runs unchanged (it is *not* a trained summary token);
//! `first` — position 0 of the text encoded without `</s>` (sent-bias's
//! convention, as for BERT). A word's pieces include a lone `▁` before it: the
//! tokenizer gives that piece the offset of the word's first character, as
//! transformers' `word_ids` do. There is no masked-LM head: T5 is trained on span
//! corruption, not fill-mask.

mod config;
mod model;
mod position;

pub(crate) use model::T5Encoder;
