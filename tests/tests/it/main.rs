//! lmbias-tests's integration tests, one binary (as ripgrep does): each module
//! below was a test binary of its own, and each linked the whole dependency tree.

mod glove_weat;
mod model_load_errors;
mod model_parity;
mod seat_minilm;
mod svm_parity;
mod t5_parity;
mod tokenizer_parity;
mod valence_dataset_vocab;
mod valence_tiny_bert;
mod weat_parity;
