//! Unigram tokenizers built from a SentencePiece model the way transformers builds them: T5's
//! from `spiece.model` when a checkpoint has no `tokenizer.json`, DeBERTa-v2/v3's from
//! `spm.model` or from the vocabulary of a `tokenizer.json`.
//!
//! `spiece.model` is a SentencePiece `ModelProto` (protobuf). The few fields needed
//! are read by hand (field numbers from sentencepiece's `sentencepiece_model.proto`):
//!
//! - `ModelProto.pieces = 1` (repeated `SentencePiece`: `piece = 1` string,
//!   `score = 2` float, `type = 3` enum; NORMAL = 1, UNKNOWN = 2, CONTROL = 3, …)
//! - `ModelProto.trainer_spec = 2`: `model_type = 3` (UNIGRAM = 1, the default)
//! - `ModelProto.normalizer_spec = 3`: `precompiled_charsmap = 2` bytes

use std::path::Path;

use lmbias_core::read::TOKENIZER;
use serde_json::{Value, json};

use crate::TextError;
use crate::config::{Role, TokenizerConfig};

const UNKNOWN_TYPE: u64 = 2;
const CONTROL_TYPE: u64 = 3;
const UNIGRAM: u64 = 1;

/// What lmbias needs from a SentencePiece model file.
pub(crate) struct SentencePieceModel {
    /// (piece, score) in id order.
    pub(crate) pieces: Vec<(String, f32)>,
    pub(crate) unk_id: u32,
    /// Ids of the control pieces (`[CLS]`, `</s>`, …), which transformers makes special tokens.
    pub(crate) controls: Vec<u32>,
    /// The normalizer table (NFKC and friends); empty when the model has none.
    pub(crate) charsmap: Vec<u8>,
}

impl SentencePieceModel {
    pub(crate) fn read(path: &Path) -> Result<Self, TextError> {
        let bytes = crate::read(path, TOKENIZER).map_err(|e| TextError::file(path, e))?;
        let bad = |field: &str, message: String| TextError::field(path, field, message);
        let mut pieces = Vec::new();
        let mut unk_id = None;
        let mut controls = Vec::new();
        let mut charsmap = Vec::new();
        let mut model_type = UNIGRAM;
        for field in Fields::new(&bytes) {
            let field = field.map_err(|e| bad("ModelProto", e))?;
            match field {
                (1, Wire::Bytes(piece)) => {
                    let (mut text, mut score, mut kind) = (None, 0.0f32, 1);
                    for f in Fields::new(piece) {
                        match f.map_err(|e| bad("pieces", e))? {
                            (1, Wire::Bytes(s)) => {
                                let s = std::str::from_utf8(s).map_err(|_| {
                                    bad(
                                        "pieces.piece",
                                        format!("piece {} is not UTF-8", pieces.len()),
                                    )
                                })?;
                                text = Some(s.to_owned());
                            }
                            (2, Wire::Fixed32(bits)) => score = f32::from_bits(bits),
                            (3, Wire::Varint(v)) => kind = v,
                            _ => {}
                        }
                    }
                    let text = text.ok_or_else(|| {
                        bad(
                            "pieces.piece",
                            format!("piece {} has no text", pieces.len()),
                        )
                    })?;
                    if kind == UNKNOWN_TYPE && unk_id.is_none() {
                        unk_id = Some(pieces.len() as u32);
                    }
                    if kind == CONTROL_TYPE {
                        controls.push(pieces.len() as u32);
                    }
                    pieces.push((text, score));
                }
                (2, Wire::Bytes(trainer)) => {
                    for f in Fields::new(trainer) {
                        if let (3, Wire::Varint(v)) = f.map_err(|e| bad("trainer_spec", e))? {
                            model_type = v;
                        }
                    }
                }
                (3, Wire::Bytes(normalizer)) => {
                    for f in Fields::new(normalizer) {
                        if let (2, Wire::Bytes(map)) = f.map_err(|e| bad("normalizer_spec", e))? {
                            charsmap = map.to_vec();
                        }
                    }
                }
                _ => {}
            }
        }
        if model_type != UNIGRAM {
            return Err(bad(
                "trainer_spec.model_type",
                format!(
                    "{model_type} is not a Unigram model (1); only T5-style Unigram models are supported"
                ),
            ));
        }
        if pieces.is_empty() {
            return Err(bad(
                "pieces",
                "no pieces: is this a SentencePiece model?".into(),
            ));
        }
        let unk_id = unk_id.ok_or_else(|| bad("pieces.type", "no piece of type UNKNOWN".into()))?;
        Ok(SentencePieceModel {
            pieces,
            unk_id,
            controls,
            charsmap,
        })
    }
}

