//! Training a masked LM: lmbias-model's trainer, and `--add-words` read from what a user
//! types (a count, or a word list's path, read here: the trainer takes the words).

pub use lmbias_model::train::*;

use std::path::Path;

use lmbias_data::WordsFile;

use crate::RunError;

/// `--add-words N|FILE`: a whole number is a count, anything else a word list's path (one word
/// a line, [`WordsFile`]).
pub fn add_words(arg: &str) -> Result<AddWords, RunError> {
    if let Some(count) = AddWords::count(arg) {
        return Ok(count?);
    }
    let list = WordsFile::read(Path::new(arg.trim())).map_err(RunError::AddWords)?;
    Ok(AddWords::Listed {
        file: list.path().display().to_string(),
        words: list.words().to_vec(),
    })
}
