//! `StaticEmbeddings` as an `Embedder`: lookup (as written, then lower-cased), bag-of-words
//! means, pieces, layers, word-in-context vectors and per-text errors.

use lmbias_core::{Embedder, EncoderError, Layer, Pooling, WordInContext};
use lmbias_static::{StaticEmbeddings, UNKNOWN_ID};

/// A tiny cased table: "Apple" and "apple" differ; "u.s." is one entry, as in GloVe.
fn model() -> StaticEmbeddings {
    StaticEmbeddings::from_vectors(
        "toy",
        [
            ("apple", vec![1.0, 0.0, 0.0]),
            ("Apple", vec![0.0, 1.0, 0.0]),
            ("red", vec![0.0, 0.0, 1.0]),
            (".", vec![1.0, 1.0, 1.0]),
            ("is", vec![2.0, 0.0, 0.0]),
            ("u.s.", vec![0.0, 0.0, 5.0]),
            ("'s", vec![0.0, 3.0, 0.0]),
        ],
    )
    .unwrap()
}

fn embed(model: &StaticEmbeddings, texts: &[&str]) -> Vec<Vec<f32>> {
    model.embed(texts, Pooling::Mean, Layer::Last).unwrap()
}

#[test]
fn static_lookup_as_written_then_lowercased() {
    let m = model();
    assert_eq!(m.vector("Apple"), Some(&[0.0f32, 1.0, 0.0][..]));
    assert_eq!(m.vector("apple"), Some(&[1.0f32, 0.0, 0.0][..]));
    // Not in the table as written: its lower-cased form is.
    assert_eq!(m.vector("APPLE"), Some(&[1.0f32, 0.0, 0.0][..]));
    assert_eq!(m.vector("Red"), Some(&[0.0f32, 0.0, 1.0][..]));
    assert_eq!(m.vector("U.S."), Some(&[0.0f32, 0.0, 5.0][..]));
    assert!(m.known("RED") && m.known("Apple") && !m.known("pear") && !m.known(""));
    // `known` is exact: no tokenization.
    assert!(!m.known("red apple"));
}

#[test]
fn static_embed_words_sentences_and_entries() {
    let m = model();
    let v = embed(
        &m,
        &[
            "Apple",
            "APPLE",
            "red apple",
            "Apple is red.",
            " U.S. ",
            "pear red",
        ],
    );
    assert_eq!(v[0], [0.0, 1.0, 0.0]);
    assert_eq!(v[1], [1.0, 0.0, 0.0]);
    // A multi-word example: the mean of its words' vectors.
    assert_eq!(v[2], [0.5, 0.0, 0.5]);
    // NLTK tokens: Apple, is, red, "." (all known): (0+2+0+1, 1+0+0+1, 0+0+1+1) / 4.
    assert_eq!(v[3], [0.75, 0.5, 0.5]);
    // A text that is an entry is that entry, not the mean of "U.S" and ".".
    assert_eq!(v[4], [0.0, 0.0, 5.0]);
    // Unknown words are skipped in the mean.
    assert_eq!(v[5], [0.0, 0.0, 1.0]);
    // Clitics split as in NLTK: "Apple's" is Apple and 's.
    assert_eq!(embed(&m, &["Apple's"])[0], [0.0, 2.0, 0.0]);
}

#[test]
fn static_every_pooling_and_layer_zero_give_the_same_mean() {
    let m = model();
    let texts = ["Apple is red.", "apple"];
    let reference = embed(&m, &texts);
    for pooling in [Pooling::Cls, Pooling::Mean, Pooling::First] {
        for layer in [Layer::Last, Layer::Index(0)] {
            assert_eq!(m.embed(&texts, pooling, layer).unwrap(), reference);
        }
    }
    // Batched and one at a time agree.
    for (text, vector) in texts.iter().zip(&reference) {
        assert_eq!(&embed(&m, &[text])[0], vector);
    }
}

