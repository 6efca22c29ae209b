//! The tokenizer of a Hugging Face model directory.

use std::path::{Path, PathBuf};

use lmbias_core::read::TOKENIZER;
use tokenizers::normalizers::{NormalizerWrapper, Precompiled};
use tokenizers::{NormalizedString, Normalizer};

use crate::config::{Role, TokenizerConfig};
use crate::sentencepiece::{self, SentencePieceModel};
use crate::{Encoding, TextError, wordpiece};

/// A special token and its vocabulary id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialToken {
    /// The token as written in text and vocabulary (`[MASK]`, `<pad>`).
    pub token: String,
    /// Its vocabulary id.
    pub id: u32,
}

/// Tokenizes exactly like transformers' fast tokenizer for the same directory,
/// without padding or truncation (the model handles batching; a silently cut
/// sentence would be a wrong number).
#[derive(Clone)]
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    dir: PathBuf,
    pad: SpecialToken,
    mask: Option<SpecialToken>,
    unk: Option<SpecialToken>,
    /// One more than the largest id it can give, added tokens included: the rows a model's
    /// embedding table needs. Not the number of tokens, which a vocabulary with a gap in
    /// its ids (or an edited one) leaves below the largest id.
    ids: usize,
}

/// Whether `path` is there to be read. A name that is there but is no regular file (a
/// device, a pipe, a folder) is refused, not passed over for the next format.
fn present(path: &Path) -> Result<bool, TextError> {
    match std::fs::metadata(path) {
        Err(_) => Ok(false),
        Ok(meta) if meta.is_file() => Ok(true),
        Ok(meta) => Err(TextError::file(
            path,
            lmbias_core::read::not_regular(
                &meta,
                "a model's files are recorded by their sha256, so each must be a regular file",
            )
            .to_string(),
        )),
    }
}

/// A `tokenizer.json`, with what transformers' tokenizer classes change on loading it: the
/// SentencePiece pipeline rebuilt, `added_tokens_decoder` applied, ALBERT's and DeBERTa's
/// pipelines, and BERT's normalizer rebuilt from `tokenizer_config.json`.
fn from_tokenizer_json(
    json_path: &Path,
    config: &TokenizerConfig,
) -> Result<tokenizers::Tokenizer, TextError> {
    let bytes = crate::read(json_path, TOKENIZER).map_err(|e| TextError::file(json_path, e))?;
    let mut document: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| TextError::file(json_path, format!("invalid JSON: {e}")))?;
    let unigram = document["model"]["type"] == "Unigram";
    if unigram && !config.loads_generic() && config.rebuilds_sentencepiece() {
        sentencepiece::rebuild_pipeline(&mut document);
    }
    if !config.loads_generic() {
        config.apply_added_tokens_decoder(&mut document);
    }
    if unigram && !config.loads_generic() && config.is_albert() {
        sentencepiece::rebuild_albert_pipeline(&mut document, config)?;
    }
    if unigram && !config.loads_generic() && config.is_deberta() {
        let model = &mut document["model"];
        let vocab = match model["vocab"].take() {
            serde_json::Value::Array(vocab) => vocab,
            _ => {
                return Err(TextError::field(
                    json_path,
                    "model.vocab",
                    "expected a list of [piece, score]",
                ));
            }
        };
        let unk_id = model["unk_id"].as_u64().unwrap_or(0);
        let tokens = document["added_tokens"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["content"].as_str().map(str::to_owned))
            .collect();
        document = sentencepiece::deberta_tokenizer_json(vocab, unk_id, tokens, config, json_path)?;
    }
    let mut inner = serde_json::from_value::<tokenizers::Tokenizer>(document)
        .map_err(|e| TextError::file(json_path, one_line(&e)))?;
    // transformers (4 and 5) load a BERT-family tokenizer.json into BertTokenizer, whose
    // __init__ rebuilds the normalizer from tokenizer_config.json (lowercase unless
    // `do_lower_case: false`), whatever tokenizer.json says.
    let is_bert = matches!(
        inner.get_normalizer(),
        Some(NormalizerWrapper::BertNormalizer(_))
    );
    if is_bert && !config.loads_generic() {
        inner.with_normalizer(Some(wordpiece::bert_normalizer(config)?));
    }
    Ok(inner)
}

