//! The valence study through the real Burn model on the tiny BERT fixture,
//! against B and A computed by hand from transformers' fill-mask probabilities
//! (tests/fixtures/reference/tiny-bert-mlm.json, top 10 per sentence).
//! Dataset: tests/fixtures/valence/tiny-bert-mlm.json.

use std::num::NonZeroUsize;

use lmbias_data::valence::{Group, ValenceDataset};
use lmbias_model::{Checkpoint, DeviceKind, load_masked_lm};
use lmbias_studies::valence::{self, ModelResult, Scoring};
use serde_json::Value;

/// transformers' top-10 tokens and probabilities per sentence id.
fn reference() -> Vec<(String, Vec<String>, Vec<f64>)> {
    let path = lmbias_testing::fixtures().join("reference/tiny-bert-mlm.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["fill_mask"].is_object())
        .map(|s| {
            let fm = &s["fill_mask"];
            let tokens = fm["top10_tokens"].as_array().unwrap();
            let probs = fm["top10_probs"].as_array().unwrap();
            (
                s["id"].as_str().unwrap().to_owned(),
                tokens
                    .iter()
                    .map(|t| t.as_str().unwrap().to_owned())
                    .collect(),
                probs.iter().map(|p| p.as_f64().unwrap()).collect(),
            )
        })
        .collect()
}

/// The study at `k` proposals; `guarded`: at the default guard, else every sentence scored.
fn run(k: usize, guarded: bool) -> ModelResult {
    let dir = lmbias_testing::fixtures().join("models/tiny-bert-mlm");
    let checkpoint = Checkpoint::resolve(dir.to_str().unwrap()).unwrap();
    let lm = load_masked_lm(&checkpoint, DeviceKind::Cpu).unwrap();
    let dataset =
        ValenceDataset::load(&lmbias_testing::fixtures().join("valence/tiny-bert-mlm.json"))
            .unwrap();
    let k = NonZeroUsize::new(k).unwrap();
    let scoring = if guarded {
        Scoring::new(k)
    } else {
        Scoring::unguarded(k)
    };
    valence::run(lm.as_ref(), &dataset, &scoring).unwrap()
}

/// lmbias-model matches transformers' probabilities within 1e-5 each; B and A
/// sum at most ten of them with weights of at most 1.
const TOL: f64 = 2e-5;

/// (id, v, B at k = 5, unannotated mass at k = 5, B at k = 10) from the
/// reference probabilities p[rank], token by token:
fn by_hand(p: &dyn Fn(&str, usize) -> f64) -> Vec<(&'static str, f64, f64, f64, f64)> {
    vec![
        // through −0.5 | he 0 | okuyor +1 (lexicon) | ce ? | ##ard ? ‖ great +0.5 | ever −1 (sentence
        // beats lexicon) | ##ht ? | ya 0 (lexicon) | ##eyi ?
        {
            let b5 = -0.5 * p("eme-2", 0) + p("eme-2", 2);
            let u5 = p("eme-2", 3) + p("eme-2", 4);
            (
                "eme-2",
                -1.0,
                b5,
                u5,
                b5 + 0.5 * p("eme-2", 5) - p("eme-2", 6),
            )
        },
        // in 0 | guze ? | ##e ? | ##ht ? | cay −0.5 ‖ bright −1 | ##eyi ? | ##meyi ? | ##ldı ? | ##ne ?
        {
            let b5 = -0.5 * p("eme-3", 4);
            let u5 = p("eme-3", 1) + p("eme-3", 2) + p("eme-3", 3);
            ("eme-3", -0.5, b5, u5, b5 - p("eme-3", 5))
        },
        // ##ls ? | ##meyi ? | okuyor +1 (lexicon) | ##oor ? | han −1 ‖ ##hile ? | nur ? | good +0.5 | ##ne ? | ever −0.5 (lexicon)
        {
            let b5 = p("eme-5", 2) - p("eme-5", 4);
            let u5 = p("eme-5", 0) + p("eme-5", 1) + p("eme-5", 3);
            (
                "eme-5",
                -1.0,
                b5,
                u5,
                b5 + 0.5 * p("eme-5", 7) - 0.5 * p("eme-5", 9),
            )
        },
        // ##ht ? | ever −0.5 (lexicon) | ##ne ? | han 0 | ##meyi ? ‖ ##eyi ? | ##oor ? | you +1 | okuyor +1 (lexicon) | ya 0
        {
            let b5 = -0.5 * p("me-1", 1);
            let u5 = p("me-1", 0) + p("me-1", 2) + p("me-1", 4);
            ("me-1", 1.0, b5, u5, b5 + p("me-1", 7) + p("me-1", 8))
        },
        // han +1 | ##ht ? | ##pi ? | ##ne ? | engin ? ‖ ##oor ? | through −1 | ##ls ? | okuyor +1 (lexicon) | what +0.5
        {
            let b5 = p("me-4", 0);
            let u5 = p("me-4", 1) + p("me-4", 2) + p("me-4", 3) + p("me-4", 4);
            (
                "me-4",
                0.5,
                b5,
                u5,
                b5 - p("me-4", 6) + p("me-4", 8) + 0.5 * p("me-4", 9),
            )
        },
    ]
}

#[test]
fn bias_and_adequacy_through_the_model_match_the_hand_computation() {
    let reference = reference();
    let p = |id: &str, rank: usize| {
        let (_, _, probs) = reference.iter().find(|(i, _, _)| i == id).unwrap();
        probs[rank]
    };
    let r5 = run(5, false);
    let r10 = run(10, false);
    let guarded = run(5, true);
    assert_eq!(
        r5.model,
        lmbias_testing::fixtures()
            .join("models/tiny-bert-mlm")
            .to_str()
            .unwrap()
    );
    let mut worst: f64 = 0.0;
    let (mut unannotated, mut mass) = (0.0, 0.0);
    let mut left_out = 0;
    for (id, v, b5, u5, b10) in by_hand(&p) {
        unannotated += u5;
        let mass5 = (0..5).map(|rank| p(id, rank)).sum::<f64>();
        mass += mass5;
        // The guard (issue #49, item 3): a sentence more than half of whose top-5 mass is
        // unrated has no B and no A; the others keep theirs.
        let g = guarded.sentences.iter().find(|s| s.id == id).unwrap();
        assert!((g.unannotated_share - u5 / mass5).abs() < TOL, "{id}");
        if u5 / mass5 > 0.5 {
            assert_eq!((g.bias, g.adequacy), (None, None), "{id}");
            left_out += 1;
        } else {
            assert_eq!(
                g.bias,
                r5.sentences.iter().find(|s| s.id == id).unwrap().bias
            );
        }
        let s5 = r5.sentences.iter().find(|s| s.id == id).unwrap();
        let s10 = r10.sentences.iter().find(|s| s.id == id).unwrap();
        // The model proposes what transformers proposes, in the same order.
        let (_, ref_tokens, _) = reference.iter().find(|(i, _, _)| i == id).unwrap();
        let tokens: Vec<&str> = s10.tokens.iter().map(|t| t.token.as_str()).collect();
        assert_eq!(tokens, ref_tokens[..10], "{id}");
        assert_eq!(s5.valence, v, "{id}");
        let [b, a, b10_got, a10] =
            [s5.bias, s5.adequacy, s10.bias, s10.adequacy].map(Option::unwrap);
        for (got, want, what) in [
            (b, b5, "B@5"),
            (a, 1.0 - (v - b5).abs() / 2.0, "A@5"),
            (s5.unannotated_mass, u5, "unannotated@5"),
            (b10_got, b10, "B@10"),
            (a10, 1.0 - (v - b10).abs() / 2.0, "A@10"),
        ] {
            assert!((got - want).abs() < TOL, "{id} {what}: {got} vs {want}");
            worst = worst.max((got - want).abs());
        }
    }
    assert_eq!(guarded.excluded().count(), left_out);
    let in_groups: usize = guarded.groups.iter().map(|g| g.bias.n).sum();
    assert_eq!(in_groups, 5 - left_out);
    eprintln!("the guard left out {left_out} of 5 sentences");
    // The report's unannotated share of top-k mass, over all five sentences.
    let share = r5.unannotated_share().unwrap();
    assert!((share - unannotated / mass).abs() < TOL, "{share}");
    eprintln!("worst |lmbias − hand| over B, A, unannotated mass: {worst:e}");
}

#[test]
fn group_summary_and_sweep_are_pinned() {
    let mut r = run(5, true);
    // The model is named by its path; the snapshot must not depend on the checkout's location.
    r.model = "tiny-bert-mlm".into();
    let groups: Vec<Group> = r.groups.iter().map(|g| g.group).collect();
    assert_eq!(groups, [Group::EarlyModern, Group::Modern]);
    let all: Vec<usize> = r.groups.iter().map(|g| g.bias.n + g.excluded).collect();
    assert_eq!(all, [3, 2]);
    // Three decimals: far above the 1e-5 model-vs-transformers noise.
    insta::assert_snapshot!(
        "tiny_bert_markdown",
        lmbias_report::valence::markdown(std::slice::from_ref(&r), 3)
    );
    insta::assert_snapshot!(
        "tiny_bert_unannotated",
        lmbias_report::valence::unannotated_table(std::slice::from_ref(&r), 3).to_markdown()
    );
}