/// The `tokenizer.json` document transformers 5 builds for a T5 `spiece.model`
/// (`models/t5/tokenization_t5.py` with `convert_slow_tokenizer.T5Converter.convert_from_spm`):
/// Unigram over the pieces plus `extra_ids` sentinels `<extra_id_{n-1}>` … `<extra_id_0>`,
/// WhitespaceSplit then Metaspace (prepend "always"), `$A </s>`. The Precompiled
/// normalizer is attached by the caller (its table is not JSON).
pub(crate) fn t5_tokenizer_json(
    model: &SentencePieceModel,
    path: &Path,
    config: &TokenizerConfig,
) -> Result<Value, TextError> {
    let extra_ids = config.count("extra_ids")?.unwrap_or(100);
    let mut vocab: Vec<Value> = model.pieces.iter().map(|(p, s)| json!([p, s])).collect();
    let sentinels = (0..extra_ids).rev().map(|i| format!("<extra_id_{i}>"));
    vocab.extend(sentinels.clone().map(|s| json!([s, 0.0])));
    let id_of = |token: &str| -> Option<u32> {
        let in_pieces = model.pieces.iter().position(|(p, _)| p == token);
        let in_sentinels = || {
            (0..extra_ids)
                .rev()
                .position(|i| format!("<extra_id_{i}>") == token)
                .map(|k| model.pieces.len() + k)
        };
        in_pieces.or_else(in_sentinels).map(|i| i as u32)
    };

    // Defaults are T5Tokenizer.__init__'s; all must be pieces of the model.
    let mut specials = Vec::new();
    for (role, default) in [
        (Role::Pad, "<pad>"),
        (Role::Eos, "</s>"),
        (Role::Unk, "<unk>"),
    ] {
        let (token, file) = config
            .special(role)?
            .unwrap_or_else(|| (default.to_owned(), path.to_path_buf()));
        let id = id_of(&token).ok_or_else(|| {
            TextError::field(
                &file,
                role.key(),
                format!("{token:?} is not a piece of {}", path.display()),
            )
        })?;
        specials.push((token, id));
    }
    let eos = specials[1].clone();
    for (k, sentinel) in sentinels.enumerate() {
        specials.push((sentinel, (model.pieces.len() + k) as u32));
    }
    specials.sort_by_key(|&(_, id)| id);
    specials.dedup();
    let added_tokens: Vec<Value> = specials
        .iter()
        .map(|(token, id)| {
            json!({"id": id, "content": token, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": true})
        })
        .collect();
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added_tokens,
        "normalizer": null,
        "pre_tokenizer": sentencepiece_pre_tokenizer(),
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": eos.0, "type_id": 0}}],
            "pair": [
                {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": eos.0, "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": eos.0, "type_id": 0}},
            ],
            "special_tokens": {eos.0.clone(): {"id": eos.0, "ids": [eos.1], "tokens": [eos.0]}},
        },
        "decoder": metaspace(),
        "model": {"type": "Unigram", "unk_id": model.unk_id, "vocab": vocab, "byte_fallback": false},
    }))
}

