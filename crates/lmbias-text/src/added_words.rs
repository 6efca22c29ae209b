//! Whole words added to a WordPiece vocabulary (`train-mlm --add-words`): which words a
//! tokenizer cuts into pieces, and the tokenizer with some of them made pieces of their own.
//! A model continued on Early Modern text cannot propose *hath* or *thine* when its
//! vocabulary holds them only as `hat ##h`, `thin ##e` (issue #34).

use std::collections::HashMap;
use std::path::Path;

use tokenizers::models::ModelWrapper;

use crate::{TextError, Tokenizer};

/// A word the tokenizer cuts into two or more known pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitWord {
    /// The word as the vocabulary holds it once added: the pieces joined, so normalised as
    /// the tokenizer normalises (lower-cased by an uncased one).
    pub word: String,
    /// The ids of its pieces today, in order.
    pub pieces: Vec<u32>,
    /// How often it occurs in the texts counted (0 for a listed word).
    pub count: usize,
}

/// Why a listed word cannot be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WordProblem {
    /// It is one piece already.
    #[error("is already one piece of the vocabulary (id {0})")]
    InVocabulary(u32),
    /// The pre-tokenizer cuts it into several words (punctuation inside it).
    #[error("is {0} words for this tokenizer, not one")]
    NotOneWord(usize),
    /// A piece of it is the unknown token.
    #[error("has a character the vocabulary lacks (it reads as {0})")]
    Unknown(String),
    /// Nothing is left of it after normalisation.
    #[error("is empty once normalised")]
    Empty,
}

impl Tokenizer {
    /// The continuation prefix of a WordPiece model (`##`); any other model is refused:
    /// a whole word is a vocabulary entry only in WordPiece.
    fn wordpiece_prefix(&self) -> Result<&str, TextError> {
        match self.inner().get_model() {
            ModelWrapper::WordPiece(model) => Ok(&model.continuing_subword_prefix),
            other => Err(TextError::NotWordPiece {
                dir: self.dir().to_path_buf(),
                model: match other {
                    ModelWrapper::BPE(_) => "BPE",
                    ModelWrapper::Unigram(_) => "Unigram (SentencePiece)",
                    ModelWrapper::WordLevel(_) => "WordLevel",
                    ModelWrapper::WordPiece(_) => unreachable!("matched above"),
                },
            }),
        }
    }

