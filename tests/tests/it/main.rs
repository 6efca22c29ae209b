//! lmbias-tests's integration tests, one binary (as ripgrep does): each module
//! below was a test binary of its own, and each linked the whole dependency tree.

mod crows_parity;
mod families;
mod floors;
mod glove_weat;
mod guide;
mod hostile_files;
mod minilm;
mod mlm_bias_parity;
mod model_load_errors;
mod seat_minilm;
mod sentence_transformers_pooling;
mod svm_parity;
mod tokenizer_parity;
mod valence_dataset_vocab;
mod valence_tiny_bert;
mod weat_parity;
mod wefe_parity;

/// The one-line error a broken checkpoint folder gets, from resolving it or from `load`,
/// with its causes as the CLI prints them (`{:#}`).
fn load_error<T>(
    dir: &std::path::Path,
    load: impl Fn(&lmbias_model::Checkpoint) -> Result<T, lmbias_model::ModelError>,
) -> String {
    let err = match lmbias_model::Checkpoint::resolve(dir.to_str().unwrap()) {
        Err(e) => e,
        Ok(c) => match load(&c) {
            Err(e) => e,
            Ok(_) => panic!("the broken folder {} loaded", dir.display()),
        },
    };
    let mut message = err.to_string();
    let mut cause = std::error::Error::source(&err);
    while let Some(e) = cause {
        message.push_str(&format!(": {e}"));
        cause = e.source();
    }
    assert!(!message.contains('\n'), "not one line: {message}");
    message
}
