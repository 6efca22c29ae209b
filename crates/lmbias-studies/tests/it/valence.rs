//! The valence study against a fake masked LM whose proposals are fixed, so
//! every B and A below can be computed by hand.

use std::num::NonZeroUsize;
use std::path::Path;

use lmbias_core::testing::FakeMaskedLm;
use lmbias_data::valence::{AnnotationSource, Group, ValenceDataset};
use lmbias_studies::valence::{self, DEFAULT_TOP_K, ModelResult, Scoring, ValenceStudyError};

/// The fake's vocabulary (ids: positions once sorted).
const VOCAB: [&str; 21] = [
    "thou", "not", "you", "he", "Thou", "she", "ye", "night", "morning", "wind", "eve", "weather",
    "we", "they", "u", "did", "love", "get", "hate", "saw", "the",
];

const DATASET: &str = r#"{
  "name": "hand", "description": "four sentences scored by hand",
  "lexicon": { "you": 1, "thou": -1, "ye": -1, "the": 0 },
  "sentences": [
    { "id": "eme-01", "group": "EME", "valence": -1, "source": "Shakespeare (paper's example)",
      "text": "Why wilt [MASK] be offended by that?",
      "annotations": { "thou": -1, "not": 0, "you": 1, "he": 0 } },
    { "id": "neu-01", "group": "neutral", "valence": 0, "source": "constructed",
      "text": "The [MASK] was cold.",
      "annotations": { "night": 0, "morning": 0, "eve": -0.5, "weather": 0 } },
    { "id": "me-01", "group": "ME", "valence": 1, "source": "constructed",
      "text": "Are [MASK] coming tonight?" },
    { "id": "me-02", "group": "ME", "valence": 0.5, "source": "constructed",
      "text": "I [MASK] it.",
      "annotations": { "love": 0.5, "did": 0.5, "hate": 0.5, "get": 1 } }
  ] }"#;

/// Fixed proposals for each text of [`DATASET`].
const ANSWERS: &[(&str, &[(&str, f32)])] = &[
    (
        "Why wilt [MASK] be offended by that?",
        &[
            ("thou", 0.40),
            ("not", 0.20),
            ("you", 0.15),
            ("he", 0.10),
            ("Thou", 0.05),
            ("she", 0.03),
            ("ye", 0.02),
        ],
    ),
    (
        "The [MASK] was cold.",
        &[
            ("night", 0.5),
            ("morning", 0.2),
            ("wind", 0.1),
            ("eve", 0.05),
            ("weather", 0.04),
        ],
    ),
    (
        "Are [MASK] coming tonight?",
        &[
            ("you", 0.7),
            ("we", 0.1),
            ("they", 0.05),
            ("ye", 0.03),
            ("u", 0.02),
        ],
    ),
    (
        "I [MASK] it.",
        &[
            ("did", 0.3),
            ("love", 0.2),
            ("get", 0.1),
            ("hate", 0.05),
            ("saw", 0.05),
        ],
    ),
];

/// `text` with the fake's mask token in place of the dataset's.
fn masked(text: &str) -> String {
    text.replace("[MASK]", "<mask>")
}

/// A masked LM proposing [`ANSWERS`] from `vocab`. Its mask token differs from the
/// dataset's, as RoBERTa's `<mask>` would.
fn fake_with(vocab: &[&str]) -> FakeMaskedLm {
    let mut vocab = vocab.to_vec();
    vocab.sort_unstable();
    ANSWERS.iter().fold(
        FakeMaskedLm::new("fake-lm", "<mask>", &vocab),
        |lm, (text, proposals)| lm.with_answer(&masked(text), proposals),
    )
}

fn fake() -> FakeMaskedLm {
    fake_with(&VOCAB)
}

fn dataset(text: &str) -> ValenceDataset {
    ValenceDataset::from_json(text, Path::new("hand.json")).unwrap()
}

fn run(k: usize) -> ModelResult {
    valence::run(
        &fake(),
        &dataset(DATASET),
        &Scoring::new(NonZeroUsize::new(k).unwrap()),
    )
    .unwrap()
}

