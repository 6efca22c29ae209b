//! A BERT WordPiece tokenizer built from `vocab.txt`, the way transformers builds
//! `BertTokenizer` (its fast tokenizer) when a checkpoint has no `tokenizer.json`.

use std::collections::BTreeMap;
use std::path::Path;

use lmbias_core::read::TOKENIZER;
use serde_json::{Value, json};
use tokenizers::normalizers::BertNormalizer;

use crate::TextError;
use crate::config::{Role, TokenizerConfig};

/// The `tokenizer.json` document transformers 5 would build for this directory
/// (`models/bert/tokenization_bert.py`: BertNormalizer, BertPreTokenizer,
/// WordPiece with `##` and 100 chars per word, `[CLS] $A [SEP]`).
pub(crate) fn bert_tokenizer_json(
    vocab_path: &Path,
    config: &TokenizerConfig,
) -> Result<Value, TextError> {
    let vocab = read_vocab(vocab_path)?;
    let mut next_id = vocab.values().max().map_or(0, |&id| id + 1);
    let mut ids: BTreeMap<String, u32> = vocab.iter().map(|(t, &id)| (t.clone(), id)).collect();

    let mut special = |role: Role, default: &str| -> Result<(String, u32), TextError> {
        let token = config
            .special(role)?
            .map_or_else(|| default.to_owned(), |(t, _)| t);
        let id = *ids.entry(token.clone()).or_insert_with(|| {
            // transformers appends a special token missing from vocab.txt after the vocabulary.
            next_id += 1;
            next_id - 1
        });
        Ok((token, id))
    };
    let mut added = Vec::new();
    let mut resolved = BTreeMap::new();
    // The roles BertTokenizer registers, in transformers' order, with its defaults.
    let roles = [
        (Role::Unk, "[UNK]"),
        (Role::Sep, "[SEP]"),
        (Role::Pad, "[PAD]"),
        (Role::Cls, "[CLS]"),
        (Role::Mask, "[MASK]"),
    ];
    for (role, default) in roles {
        let (token, id) = special(role, default)?;
        resolved.insert(role.key(), (token.clone(), id));
        if !added.iter().any(|(t, _): &(String, u32)| *t == token) {
            added.push((token, id));
        }
    }
    added.sort_by_key(|&(_, id)| id);
    let added_tokens: Vec<Value> = added
        .iter()
        .map(|(token, id)| {
            json!({"id": id, "content": token, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": true})
        })
        .collect();

    let (cls, cls_id) = &resolved[Role::Cls.key()];
    let (sep, sep_id) = &resolved[Role::Sep.key()];
    let (unk, _) = &resolved[Role::Unk.key()];
    let model_vocab: serde_json::Map<String, Value> =
        vocab.into_iter().map(|(t, id)| (t, json!(id))).collect();
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added_tokens,
        "normalizer": serde_json::to_value(bert_normalizer(config)?).expect("a normalizer serializes"),
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": cls, "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": sep, "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": cls, "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": sep, "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 1}},
                {"SpecialToken": {"id": sep, "type_id": 1}},
            ],
            "special_tokens": {
                cls.clone(): {"id": cls, "ids": [cls_id], "tokens": [cls]},
                sep.clone(): {"id": sep, "ids": [sep_id], "tokens": [sep]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {
            "type": "WordPiece",
            "unk_token": unk,
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": model_vocab,
        },
    }))
}

/// BertTokenizer's normalizer for the settings of `tokenizer_config.json`, with
/// its defaults: lowercase, CJK characters split, and `strip_accents` null, which
/// strips accents exactly when lowercasing, as the original BERT does.
pub(crate) fn bert_normalizer(config: &TokenizerConfig) -> Result<BertNormalizer, TextError> {
    Ok(BertNormalizer::new(
        true,
        config.flag("tokenize_chinese_chars")?.unwrap_or(true),
        config.flag("strip_accents")?,
        config.flag("do_lower_case")?.unwrap_or(true),
    ))
}

/// One token per line, id = line number, like transformers' `load_vocab`: Python's
/// text mode turns `\r\n` and `\r` into `\n`, only the newline is stripped, and a
/// token listed twice keeps its last line.
fn read_vocab(path: &Path) -> Result<BTreeMap<String, u32>, TextError> {
    let bytes = crate::read(path, TOKENIZER).map_err(|e| TextError::file(path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        TextError::file(
            path,
            format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        )
    })?;
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut vocab = BTreeMap::new();
    for (index, line) in text.split_terminator('\n').enumerate() {
        let id = u32::try_from(index).map_err(|_| TextError::file(path, "more than 2^32 lines"))?;
        vocab.insert(line.to_owned(), id);
    }
    if vocab.is_empty() {
        return Err(TextError::file(path, "empty vocabulary"));
    }
    Ok(vocab)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocab_lines_follow_python_text_mode() {
        let dir = std::env::temp_dir().join(format!("lmbias-text-vocab-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("vocab.txt");
        // \r\n and \r end lines; trailing spaces are kept; an empty line is token "";
        // a repeated token keeps its last line; no line after the final newline.
        std::fs::write(&path, "[PAD]\r\nb \rc\n\nb\n").unwrap();
        let vocab = read_vocab(&path).unwrap();
        let expected: BTreeMap<String, u32> =
            [("[PAD]", 0), ("b ", 1), ("c", 2), ("", 3), ("b", 4)]
                .map(|(t, i)| (t.to_owned(), i))
                .into();
        assert_eq!(vocab, expected);

        std::fs::write(&path, [b'a', b'\n', 0xff, b'\n']).unwrap();
        let err = read_vocab(&path).unwrap_err().to_string();
        assert!(err.ends_with("vocab.txt: not UTF-8 (byte 2)"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
