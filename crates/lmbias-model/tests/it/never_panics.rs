//! Every public function and method of lmbias-model that takes text, fed an
//! empty text, a blank one and one longer than the tiny fixtures' 64 positions:
//! each answers with a one-line error or a documented valid answer (finite
//! numbers), never a panic or NaN.

use std::path::PathBuf;

use lmbias_core::{EncoderError, Layer, Pooling, WordInContext};
use lmbias_fetch::hub::{cached_snapshot, is_hub_id};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder, load_masked_lm};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/models")
        .join(name)
}

fn checkpoint(name: &str) -> Checkpoint {
    Checkpoint::from_dir(name, &fixture(name)).unwrap()
}

/// 240 words: past the 64 learned positions of the tiny BERT fixtures.
fn long_text() -> String {
    "thou art ".repeat(120)
}

/// A one-line error, or vectors of finite numbers.
fn sane(what: &str, result: Result<Vec<Vec<f32>>, EncoderError>) -> Result<(), EncoderError> {
    match result {
        Ok(vectors) => {
            assert!(
                vectors.iter().flatten().all(|x| x.is_finite()),
                "{what}: not finite"
            );
            Ok(())
        }
        Err(err) => {
            assert!(!err.to_string().contains('\n'), "{what}: {err}");
            Err(err)
        }
    }
}