    /// The words of `texts` (as the pre-tokenizer cuts them) that the tokenizer splits into
    /// two or more pieces, none unknown: most frequent first, ties in alphabetical order.
    pub fn split_words(&self, texts: &[&str]) -> Result<Vec<SplitWord>, TextError> {
        let prefix = self.wordpiece_prefix()?.to_owned();
        let unk = self.unk().map(|u| u.id);
        let mut counts: HashMap<String, SplitWord> = HashMap::new();
        for (index, text) in texts.iter().enumerate() {
            let encoding = self.encode_indexed(index, text, false)?;
            let (ids, words) = (encoding.ids(), encoding.word_ids());
            let mut start = 0;
            while start < ids.len() {
                let end = (start + 1..ids.len())
                    .find(|&i| words[i] != words[start] || words[i].is_none())
                    .unwrap_or(ids.len());
                let pieces = &ids[start..end];
                if pieces.len() >= 2 && !pieces.iter().any(|&id| Some(id) == unk) {
                    let word = self.join(pieces, &prefix);
                    counts
                        .entry(word.clone())
                        .or_insert_with(|| SplitWord {
                            word,
                            pieces: pieces.to_vec(),
                            count: 0,
                        })
                        .count += 1;
                }
                start = end;
            }
        }
        let mut words: Vec<SplitWord> = counts.into_values().collect();
        words.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.word.cmp(&b.word)));
        Ok(words)
    }

    /// How the tokenizer cuts `word` alone, inside a sentence; `Ok(Err(problem))` when it
    /// cannot be added (one piece already, several words, an unknown character).
    pub fn split_word(&self, word: &str) -> Result<Result<SplitWord, WordProblem>, TextError> {
        let prefix = self.wordpiece_prefix()?.to_owned();
        let encoding = self.encode(&format!(" {word}"), false)?;
        let ids = encoding.ids();
        let mut words: Vec<_> = encoding.word_ids().to_vec();
        words.dedup();
        Ok(match ids {
            [] => Err(WordProblem::Empty),
            _ if words.len() > 1 => Err(WordProblem::NotOneWord(words.len())),
            _ if ids.iter().any(|&id| Some(id) == self.unk().map(|u| u.id)) => {
                Err(WordProblem::Unknown(encoding.tokens().join(" ")))
            }
            [id] => Err(WordProblem::InVocabulary(*id)),
            pieces => Ok(SplitWord {
                word: self.join(pieces, &prefix),
                pieces: pieces.to_vec(),
                count: 0,
            }),
        })
    }

    /// The pieces' strings joined, continuation prefixes dropped.
    fn join(&self, pieces: &[u32], prefix: &str) -> String {
        pieces
            .iter()
            .enumerate()
            .map(|(i, &id)| {
                let token = self.token(id).unwrap_or_default();
                match token.strip_prefix(prefix) {
                    Some(rest) if i > 0 => rest.to_owned(),
                    _ => token,
                }
            })
            .collect()
    }

    /// This tokenizer with `words` as vocabulary entries of their own, ids from
    /// [`Tokenizer::vocab_size`] on in the order given: tokenizer.json and vocab.txt (so that
    /// transformers' fast and slow tokenizers agree) written into `dir`, beside copies of the
    /// configuration files, and loaded from there.
    pub fn with_words(&self, words: &[SplitWord], dir: &Path) -> Result<Tokenizer, TextError> {
        self.wordpiece_prefix()?;
        let json_path = dir.join("tokenizer.json");
        let mut document = serde_json::to_value(self.inner())
            .map_err(|e| TextError::file(&json_path, format!("cannot serialise: {e}")))?;
        let Some(vocab) = document["model"]["vocab"].as_object_mut() else {
            return Err(TextError::field(
                &json_path,
                "model.vocab",
                "a WordPiece vocabulary serialises as an object",
            ));
        };
        let first = self.vocab_size();
        for (i, word) in words.iter().enumerate() {
            if let Some(id) = vocab.get(&word.word) {
                return Err(TextError::field(
                    &json_path,
                    "model.vocab",
                    format!("{:?} is already in the vocabulary (id {id})", word.word),
                ));
            }
            vocab.insert(word.word.clone(), serde_json::json!(first + i));
        }
        // vocab.txt is one token a line, the line its id: every id up to the last must be there.
        let mut lines: Vec<Option<&str>> = vec![None; first + words.len()];
        for (token, id) in vocab.iter() {
            if let Some(slot) = id.as_u64().and_then(|id| lines.get_mut(id as usize)) {
                *slot = Some(token);
            }
        }
        let txt_path = dir.join("vocab.txt");
        let mut txt = String::new();
        for (id, token) in lines.iter().enumerate() {
            let Some(token) = token else {
                return Err(TextError::file(
                    &txt_path,
                    format!(
                        "the vocabulary has no token with id {id}: vocab.txt (one token a line, \
                         the line its id) cannot hold it"
                    ),
                ));
            };
            txt.push_str(token);
            txt.push('\n');
        }
        let write = |path: &Path, bytes: &[u8]| {
            std::fs::write(path, bytes)
                .map_err(|e| TextError::file(path, format!("cannot write: {e}")))
        };
        write(
            &json_path,
            &serde_json::to_vec_pretty(&document).expect("JSON values serialise"),
        )?;
        write(&txt_path, txt.as_bytes())?;
        for name in crate::config::FILES {
            let from = self.dir().join(name);
            if from.is_file() {
                std::fs::copy(&from, dir.join(name))
                    .map_err(|e| TextError::file(&from, format!("cannot copy: {e}")))?;
            }
        }
        Tokenizer::from_dir(dir)
    }
}
