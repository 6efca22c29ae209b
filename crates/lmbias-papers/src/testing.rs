//! Made-up results for tests (the `testing` feature): lmbias-papers' own tests and
//! lmbias-report's tables of what the papers say run on the same ones.

use std::collections::BTreeMap;

use lmbias_data::claims::ClaimsFile;
use lmbias_data::valence::Group;
use lmbias_studies::testing::{valence_result, valence_sentence};
use lmbias_studies::valence::ModelResult;

/// The KJV model's name in [`labels`].
pub const KJV: &str = "trained/minilm-kjv";
/// The WEB model's name in [`labels`].
pub const WEB: &str = "trained/minilm-web";

/// The frozen claims file, `datasets/valence/known-answer-v2.json`.
pub fn claims() -> ClaimsFile {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../datasets/valence/known-answer-v2.json"
    ))
    .unwrap();
    ClaimsFile::parse(&text, std::path::Path::new("known-answer-v2.json")).unwrap()
}

/// The claims file's model labels, each with a made-up model name.
pub fn labels() -> BTreeMap<String, String> {
    [
        ("kjv", KJV),
        ("web", WEB),
        ("shakespeare", "trained/minilm-shakespeare"),
        ("kjv25", "trained/k25"),
        ("kjv50", "trained/k50"),
        ("kjv75", "trained/k75"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .collect()
}

/// A model on the three sets: 30 sentences per group; B on EME is `eme` plus a little spread,
/// on ME `me`, neutral 0.
fn model(label: &str, eme: f64, me: f64) -> Vec<ModelResult> {
    ["kjv-web-drawn", "eme-me-60", "plays-wordnet"]
        .into_iter()
        .map(|set| {
            let mut sentences = Vec::new();
            for (group, prefix, b) in [
                (Group::EarlyModern, "eme", eme),
                (Group::Neutral, "neu", 0.0),
                (Group::Modern, "me", me),
            ] {
                for i in 0..30 {
                    let jitter = 0.01 * (i as f64 * 1.3).cos();
                    sentences.push(valence_sentence(
                        &format!("{prefix}-{i:02}"),
                        group,
                        b + jitter,
                    ));
                }
            }
            let mut r = valence_result(label, sentences);
            r.dataset = set.to_owned();
            r
        })
        .collect()
}

/// The KJV model −0.3 on EME, the mixtures in between, WEB +0.1; Shakespeare `shakespeare`
/// (and +0.1 on ME, below WEB's +0.2).
pub fn run(shakespeare: f64) -> Vec<ModelResult> {
    let l = labels();
    [
        model(&l["kjv"], -0.3, -0.1),
        model(&l["web"], 0.1, 0.2),
        model(&l["shakespeare"], shakespeare, 0.1),
        model(&l["kjv25"], 0.0, 0.2),
        model(&l["kjv50"], -0.1, 0.2),
        model(&l["kjv75"], -0.2, 0.1),
    ]
    .concat()
}