#[test]
fn bert_embedder_answers_every_text() {
    let model = load_embedder(&checkpoint("tiny-bert-mlm"), DeviceKind::Cpu).unwrap();
    let long = long_text();
    for pooling in [Pooling::Cls, Pooling::Mean, Pooling::First] {
        for layer in [Layer::Last, Layer::Index(0)] {
            let what = format!("{pooling} {layer}");
            // An empty text is read as [CLS] [SEP], as transformers does; without
            // them (`first`) it has no tokens at all.
            for empty in ["", "   "] {
                match sane(&what, model.embed(&[empty], pooling, layer)) {
                    Ok(()) => assert_ne!(pooling, Pooling::First, "{what}"),
                    Err(err) => {
                        assert_eq!(pooling, Pooling::First, "{what}: {err}");
                        assert!(matches!(err, EncoderError::EmptyText { index: 0 }), "{err}");
                        assert_eq!(err.index(), Some(0));
                    }
                }
            }
            let err = sane(&what, model.embed(&["short", &long], pooling, layer)).unwrap_err();
            assert!(
                matches!(
                    err,
                    EncoderError::TooLong {
                        index: 1,
                        max: 64,
                        ..
                    }
                ),
                "{err}"
            );
            assert_eq!(err.index(), Some(1));
        }
    }
    assert!(matches!(
        sane("layer", model.embed(&["a"], Pooling::Cls, Layer::Index(3))),
        Err(EncoderError::Layer { .. })
    ));
    assert_eq!(
        model.embed(&[], Pooling::Mean, Layer::Last).unwrap().len(),
        0
    );

    let word = |text: &'static str, word| WordInContext { text, word };
    let long_word = WordInContext {
        text: &long,
        word: 0..4,
    };
    let cases: [(&str, Vec<WordInContext<'_>>); 5] = [
        ("empty text", vec![word("", 0..0)]),
        ("blank text", vec![word("a b", 2..3), word("   ", 0..3)]),
        ("range past the end", vec![word("thou art", 5..50)]),
        ("range inside a piece", vec![word("thou art", 1..3)]),
        ("long text", vec![word("thou", 0..4), long_word]),
    ];
    for (what, items) in cases {
        let err = sane(what, model.embed_words(&items, Layer::Last)).unwrap_err();
        assert_eq!(err.index(), Some(items.len() - 1), "{what}: {err}");
    }
    assert!(model.tokenize("").unwrap().is_empty());
    assert!(model.tokenize("   ").unwrap().is_empty());
    assert_eq!(model.tokenize(&long).unwrap().len(), 240);
}

#[test]
fn bert_masked_lm_answers_every_text() {
    let model = load_masked_lm(&checkpoint("tiny-bert-mlm"), DeviceKind::Cpu).unwrap();
    let long_masked = format!("{} [MASK] .", long_text());
    for text in ["", "   "] {
        let err = model.fill_mask(&["thou [MASK] .", text], 3).unwrap_err();
        assert!(
            matches!(
                err,
                EncoderError::MaskCount {
                    index: 1,
                    found: 0,
                    ..
                }
            ),
            "{err}"
        );
        let err = model.token_probs(text, &[5]).unwrap_err();
        assert!(
            matches!(err, EncoderError::MaskCount { index: 0, .. }),
            "{err}"
        );
        assert_eq!(model.piece_id(text), None);
    }
    let err = model.fill_mask(&[&long_masked], 3).unwrap_err();
    assert!(
        matches!(err, EncoderError::TooLong { index: 0, .. }),
        "{err}"
    );
    let err = model.token_probs(&long_masked, &[5]).unwrap_err();
    assert!(
        matches!(err, EncoderError::TooLong { index: 0, .. }),
        "{err}"
    );
    assert_eq!(model.piece_id(&long_text()), None);
    // Ids outside the vocabulary, top-k of 0 or beyond it: errors or plain answers.
    let err = model
        .token_probs("thou [MASK] .", &[5, 1_000_000])
        .unwrap_err();
    assert!(
        matches!(err, EncoderError::UnknownId { id: 1_000_000, .. }),
        "{err}"
    );
    assert!(model.fill_mask(&["thou [MASK] ."], 0).unwrap()[0].is_empty());
    let all = model.fill_mask(&["thou [MASK] ."], usize::MAX).unwrap();
    assert!(all[0].iter().all(|p| p.prob.is_finite()));
    assert!(model.fill_mask(&[], 3).unwrap().is_empty());
}

#[test]
fn t5_embedder_answers_every_text() {
    let model = load_embedder(&checkpoint("tiny-mt5"), DeviceKind::Cpu).unwrap();
    let long = long_text();
    for pooling in [Pooling::Cls, Pooling::Mean, Pooling::First] {
        // `</s>` alone for an empty text (transformers' answer); nothing without it.
        let empty = sane("empty", model.embed(&[""], pooling, Layer::Last));
        assert_eq!(empty.is_err(), pooling == Pooling::First, "{pooling}");
        // Relative positions: T5 reads any length.
        sane("long", model.embed(&[&long], pooling, Layer::Last)).unwrap();
    }
    let err = sane(
        "empty word",
        model.embed_words(
            &[WordInContext {
                text: "",
                word: 0..0,
            }],
            Layer::Last,
        ),
    )
    .unwrap_err();
    assert!(matches!(err, EncoderError::EmptyText { index: 0 }), "{err}");
    assert!(model.tokenize("").unwrap().is_empty());
    assert!(!model.tokenize(&long).unwrap().is_empty());
    // No masked-LM head: refused at load, naming the checkpoint.
    assert!(load_masked_lm(&checkpoint("tiny-mt5"), DeviceKind::Cpu).is_err());
}

#[test]
fn names_and_devices_are_errors_not_panics() {
    let long = "x".repeat(5000);
    for name in ["", "   ", long.as_str(), "a/b/c/d", "../.."] {
        if let Err(err) = Checkpoint::resolve(name) {
            assert!(!err.to_string().contains('\n'), "{err}");
        }
        let _ = is_hub_id(name);
        let _ = cached_snapshot(&lmbias_fetch::hf_cache_dir(), name);
        assert!(name.parse::<DeviceKind>().is_err());
        let err = Checkpoint::from_dir(name, &fixture("no-such-folder")).unwrap_err();
        assert!(!err.to_string().contains('\n'), "{err}");
    }
    // A name is only a label once the folder is known.
    assert_eq!(
        Checkpoint::from_dir("", &fixture("tiny-bert-mlm"))
            .unwrap()
            .name(),
        ""
    );
}

#[test]
fn hidden_states_hook_refuses_bad_ids() {
    let bert = checkpoint("tiny-bert-mlm");
    let hidden = lmbias_model::testing::hidden_states;
    assert!(hidden(&bert, &[], Layer::Last).is_err());
    assert!(hidden(&bert, &[2; 65], Layer::Last).is_err());
    assert!(hidden(&bert, &[2, 1_000_000, 3], Layer::Last).is_err());
    assert!(hidden(&bert, &[2, 3], Layer::Index(9)).is_err());
    let rows = hidden(&bert, &[2; 64], Layer::Last).unwrap();
    assert_eq!(rows.len(), 64);
    assert!(rows.iter().flatten().all(|x| x.is_finite()));
}