/// BERT's WordPiece tokenizer built from `vocab.txt`.
fn from_vocab(
    vocab_path: &Path,
    config: &TokenizerConfig,
) -> Result<tokenizers::Tokenizer, TextError> {
    let document = wordpiece::bert_tokenizer_json(vocab_path, config)?;
    serde_json::from_value::<tokenizers::Tokenizer>(document).map_err(|e| {
        TextError::file(
            vocab_path,
            format!("cannot build a WordPiece tokenizer: {e}"),
        )
    })
}

/// DeBERTa-v2/v3's Unigram tokenizer built from `spm.model`.
fn from_spm(spm_path: &Path, config: &TokenizerConfig) -> Result<tokenizers::Tokenizer, TextError> {
    let model = SentencePieceModel::read(spm_path)?;
    let vocab = model
        .pieces
        .iter()
        .map(|(p, s)| serde_json::json!([p, s]))
        .collect();
    let controls = model
        .controls
        .iter()
        .map(|&id| model.pieces[id as usize].0.clone())
        .collect();
    let document = sentencepiece::deberta_tokenizer_json(
        vocab,
        model.unk_id.into(),
        controls,
        config,
        spm_path,
    )?;
    serde_json::from_value::<tokenizers::Tokenizer>(document)
        .map_err(|e| TextError::file(spm_path, format!("cannot build a Unigram tokenizer: {e}")))
}

/// T5's Unigram tokenizer built from `spiece.model`, with its precompiled normalizer.
fn from_spiece(
    spiece_path: &Path,
    config: &TokenizerConfig,
) -> Result<tokenizers::Tokenizer, TextError> {
    let model = SentencePieceModel::read(spiece_path)?;
    let document = sentencepiece::t5_tokenizer_json(&model, spiece_path, config)?;
    let mut inner = serde_json::from_value::<tokenizers::Tokenizer>(document).map_err(|e| {
        TextError::file(
            spiece_path,
            format!("cannot build a Unigram tokenizer: {e}"),
        )
    })?;
    if !model.charsmap.is_empty() {
        let precompiled = Precompiled::from(&model.charsmap).map_err(|e| {
            TextError::field(spiece_path, "normalizer_spec.precompiled_charsmap", e)
        })?;
        inner.with_normalizer(Some(precompiled));
    }
    Ok(inner)
}

/// The special token of `role`: the configured one, which must be in the vocabulary, else the
/// first of `conventional` that is.
fn special(
    inner: &tokenizers::Tokenizer,
    config: &TokenizerConfig,
    role: Role,
    conventional: &[&str],
) -> Result<Option<SpecialToken>, TextError> {
    if let Some((token, file)) = config.special(role)? {
        return match inner.token_to_id(&token) {
            Some(id) => Ok(Some(SpecialToken { token, id })),
            None => Err(TextError::field(
                file,
                role.key(),
                format!("{token:?} is not in the vocabulary"),
            )),
        };
    }
    Ok(conventional.iter().find_map(|&t| {
        inner.token_to_id(t).map(|id| SpecialToken {
            token: t.to_owned(),
            id,
        })
    }))
}

impl Tokenizer {
    /// Loads `tokenizer.json` if present; otherwise builds BERT's WordPiece
    /// tokenizer from `vocab.txt`, T5's Unigram tokenizer from `spiece.model`, or
    /// DeBERTa-v2/v3's from `spm.model`, with the settings of `tokenizer_config.json`,
    /// as transformers does.
    /// Special tokens come from `tokenizer_config.json` / `special_tokens_map.json`.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self, TextError> {
        let dir = dir.as_ref();
        let config = TokenizerConfig::load(dir)?;
        let json_path = dir.join("tokenizer.json");
        let vocab_path = dir.join("vocab.txt");
        let spiece_path = dir.join("spiece.model");
        let spm_path = dir.join("spm.model");
        let mut inner = if present(&json_path)? {
            from_tokenizer_json(&json_path, &config)?
        } else if present(&vocab_path)? {
            from_vocab(&vocab_path, &config)?
        } else if present(&spm_path)? {
            from_spm(&spm_path, &config)?
        } else if present(&spiece_path)? {
            from_spiece(&spiece_path, &config)?
        } else {
            return Err(TextError::NoTokenizer {
                dir: dir.to_path_buf(),
            });
        };