/// The fake's probabilities are f32; the study sums them in f64.
fn p(x: f32) -> f64 {
    f64::from(x)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn bias_and_adequacy_by_hand_at_the_default_k() {
    assert_eq!(DEFAULT_TOP_K.get(), 5);
    let r = run(5);
    let by_id = |id: &str| r.sentences.iter().find(|s| s.id == id).unwrap();

    // eme-01: thou −1·.40, not 0, you +1·.15, he 0, "Thou" −1·.05 (matched case-insensitively).
    let s = by_id("eme-01");
    let b = -p(0.40) + p(0.15) - p(0.05);
    assert!(close(s.bias.unwrap(), b), "{:?}", s.bias);
    assert!(close(s.adequacy.unwrap(), 1.0 - (-1.0 - b).abs() / 2.0));
    assert!((s.bias.unwrap() - -0.30).abs() < 1e-7 && (s.adequacy.unwrap() - 0.65).abs() < 1e-7);
    assert_eq!(s.unannotated_mass, 0.0);
    assert_eq!(s.tokens.len(), 5);
    assert_eq!(s.tokens[4].token, "Thou");
    assert_eq!(s.tokens[4].valence, -1.0);
    assert_eq!(s.tokens[4].annotation, AnnotationSource::Sentence);

    // neu-01: eve −0.5·.05; "wind" unannotated (0, mass .1).
    let s = by_id("neu-01");
    assert!(close(s.bias.unwrap(), -0.5 * p(0.05)));
    assert!(close(s.adequacy.unwrap(), 1.0 - 0.5 * p(0.05) / 2.0));
    assert!(close(s.unannotated_mass, p(0.1)));

    // me-01: only the lexicon applies: you +.7, ye −.03; we, they, u unannotated.
    let s = by_id("me-01");
    let b = p(0.7) - p(0.03);
    assert!(close(s.bias.unwrap(), b));
    assert!(close(s.adequacy.unwrap(), 1.0 - (1.0 - b) / 2.0));
    assert!((s.adequacy.unwrap() - 0.835).abs() < 1e-7);
    assert!(close(s.unannotated_mass, p(0.1) + p(0.05) + p(0.02)));
    let sources: Vec<AnnotationSource> = s.tokens.iter().map(|t| t.annotation).collect();
    use AnnotationSource::{Lexicon, None};
    assert_eq!(sources, [Lexicon, None, None, Lexicon, None]);

    // me-02: did, love, hate +0.5; get +1; saw unannotated.
    let s = by_id("me-02");
    let b = 0.5 * (p(0.3) + p(0.2) + p(0.05)) + p(0.1);
    assert!(close(s.bias.unwrap(), b));
    assert!(close(s.adequacy.unwrap(), 1.0 - (0.5 - b).abs() / 2.0));
}

#[test]
fn group_summaries_follow_the_sentences() {
    let r = run(5);
    let groups: Vec<Group> = r.groups.iter().map(|g| g.group).collect();
    assert_eq!(groups, [Group::EarlyModern, Group::Neutral, Group::Modern]);
    let me = &r.groups[2];
    let (b1, b2) = (p(0.7) - p(0.03), 0.5 * (p(0.3) + p(0.2) + p(0.05)) + p(0.1));
    assert_eq!(me.bias.n, 2);
    assert!(close(me.bias.mean, (b1 + b2) / 2.0));
    assert!(close(me.bias.median, (b1 + b2) / 2.0));
    // numpy linear quantiles of two values: q1 at a quarter of the way, q3 at three quarters.
    let (lo, hi) = (b1.min(b2), b1.max(b2));
    assert!(close(me.bias.q1, lo + 0.25 * (hi - lo)));
    assert!(close(me.bias.q3, lo + 0.75 * (hi - lo)));
    assert!(close(me.bias.iqr, 0.5 * (hi - lo)));
    insta::assert_json_snapshot!("hand_groups_k5", r.groups);
}

#[test]
fn sweep_over_k_takes_more_proposals() {
    let r = run(5);
    let eme: Vec<(usize, f64, f64)> = r
        .k_sweep
        .iter()
        .filter(|s| s.group == Group::EarlyModern)
        .map(|s| {
            let mean = |v: Option<f64>| v.unwrap();
            (s.k, mean(s.mean_bias), mean(s.mean_unannotated_share))
        })
        .collect();
    assert_eq!(eme.len(), 3);
    assert_eq!((eme[0].0, eme[1].0, eme[2].0), (5, 10, 20));
    assert!(close(eme[0].1, -p(0.40) + p(0.15) - p(0.05)));
    // The fake proposes only 7 tokens: k = 10 and 20 add "she" (unannotated) and "ye" (lexicon −1).
    let b7 = -p(0.40) + p(0.15) - p(0.05) - p(0.02);
    assert!(close(eme[1].1, b7) && close(eme[2].1, b7));
    // "she" is unrated: .03 of the seven proposals' .95.
    let seven = p(0.40) + p(0.20) + p(0.15) + p(0.10) + p(0.05) + p(0.03) + p(0.02);
    assert!(close(eme[1].2, p(0.03) / seven));
    insta::assert_json_snapshot!("hand_k_sweep", r.k_sweep);
}

/// Unannotated mass over all top-5 proposals: wind .1 (neu-01); we .1, they .05, u .02
/// (me-01); saw .05 (me-02), out of the four sentences' summed top-5 probabilities.
#[test]
fn the_unannotated_share_of_top_k_mass_is_summed_over_sentences() {
    let r = run(5);
    let unannotated = p(0.1) + p(0.1) + p(0.05) + p(0.02) + p(0.05);
    let mass = [0.40, 0.20, 0.15, 0.10, 0.05]
        .into_iter()
        .chain([0.5, 0.2, 0.1, 0.05, 0.04])
        .chain([0.7, 0.1, 0.05, 0.03, 0.02])
        .chain([0.3, 0.2, 0.1, 0.05, 0.05])
        .map(p)
        .sum::<f64>();
    let share = r.unannotated_share().unwrap();
    assert!(close(share, unannotated / mass), "{share}");
    assert!((share - 0.32 / 3.39).abs() < 1e-7, "{share}");
}

#[test]
fn a_larger_k_than_the_sweep_is_honoured() {
    let r = run(7);
    assert_eq!(r.top_k, 7);
    assert_eq!(r.sentences[0].tokens.len(), 7);
}

#[test]
fn unannotated_tokens_are_listed_by_probability() {
    let r = run(5);
    let listed: Vec<(&str, usize, f64, Vec<&str>)> = r
        .unannotated
        .iter()
        .map(|u| {
            let ids = u.sentences.iter().map(String::as_str).collect();
            (u.token.as_str(), u.count, u.total_prob, ids)
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("we", 1, p(0.1), vec!["me-01"]),
            ("wind", 1, p(0.1), vec!["neu-01"]),
            ("saw", 1, p(0.05), vec!["me-02"]),
            ("they", 1, p(0.05), vec!["me-01"]),
            ("u", 1, p(0.02), vec!["me-01"]),
        ]
    );
}

/// Keys the model cannot propose are skipped and counted, not fatal: B and A
/// are those of the complete dataset, since such a token is never proposed.
#[test]
fn annotations_the_model_cannot_propose_are_skipped_and_counted() {
    let complete = valence::run(&fake(), &dataset(DATASET), &Scoring::new(DEFAULT_TOP_K)).unwrap();
    assert!(complete.coverage.is_complete());
    assert_eq!(
        (
            complete.coverage.lexicon_keys,
            complete.coverage.lexicon_usable
        ),
        (4, 4)
    );
    assert_eq!(
        (
            complete.coverage.annotation_keys,
            complete.coverage.annotation_usable
        ),
        (12, 12)
    );

    let text = DATASET
        .replace(r#""he": 0 }"#, r#""he": 0, "hither": -1 }"#)
        .replace(r#""the": 0 }"#, r#""the": 0, "doth": -1, "email": 1 }"#)
        .replace(r#""get": 1 }"#, r#""get": 1, "email": 1 }"#);
    let partial = valence::run(&fake(), &dataset(&text), &Scoring::new(DEFAULT_TOP_K)).unwrap();
    let c = &partial.coverage;
    assert_eq!((c.lexicon_keys, c.lexicon_usable), (6, 4));
    assert_eq!((c.annotation_keys, c.annotation_usable), (14, 12));
    assert_eq!(c.unusable, ["doth", "email", "hither"]);
    assert_eq!(partial.sentences, complete.sentences);
    assert_eq!(partial.groups, complete.groups);
}

#[test]
fn a_capitalised_vocabulary_entry_satisfies_a_lowercase_annotation() {
    // Without "thou" the capitalised "Thou" still lets the model propose the
    // annotated token; without both, the key is counted as one it cannot propose
    // (once in the lexicon, once in eme-01's annotations).
    let without = |gone: &[&str]| {
        let vocab: Vec<&str> = VOCAB.into_iter().filter(|t| !gone.contains(t)).collect();
        fake_with(&vocab)
    };
    let c = valence::coverage(&without(&["thou"]), &dataset(DATASET));
    assert!(c.is_complete(), "{c:?}");
    let c = valence::coverage(&without(&["thou", "Thou"]), &dataset(DATASET));
    assert_eq!(c.unusable, ["thou"]);
    assert_eq!((c.lexicon_keys, c.lexicon_usable), (4, 3));
    assert_eq!((c.annotation_keys, c.annotation_usable), (12, 11));
}

#[test]
fn a_text_the_model_sees_two_masks_in_names_the_sentence() {
    // The dataset counts only its own "[MASK]"; the model's "<mask>" written
    // literally in a text is a second mask for the model.
    let text = DATASET.replace("I [MASK] it.", "I [MASK] it <mask>.");
    let err = valence::run(&fake(), &dataset(&text), &Scoring::new(DEFAULT_TOP_K)).unwrap_err();
    assert!(matches!(err, ValenceStudyError::Sentence { .. }), "{err}");
    // As anyhow's `{:#}` prints it: the sentence, then the encoder's reason, once.
    let cause = std::error::Error::source(&err).unwrap();
    assert_eq!(
        format!("{err}: {cause}"),
        "fake-lm: sentence me-02: text 3 must contain exactly one <mask>, found 2: \"I <mask> it <mask>.\""
    );
}

#[test]
fn a_nan_probability_names_the_model_and_sentence() {
    // A model whose third proposal for me-01 has a NaN probability: B and A would be NaN.
    let text = "Are [MASK] coming tonight?";
    let (_, proposals) = ANSWERS.iter().find(|(t, _)| *t == text).unwrap();
    let mut proposals = proposals.to_vec();
    proposals[2].1 = f32::NAN;
    let lm = fake().with_answer(&masked(text), &proposals);
    let err = valence::run(&lm, &dataset(DATASET), &Scoring::new(DEFAULT_TOP_K)).unwrap_err();
    assert!(matches!(err, ValenceStudyError::Sentence { .. }), "{err}");
    let cause = std::error::Error::source(&err).unwrap();
    assert_eq!(
        format!("{err}: {cause}"),
        "fake-lm: sentence me-01: text 2: the model's output value 2 is NaN, not a finite number"
    );
}

/// With two period corpora, every proposal no annotation covers is rated from them in its
/// sentence (#34): no unannotated mass is left, annotations still take precedence, and B moves
/// by exactly the corpora's ratings times the probabilities. In these corpora "wind" is only
/// Modern, "she" only Early Modern, and "we", "they", "u", "saw" are even.
#[test]
fn corpora_rate_every_proposal_the_annotations_leave() {
    use lmbias_metrics::log_odds::Thresholds;
    use lmbias_studies::corpus_valence::CorpusValence;
    let lines = |line: &str, n: usize| vec![line.to_owned(); n];
    let even = "we they u saw the";
    let eme = [lines("she came to the house", 40), lines(even, 20)].concat();
    let me = [lines("the wind blew", 40), lines(even, 20)].concat();
    let corpora = CorpusValence::new(&eme, &me, 100.0, Thresholds::default(), 5, 0.0).unwrap();
    let k = NonZeroUsize::new(7).unwrap();
    let plain = valence::run(&fake(), &dataset(DATASET), &Scoring::new(k)).unwrap();
    let rated =
        valence::run_with_corpora(&fake(), &dataset(DATASET), &Scoring::new(k), Some(&corpora))
            .unwrap();
    assert_eq!(rated.unannotated_share(), Some(0.0));
    assert!(rated.unannotated.is_empty());
    let expected_shift = |id: &str| match id {
        "eme-01" => -p(0.03), // "she", 6th
        "neu-01" => p(0.1),   // "wind"
        _ => 0.0,             // "we", "they", "u", "saw": 0
    };
    for (before, after) in plain.sentences.iter().zip(&rated.sentences) {
        assert!(
            close(
                after.bias.unwrap(),
                before.bias.unwrap() + expected_shift(&before.id)
            ),
            "{}",
            before.id
        );
        assert_eq!(after.unannotated_mass, 0.0);
        for (b, a) in before.tokens.iter().zip(&after.tokens) {
            match b.annotation {
                AnnotationSource::None => assert_eq!(a.annotation, AnnotationSource::Corpus),
                kept => assert_eq!((a.annotation, a.valence), (kept, b.valence)),
            }
        }
    }
}

/// Issue #49, item 3: a sentence whose unannotated share exceeds the guard has no B and no A
/// and is left out of its group's summary, counted there; one at the guard exactly is kept.
/// Shares at k = 5: eme-01 0; neu-01 .1/.89; me-01 (we, they, u) .17/.9; me-02 (saw) .05/.7.
#[test]
fn the_guard_leaves_out_sentences_mostly_unrated() {
    let share_me01 = (p(0.1) + p(0.05) + p(0.02)) / (p(0.7) + p(0.1) + p(0.05) + p(0.03) + p(0.02));
    let at = |guard: f64| {
        valence::run(
            &fake(),
            &dataset(DATASET),
            &Scoring {
                top_k: DEFAULT_TOP_K,
                max_unannotated_share: guard,
            },
        )
        .unwrap()
    };
    let r = at(0.15);
    let me01 = r.sentences.iter().find(|s| s.id == "me-01").unwrap();
    assert!(
        close(me01.unannotated_share, share_me01),
        "{}",
        me01.unannotated_share
    );
    assert_eq!((me01.bias, me01.adequacy), (None, None));
    let left_out: Vec<&str> = r.excluded().map(|s| s.id.as_str()).collect();
    assert_eq!(left_out, ["me-01"]);
    let me = r.groups.iter().find(|g| g.group == Group::Modern).unwrap();
    let b2 = 0.5 * (p(0.3) + p(0.2) + p(0.05)) + p(0.1);
    assert_eq!((me.bias.n, me.excluded), (1, 1));
    assert!(close(me.bias.mean, b2));
    assert!(close(
        me.mean_unannotated_share,
        p(0.05) / (p(0.3) + p(0.2) + p(0.1) + p(0.05) + p(0.05))
    ));
    let sweep5 = r
        .k_sweep
        .iter()
        .find(|s| s.k == 5 && s.group == Group::Modern)
        .unwrap();
    assert_eq!((sweep5.n, sweep5.excluded), (1, 1));
    // At the guard exactly, the sentence is scored; the default keeps every sentence here.
    let exact = at(share_me01);
    assert_eq!(exact.excluded().count(), 0);
    assert_eq!(run(5).excluded().count(), 0);
    // Every sentence out of a group: the group has no summary.
    let none = at(0.0);
    let groups: Vec<Group> = none.groups.iter().map(|g| g.group).collect();
    assert_eq!(groups, [Group::EarlyModern]);
    for bad in [-0.1, 1.5, f64::NAN] {
        let err = valence::run(
            &fake(),
            &dataset(DATASET),
            &Scoring {
                top_k: DEFAULT_TOP_K,
                max_unannotated_share: bad,
            },
        )
        .unwrap_err();
        assert!(matches!(err, ValenceStudyError::Guard(_)), "{err}");
    }
}
