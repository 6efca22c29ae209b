//! Arbitrary bytes and arbitrary JSON fed to every loader that takes contents (association
//! tests, embeddings, valence datasets, probe templates, corpora, pythonbible sources): they
//! may reject the input, never panic.

use std::path::Path;

use lmbias_data::corpus::{Corpus, bible_verses};
use lmbias_data::crows::{GroupTerms, PairSet};
use lmbias_data::probe::Template;
use lmbias_data::valence::ValenceDataset;
use lmbias_data::{AssociationTest, Embeddings, LoadOptions};
use proptest::prelude::*;
use serde_json::Value;

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        any::<i64>().prop_map(|i| Value::Number(i.into())),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("targ1"),
            Just("attr2"),
            Just("category"),
            Just("examples"),
            Just("[MASK]"),
            Just("EME"),
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("targ1".to_string()),
                        Just("targ2".to_string()),
                        Just("attr1".to_string()),
                        Just("attr2".to_string()),
                        Just("category".to_string()),
                        Just("examples".to_string()),
                        Just("sentences".to_string()),
                        Just("text".to_string()),
                        Just("valence".to_string()),
                        ".{0,8}"
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

fn load_all(bytes: &[u8]) {
    let path = Path::new("arbitrary.jsonl");
    let _ = AssociationTest::from_slice(path, bytes, &LoadOptions::default());
    let _ = Embeddings::from_slice(path, bytes);
    let _ = Corpus::from_slice(path, bytes);
    let _ = Corpus::from_slice(Path::new("arbitrary.txt"), bytes);
    let terms = GroupTerms::from_slice(path, bytes).ok();
    let _ = PairSet::from_slice(path, bytes).map(|set| set.lint(3, terms.as_ref()));
    let mut pairs = b",sent_more,sent_less,stereo_antistereo,bias_type\n".to_vec();
    pairs.extend_from_slice(bytes);
    let mut list = b"bias_type,term\n".to_vec();
    list.extend_from_slice(bytes);
    let terms = GroupTerms::from_slice(path, &list).ok();
    let _ = PairSet::from_slice(path, &pairs).map(|set| set.lint(3, terms.as_ref()));
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = ValenceDataset::from_json(text, path);
        let _ = bible_verses(text);
        let _ = bible_verses(&format!("bible = Bible({text}"));
        for line in text.lines() {
            let _ = Template::parse(line);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        load_all(&bytes);
    }

    #[test]
    fn arbitrary_json(value in json()) {
        load_all(value.to_string().as_bytes());
        load_all(serde_json::to_string_pretty(&value).unwrap().as_bytes());
    }

    #[test]
    fn arbitrary_templates(line in "[a-z \\[\\]:WORDé]{0,24}") {
        if let Ok(template) = Template::parse(&line) {
            let (text, slot) = template.fill("wörd");
            prop_assert_eq!(&text[slot], "wörd");
        }
    }

    #[test]
    fn arbitrary_verse_ranges(
        bounds in prop::collection::vec(0u64..24, 5),
        ids in prop::collection::vec(1001000u64..1001004, 4),
    ) {
        // Ranges anywhere in a text with a three-byte character, even inside it or backwards,
        // for verse ids the tables may not share.
        let source = format!(
            "bible = Bible(V, \"\"\"1. a’b 2. c\"\"\", {{{}: {}, {}: {}}}, \
             {{{}: {}, {}: {}}}, {{Book.GENESIS: {{1: {}}}}}, {{}}, {{}})",
            ids[0], bounds[0], ids[1], bounds[1], ids[2], bounds[2], ids[3], bounds[3], bounds[4]
        );
        if let Ok(verses) = bible_verses(&source) {
            prop_assert!(verses.iter().all(|v| !v.text.is_empty()));
        }
    }

    #[test]
    fn arbitrary_python_tokens(source in "(Bible|\\(|\\)|\\{|\\}|:|,|[0-9]{1,3}|\"\"\"|\"|Book\\.X|False| |\n|#|’)*") {
        let _ = bible_verses(&source);
    }

    #[test]
    fn arbitrary_text_lines(lines in prop::collection::vec("[a-z0-9 .eE+-]{0,24}", 0..8)) {
        load_all(lines.join("\n").as_bytes());
    }
}