        // A padding token baked into tokenizer.json is a fallback for the pad id.
        let baked_pad = inner.get_padding().map(|p| SpecialToken {
            token: p.pad_token.clone(),
            id: p.pad_id,
        });
        inner.with_padding(None);
        inner
            .with_truncation(None)
            .map_err(|e| TextError::file(&json_path, one_line(&*e)))?;

        let resolve = |role, conventional: &[&str]| special(&inner, &config, role, conventional);
        let mask = resolve(Role::Mask, &["[MASK]", "<mask>"])?;
        let unk = resolve(Role::Unk, &["[UNK]", "<unk>"])?;
        let pad = match resolve(Role::Pad, &["[PAD]", "<pad>"])?.or(baked_pad) {
            Some(pad) => pad,
            None => {
                return Err(TextError::field(
                    dir.join("tokenizer_config.json"),
                    Role::Pad.key(),
                    "no padding token: not configured, and neither [PAD] nor <pad> is in the vocabulary",
                ));
            }
        };
        let ids = inner
            .get_vocab(true)
            .values()
            .max()
            .map_or(0, |&id| id as usize + 1);
        Ok(Tokenizer {
            inner,
            dir: dir.to_path_buf(),
            pad,
            mask,
            unk,
            ids,
        })
    }

    /// The tokenizers crate's tokenizer, for the crate's own additions to it.
    pub(crate) fn inner(&self) -> &tokenizers::Tokenizer {
        &self.inner
    }

    /// The directory the tokenizer was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Tokenizes one text; `add_special` adds the model's template (`[CLS] … [SEP]`).
    /// Errors name the text as text 0.
    pub fn encode(&self, text: &str, add_special: bool) -> Result<Encoding, TextError> {
        self.encode_indexed(0, text, add_special)
    }

    /// Tokenizes each text; an error names the index of the text at fault.
    pub fn encode_batch(
        &self,
        texts: &[&str],
        add_special: bool,
    ) -> Result<Vec<Encoding>, TextError> {
        texts
            .iter()
            .enumerate()
            .map(|(index, text)| self.encode_indexed(index, text, add_special))
            .collect()
    }

    pub(crate) fn encode_indexed(
        &self,
        index: usize,
        text: &str,
        add_special: bool,
    ) -> Result<Encoding, TextError> {
        self.inner
            .encode(text, add_special)
            .map(|encoding| Encoding::from_hf(encoding, text))
            .map_err(|e| TextError::Encode {
                index,
                message: one_line(&*e),
            })
    }

    /// The padding token (BERT's `[PAD]`), for batching sequences of unequal length.
    pub fn pad(&self) -> &SpecialToken {
        &self.pad
    }

    /// The padding token's id, what the model fills short sequences of a batch with.
    pub fn pad_id(&self) -> u32 {
        self.pad.id
    }

    /// The mask token, `None` for a tokenizer without one (T5).
    pub fn mask(&self) -> Option<&SpecialToken> {
        self.mask.as_ref()
    }

    /// The unknown-piece token, `None` for a tokenizer without one.
    pub fn unk(&self) -> Option<&SpecialToken> {
        self.unk.as_ref()
    }

    /// Positions of the mask token in `encoding`.
    pub fn mask_positions(&self, encoding: &Encoding) -> Vec<usize> {
        let Some(mask) = &self.mask else {
            return Vec::new();
        };
        (0..encoding.len())
            .filter(|&i| encoding.ids()[i] == mask.id)
            .collect()
    }

    /// Encodes text `index` of a fill-mask query and returns it with the position of
    /// its one mask; a text with no mask or several is an error naming `index`.
    pub fn encode_masked(&self, index: usize, text: &str) -> Result<(Encoding, usize), TextError> {
        let mask = self.mask.as_ref().ok_or_else(|| TextError::NoMaskToken {
            tokenizer: self.dir.display().to_string(),
        })?;
        let encoding = self.encode_indexed(index, text, true)?;
        match self.mask_positions(&encoding)[..] {
            [position] => Ok((encoding, position)),
            ref found => Err(TextError::MaskCount {
                index,
                mask: mask.token.clone(),
                found: found.len(),
                text: text.to_owned(),
            }),
        }
    }

    /// Encodes text `index` of a fill-mask query with several masks allowed, as transformers'
    /// pipeline takes it; returns every mask's position, in order. A text without a mask is an
    /// error naming `index`.
    pub fn encode_masks(
        &self,
        index: usize,
        text: &str,
    ) -> Result<(Encoding, Vec<usize>), TextError> {
        let mask = self.mask.as_ref().ok_or_else(|| TextError::NoMaskToken {
            tokenizer: self.dir.display().to_string(),
        })?;
        let encoding = self.encode_indexed(index, text, true)?;
        let positions = self.mask_positions(&encoding);
        if positions.is_empty() {
            return Err(TextError::NoMask {
                index,
                mask: mask.token.clone(),
                text: text.to_owned(),
            });
        }
        Ok((encoding, positions))
    }

    /// Applies the tokenizer's normalizer (for BERT uncased: lowercase, strip accents,
    /// spaces around CJK characters), as it happens before the text is cut into pieces.
    pub fn normalize(&self, text: &str) -> Result<String, TextError> {
        let mut normalized = NormalizedString::from(text);
        if let Some(normalizer) = self.inner.get_normalizer() {
            normalizer
                .normalize(&mut normalized)
                .map_err(|e| TextError::Encode {
                    index: 0,
                    message: one_line(&*e),
                })?;
        }
        Ok(normalized.get().to_owned())
    }

    /// Whether the tokenizer lower-cases its input (an *uncased* model): read from
    /// what the normalizer does, so tokenizer.json, `do_lower_case` in
    /// tokenizer_config.json and a SentencePiece charsmap all count as they act.
    pub fn lowercases(&self) -> bool {
        self.normalize("A").is_ok_and(|n| n == "a")
    }

    /// The id of `token` if the tokenizer turns it, alone, into exactly one known
    /// piece: "Thou" is found as "thou" in an uncased BERT, as "▁Thou" in T5, and
    /// special tokens match as written. `None` means the tokenizer cannot produce
    /// the token as one piece (it splits it, or it is unknown).
    /// The word is encoded after a space, as it stands inside a sentence: byte-level BPE
    /// (RoBERTa) has another piece for a word after a space (`Ġthou`) than at the start
    /// of a text (`thou`), and a mask is filled inside a sentence.
    pub fn piece_id(&self, token: &str) -> Option<u32> {
        let token = token.trim();
        if token.is_empty() {
            return None;
        }
        let unk = self.unk.as_ref().map(|u| u.id);
        // An added token written in the text is itself, whatever the pre-tokenizer does with
        // the space before it (a bare Metaspace makes that space a piece of its own).
        let added = self
            .inner
            .get_added_tokens_decoder()
            .iter()
            .find_map(|(&id, added)| (added.content == token).then_some(id));
        let id = match added {
            Some(id) => id,
            None => match self.encode(&format!(" {token}"), false).ok()?.ids() {
                &[id] => id,
                _ => return None,
            },
        };
        (Some(id) != unk).then_some(id)
    }

    /// The vocabulary string of `id`.
    pub fn token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id)
    }

    /// Piece `id` as text: decoded alone, without the space that a word-initial marker
    /// stands for (`Ġthou`, `▁thou` → `thou`); a WordPiece continuation keeps its `##`.
    pub fn piece_text(&self, id: u32) -> Option<String> {
        let text = self.inner.decode(&[id], false).ok()?;
        Some(text.trim_start().to_owned())
    }

    /// One more than the largest id, added tokens included (the model's `vocab_size` must
    /// cover it).
    pub fn vocab_size(&self) -> usize {
        self.ids
    }
}

/// Short: the wrapped tokenizer's own Debug prints the whole vocabulary.
impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("dir", &self.dir)
            .field("vocab_size", &self.vocab_size())
            .field("pad", &self.pad)
            .field("mask", &self.mask)
            .field("unk", &self.unk)
            .finish()
    }
}

/// Error sources from the tokenizers crate, flattened to one line.
fn one_line(error: &dyn std::error::Error) -> String {
    error.to_string().lines().collect::<Vec<_>>().join(" ")
}
