//! BERT (Devlin et al. 2019) as Hugging Face transformers computes it: the
//! encoder of `BertModel` and the prediction head of `BertForMaskedLM`.
//! Absolute position embeddings, token type 0; dropout only while training.
//! The same code computes BERT's descendants that keep its layers — RoBERTa, XLM-R,
//! CamemBERT, ELECTRA, DistilBERT — from what `variant::Variant` says differs.

mod config;
mod layout;
mod mlm;
mod model;
mod variant;

pub use config::BertShape;
pub(crate) use config::{Activation, BertConfig};
pub(crate) use mlm::BertForMaskedLm;
pub(crate) use model::Bert;