/// The `tokenizer.json` document DebertaV2Tokenizer builds in its `__init__` (transformers
/// 5.24, `models/deberta_v2/tokenization_deberta_v2.py`) over a Unigram vocabulary — the
/// pieces of `spm.model`, or the `model.vocab` of a tokenizer.json, whose own normalizer,
/// pre-tokenizer, post-processor and token flags transformers does not read:
///
/// - normalizer: `Lowercase` if `do_lower_case`, then runs of whitespace and any tab or line
///   break to one space, NFC, trailing whitespace stripped. SentencePiece's own table
///   (`precompiled_charsmap`) is not applied: transformers drops it.
/// - pre-tokenizer: punctuation isolated if `split_by_punct`, then Metaspace, prepending `▁`
///   to every chunk unless `add_prefix_space` is false (then to the first only).
/// - `[CLS] $A [SEP]`; special tokens (`tokens`: the configured ones, the control pieces, the
///   file's added tokens) split off the text before normalizing, none stripping a space; one
///   the vocabulary lacks (DeBERTa-v3's `[MASK]`) takes the next id.
pub(crate) fn deberta_tokenizer_json(
    vocab: Vec<Value>,
    unk_id: u64,
    tokens: Vec<String>,
    config: &TokenizerConfig,
    path: &Path,
) -> Result<Value, TextError> {
    let mut specials = Vec::new();
    for (role, default) in [
        (Role::Eos, "[SEP]"),
        (Role::Unk, "[UNK]"),
        (Role::Sep, "[SEP]"),
        (Role::Pad, "[PAD]"),
        (Role::Cls, "[CLS]"),
        (Role::Mask, "[MASK]"),
    ] {
        let token = config
            .special(role)?
            .map_or_else(|| default.to_owned(), |(t, _)| t);
        specials.push((role, token));
    }
    let role = |r: Role| {
        specials
            .iter()
            .find(|(s, _)| *s == r)
            .map(|(_, t)| t.clone())
    };
    let (cls, sep) = (
        role(Role::Cls).unwrap_or_default(),
        role(Role::Sep).unwrap_or_default(),
    );
    let mut all: Vec<String> = specials.iter().map(|(_, t)| t.clone()).collect();
    all.extend(tokens);
    all.extend(config.token_list("extra_special_tokens")?);
    all.extend(config.token_list("additional_special_tokens")?);
    let mut ids = std::collections::HashMap::new();
    for (id, entry) in vocab.iter().enumerate() {
        if let Some(piece) = entry.get(0).and_then(Value::as_str) {
            ids.entry(piece.to_owned()).or_insert(id as u64);
        }
    }
    let mut next = vocab.len() as u64;
    let mut added: Vec<(u64, String)> = Vec::new();
    for token in all {
        if added.iter().any(|(_, t)| *t == token) {
            continue;
        }
        let id = *ids.entry(token.clone()).or_insert_with(|| {
            next += 1;
            next - 1
        });
        added.push((id, token));
    }
    added.sort();
    let id_of = |token: &str| {
        added
            .iter()
            .find(|(_, t)| t == token)
            .map(|(id, _)| *id)
            .ok_or_else(|| TextError::file(path, format!("no id for special token {token:?}")))
    };
    let (cls_id, sep_id) = (id_of(&cls)?, id_of(&sep)?);
    let mut normalizers = Vec::new();
    if config.flag("do_lower_case")?.unwrap_or(false) {
        normalizers.push(json!({"type": "Lowercase"}));
    }
    normalizers.extend([
        json!({"type": "Replace", "pattern": {"Regex": "\\s{2,}|[\\n\\r\\t]"}, "content": " "}),
        json!({"type": "NFC"}),
        json!({"type": "Strip", "strip_left": false, "strip_right": true}),
    ]);
    let prepend = if config.flag("add_prefix_space")?.unwrap_or(true) {
        "always"
    } else {
        "first"
    };
    let metaspace = json!({"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": prepend, "split": true});
    let mut pre_tokenizers = Vec::new();
    if config.flag("split_by_punct")?.unwrap_or(false) {
        pre_tokenizers.push(json!({"type": "Punctuation", "behavior": "Isolated"}));
    }
    pre_tokenizers.push(metaspace.clone());
    let added_tokens: Vec<Value> = added
        .iter()
        .map(|(id, token)| {
            json!({"id": id, "content": token, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": true})
        })
        .collect();
    let special =
        |token: &str, type_id: u32| json!({"SpecialToken": {"id": token, "type_id": type_id}});
    let sequence = |id: &str, type_id: u32| json!({"Sequence": {"id": id, "type_id": type_id}});
    Ok(json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added_tokens,
        "normalizer": {"type": "Sequence", "normalizers": normalizers},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre_tokenizers},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special(&cls, 0), sequence("A", 0), special(&sep, 0)],
            "pair": [special(&cls, 0), sequence("A", 0), special(&sep, 0), sequence("B", 1), special(&sep, 1)],
            "special_tokens": {
                cls.clone(): {"id": cls, "ids": [cls_id], "tokens": [cls]},
                sep.clone(): {"id": sep, "ids": [sep_id], "tokens": [sep]},
            },
        },
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": unk_id, "vocab": vocab, "byte_fallback": false},
    }))
}

/// The pipeline T5Tokenizer, XLMRobertaTokenizer and CamembertTokenizer build in their
/// `__init__` over a tokenizer.json's Unigram model: transformers 5 keeps the file's
/// vocabulary, post-processor and Precompiled table but replaces the normalizer and
/// pre-tokenizer (WhitespaceSplit, then Metaspace). Older files add a `Replace(" {2,}", " ")`
/// and a bare Metaspace, which tokenize a trailing space differently and put a lone `▁`
/// before `<mask>` where a space precedes it (5 of 6 masked texts with XLM-R's own file).
pub(crate) fn rebuild_pipeline(document: &mut Value) {
    document["normalizer"] = precompiled_of(document).unwrap_or(Value::Null);
    document["pre_tokenizer"] = sentencepiece_pre_tokenizer();
}

