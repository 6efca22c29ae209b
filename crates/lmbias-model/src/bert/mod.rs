//! BERT (Devlin et al. 2019) as Hugging Face transformers computes it: the
//! encoder of `BertModel` and the prediction head of `BertForMaskedLM`.
//! Inference only: no dropout, absolute position embeddings, token type 0.

mod config;
mod mlm;
mod model;

pub(crate) use mlm::BertForMaskedLm;
pub(crate) use model::Bert;