#[test]
fn static_a_text_without_known_words_is_an_error_naming_its_index() {
    let m = model();
    // Words, none with a vector.
    let err = m
        .embed(&["red", "pear plum", "apple"], Pooling::Mean, Layer::Last)
        .unwrap_err();
    assert_eq!(err.index(), Some(1));
    assert!(
        matches!(err, EncoderError::Tokenizer { index: 1, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("toy") && message.contains("\"pear plum\""),
        "{message}"
    );
    // No words at all.
    for empty in ["", "   "] {
        let err = m
            .embed(&["red", "apple", empty], Pooling::Mean, Layer::Last)
            .unwrap_err();
        assert!(
            matches!(err, EncoderError::EmptyText { index: 2 }),
            "{err:?}"
        );
    }
}

#[test]
fn static_layers_other_than_zero_do_not_exist() {
    let m = model();
    assert_eq!((m.hidden_size(), m.num_layers()), (3, 0));
    for result in [
        m.embed(&["red"], Pooling::Mean, Layer::Index(1)).map(drop),
        m.embed_words(
            &[WordInContext {
                text: "red",
                word: 0..3,
            }],
            Layer::Index(2),
        )
        .map(drop),
    ] {
        assert!(
            matches!(result, Err(EncoderError::Layer { available: 0, .. })),
            "{result:?}"
        );
    }
}

#[test]
fn static_tokenize_marks_words_without_vectors() {
    let m = model();
    let pieces = m.tokenize("The apple's red pear.").unwrap();
    let summary: Vec<(&str, bool)> = pieces
        .iter()
        .map(|p| (p.token.as_str(), p.unknown))
        .collect();
    assert_eq!(
        summary,
        [
            ("The", true),
            ("apple", false),
            ("'s", false),
            ("red", false),
            ("pear", true),
            (".", false)
        ]
    );
    assert_eq!(pieces[0].id, UNKNOWN_ID);
    // Ids are the rows of the vectors.
    assert_eq!((pieces[1].id, pieces[3].id), (0, 2));
    // An entry is one piece, found lower-cased.
    let entry = m.tokenize("U.S.").unwrap();
    assert_eq!((entry.len(), entry[0].id, entry[0].unknown), (1, 5, false));
    assert!(m.tokenize("").unwrap().is_empty());
}

#[test]
fn static_embed_words_is_the_words_own_vector() {
    let m = model();
    let items = [
        WordInContext {
            text: "The Apple is red.",
            word: 4..9,
        },
        WordInContext {
            text: "An apple a day keeps the doctor away.",
            word: 3..8,
        },
        WordInContext {
            text: "Apples? No: APPLE.",
            word: 12..17,
        },
    ];
    let v = m.embed_words(&items, Layer::Last).unwrap();
    assert_eq!(
        v,
        [
            vec![0.0, 1.0, 0.0],
            vec![1.0, 0.0, 0.0],
            vec![1.0, 0.0, 0.0]
        ]
    );

    // Ranges that are not a word of the text.
    for (text, word) in [("red", 2..5), ("red", 1..1), ("ære", 0..1), ("a red", 0..2)] {
        let err = m
            .embed_words(
                &[WordInContext {
                    text,
                    word: word.clone(),
                }],
                Layer::Last,
            )
            .unwrap_err();
        if word == (0..2) {
            // "a " is a word without a vector, not a bad range.
            assert!(
                matches!(err, EncoderError::Tokenizer { index: 0, .. }),
                "{err}"
            );
        } else {
            assert!(
                matches!(err, EncoderError::WordRange { index: 0, .. }),
                "{err}"
            );
        }
    }
    // A word without a vector: an error naming the item's index.
    let err = m
        .embed_words(
            &[
                items[0].clone(),
                WordInContext {
                    text: "a pear",
                    word: 2..6,
                },
            ],
            Layer::Last,
        )
        .unwrap_err();
    assert_eq!(err.index(), Some(1), "{err}");
}

#[test]
fn static_model_facts() {
    let m = model();
    assert_eq!(m.model_name(), "toy");
    assert!(!m.lowercases());
    assert_eq!(m.default_pooling(), Pooling::Mean);
    assert_eq!(
        (m.len(), m.dim(), m.duplicates(), m.is_empty()),
        (7, 3, 0, false)
    );
    assert_eq!(m.clone().with_name("other").model_name(), "other");
}

#[test]
fn static_vectors_in_memory_are_checked() {
    type Pairs = Vec<(&'static str, Vec<f32>)>;
    let cases: [(Pairs, &str); 4] = [
        (vec![], "no vectors"),
        // Worded as every format's table (lmbias-data's `WordVectors`) words it.
        (vec![("a", vec![])], "\"a\": no values"),
        (
            vec![("a", vec![1.0]), ("b", vec![1.0, 2.0])],
            "\"b\": 2 values, expected 1",
        ),
        (vec![("a", vec![f32::INFINITY])], "\"a\": value 0 is inf"),
    ];
    for (pairs, expected) in cases {
        let message = StaticEmbeddings::from_vectors("mem", pairs)
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("mem: ") && message.contains(expected),
            "{message}"
        );
    }
}