/// The pipeline AlbertTokenizer builds in its `__init__` (transformers 5.24,
/// `models/albert/tokenization_albert.py`) over a tokenizer.json's Unigram model, keeping the
/// file's vocabulary, Precompiled table and post-processor: ``` `` ``` and `''` to `"`, NFKD and
/// accents stripped unless `keep_accents`, lowercased if `do_lower_case` (its default), then
/// the table; WhitespaceSplit, then Metaspace prepending `▁` unless `add_prefix_space` is
/// false. The ALBERT files on the hub were converted by transformers 4, whose pipeline puts
/// a `Replace(" {2,}", " ")` after the table and has a bare Metaspace.
pub(crate) fn rebuild_albert_pipeline(
    document: &mut Value,
    config: &TokenizerConfig,
) -> Result<(), TextError> {
    let mut normalizers = vec![
        json!({"type": "Replace", "pattern": {"String": "``"}, "content": "\""}),
        json!({"type": "Replace", "pattern": {"String": "''"}, "content": "\""}),
    ];
    if !config.flag("keep_accents")?.unwrap_or(false) {
        normalizers.extend([json!({"type": "NFKD"}), json!({"type": "StripAccents"})]);
    }
    if config.flag("do_lower_case")?.unwrap_or(true) {
        normalizers.push(json!({"type": "Lowercase"}));
    }
    normalizers.extend(precompiled_of(document));
    let prepend = if config.flag("add_prefix_space")?.unwrap_or(true) {
        "always"
    } else {
        "never"
    };
    let metaspace = json!({"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": prepend, "split": true});
    document["normalizer"] = json!({"type": "Sequence", "normalizers": normalizers});
    document["pre_tokenizer"] = json!({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace.clone()]});
    document["decoder"] = metaspace;
    Ok(())
}

/// The Precompiled normalizer of a tokenizer.json (SentencePiece's table), alone or in a
/// sequence.
fn precompiled_of(document: &Value) -> Option<Value> {
    let normalizer = &document["normalizer"];
    match normalizer["type"].as_str() {
        Some("Precompiled") => Some(normalizer.clone()),
        Some("Sequence") => normalizer["normalizers"]
            .as_array()
            .and_then(|all| all.iter().find(|n| n["type"] == "Precompiled").cloned()),
        _ => None,
    }
}

fn sentencepiece_pre_tokenizer() -> Value {
    json!({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace()]})
}

fn metaspace() -> Value {
    json!({"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": "always", "split": true})
}

/// One protobuf field value; groups (wire types 3, 4) do not occur in SentencePiece models.
enum Wire<'a> {
    Varint(u64),
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32(u32),
}

/// The top-level fields of one protobuf message, as (field number, value).
struct Fields<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> Fields<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Fields {
            rest: bytes,
            failed: false,
        }
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.rest.split_first().ok_or("truncated varint")?;
            self.rest = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("varint longer than 10 bytes".into())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.rest.len() < n {
            return Err(format!("field needs {n} bytes, {} left", self.rest.len()));
        }
        let (head, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(head)
    }

    fn field(&mut self) -> Result<(u64, Wire<'a>), String> {
        let key = self.varint()?;
        let value = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Wire::Fixed64
            }
            2 => {
                let len = usize::try_from(self.varint()?).map_err(|_| "length overflows")?;
                Wire::Bytes(self.take(len)?)
            }
            5 => Wire::Fixed32(u32::from_le_bytes(
                self.take(4)?.try_into().expect("took 4 bytes"),
            )),
            other => {
                return Err(format!(
                    "unsupported protobuf wire type {other}: not a SentencePiece model"
                ));
            }
        };
        Ok((key >> 3, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Wire<'a>), String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.failed {
            return None;
        }
        let field = self.field();
        self.failed = field.is_err();
        Some(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_varints_lengths_and_fixed32() {
        // field 1 varint 300, field 2 bytes "hi", field 3 fixed32 -1.0f32, field 4 fixed64.
        let bytes = [
            0x08, 0xac, 0x02, 0x12, 0x02, b'h', b'i', 0x1d, 0x00, 0x00, 0x80, 0xbf, 0x21, 1, 2, 3,
            4, 5, 6, 7, 8,
        ];
        let fields: Vec<_> = Fields::new(&bytes).collect::<Result<_, _>>().unwrap();
        assert!(matches!(fields[0], (1, Wire::Varint(300))));
        assert!(matches!(fields[1], (2, Wire::Bytes(b"hi"))));
        assert!(matches!(fields[2], (3, Wire::Fixed32(bits)) if f32::from_bits(bits) == -1.0));
        assert!(matches!(fields[3], (4, Wire::Fixed64)));
        assert_eq!(fields.len(), 4);

        let errors: Vec<String> = [&[0x12, 0x05, b'h'][..], &[0x08, 0xff], &[0x0b]]
            .iter()
            .map(|b| Fields::new(b).find_map(Result::err).unwrap())
            .collect();
        assert_eq!(errors[0], "field needs 5 bytes, 1 left");
        assert_eq!(errors[1], "truncated varint");
        assert!(
            errors[2].starts_with("unsupported protobuf wire type 3"),
            "{}",
            errors[2]
        );
    }
}
