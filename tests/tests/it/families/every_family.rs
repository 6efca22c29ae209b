//! What every family must do alike, on every family's tiny checkpoint: one call over many
//! texts equals one call per text; `--precision bf16` against f32, the same sentence
//! vectors within a stated cosine, the same top fill-mask proposal where f32's is clear.
//! On a CPU without bf16 units bf16 falls back to f32, and then the vectors are f32's
//! exactly. The figures on real models (MiniLM, bert-base's shape) are in
//! docs/benchmarks.md, "bf16".

use lmbias_core::{Layer, Pooling, WordInContext};
use lmbias_model::{Checkpoint, Compute, DeviceKind, Precision, load_embedder, load_masked_lm};
use lmbias_testing::{FAMILY_FIXTURES, max_abs_diff, model_dir, reference};

use super::bert::{cosine, embedder};

/// The smallest cosine allowed between a bf16 and an f32 sentence vector on the tiny
/// checkpoints (their worst, printed with --nocapture, is well above it).
const MIN_COSINE: f64 = 0.999;

/// The fixtures' own sentences (their reference files'), every family.
fn folders() -> impl Iterator<Item = (&'static str, bool)> {
    [
        ("tiny-bert-mlm", true),
        ("tiny-mt5", false),
        ("tiny-t5-relu", false),
    ]
    .into_iter()
    .chain(FAMILY_FIXTURES)
}

#[test]
fn bf16_vectors_are_within_the_stated_cosine_of_f32() {
    let bf16 = Compute::new(DeviceKind::Cpu, Precision::Bf16).unwrap();
    for (folder, _) in folders() {
        let reference = reference(if folder == "tiny-t5-relu" {
            "tiny-mt5"
        } else {
            folder
        });
        let texts: Vec<&str> = reference["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["text"].as_str().unwrap())
            .collect();
        let checkpoint = Checkpoint::resolve(model_dir(folder).to_str().unwrap()).unwrap();
        let f32_model = load_embedder(&checkpoint, DeviceKind::Cpu).unwrap();
        let bf16_model = load_embedder(&checkpoint, bf16).unwrap();
        let want = f32_model.embed(&texts, Pooling::Mean, Layer::Last).unwrap();
        let got = bf16_model
            .embed(&texts, Pooling::Mean, Layer::Last)
            .unwrap();
        let worst = want
            .iter()
            .zip(&got)
            .map(|(w, g)| cosine(w, g))
            .fold(1f64, f64::min);
        eprintln!(
            "{folder}: worst cosine bf16 vs f32 {worst:.6} over {} texts",
            texts.len()
        );
        match bf16.precision() {
            Precision::Bf16 => {
                assert!(
                    worst >= MIN_COSINE,
                    "{folder}: cosine {worst} < {MIN_COSINE}"
                );
                // Not f32 in disguise: the products were rounded.
                assert!(want != got, "{folder}: bf16 gave f32's vectors exactly");
            }
            Precision::F32 => assert_eq!(want, got, "{folder}: the fallback is f32"),
        }
    }
}

/// Where f32's best proposal leads the second by a clear margin, bf16 proposes it too.
#[test]
fn bf16_fill_mask_keeps_clear_first_proposals() {
    let bf16 = Compute::new(DeviceKind::Cpu, Precision::Bf16).unwrap();
    let mut compared = 0;
    for (folder, has_head) in folders().filter(|(_, head)| *head) {
        assert!(has_head);
        let checkpoint = Checkpoint::resolve(model_dir(folder).to_str().unwrap()).unwrap();
        let f32_lm = load_masked_lm(&checkpoint, DeviceKind::Cpu).unwrap();
        let bf16_lm = load_masked_lm(&checkpoint, bf16).unwrap();
        let mask = f32_lm.mask_token().to_owned();
        let texts: Vec<String> = ["the {} is here", "a {} and a dog", "{} said that"]
            .iter()
            .map(|t| t.replace("{}", &mask))
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let want = f32_lm.fill_mask(&texts, 2).unwrap();
        let got = bf16_lm.fill_mask(&texts, 1).unwrap();
        for ((w, g), text) in want.iter().zip(&got).zip(&texts) {
            let (first, second) = (&w[0], &w[1]);
            if first.prob - second.prob > 0.01 {
                assert_eq!(g[0].id, first.id, "{folder}: {text:?}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 5, "only {compared} clear proposals to compare");
}

/// One call over many texts equals one call per text: texts of every length,
/// repeated and interleaved so that the length-sorted batches (at most 32 texts,
/// run in parallel) mix texts from all over the input, and each result must come
/// back to its own place; sentence vectors and word vectors alike.
#[test]
fn batched_equals_one_at_a_time() {
    for folder in ["tiny-bert-mlm"]
        .into_iter()
        .chain(FAMILY_FIXTURES.iter().map(|(f, _)| *f))
    {
        check_batched_equals_one_at_a_time(folder);
    }
}

fn check_batched_equals_one_at_a_time(folder: &str) {
    let reference = reference(folder);
    let model = embedder(&model_dir(folder));
    let distinct: Vec<&str> = reference["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    // 9 rounds, each in a different rotation: well over two batches of 32.
    let texts: Vec<&str> = (0..9)
        .flat_map(|r| distinct.iter().cycle().skip(r * 5).take(distinct.len()))
        .copied()
        .collect();
    assert!(
        texts.len() > 64,
        "{} texts: too few to fill three batches",
        texts.len()
    );
    for pooling in [Pooling::Cls, Pooling::Mean, Pooling::First] {
        let batched = model.embed(&texts, pooling, Layer::Last).unwrap();
        assert_eq!(batched.len(), texts.len());
        for (text, got) in texts.iter().zip(&batched) {
            let single = model
                .embed(&[text], pooling, Layer::Last)
                .unwrap()
                .remove(0);
            let diff = max_abs_diff(got, &single);
            assert!(
                diff <= 1e-5,
                "{folder} {pooling} {text:?}: batched differs by {diff}"
            );
        }
    }
    // The first word of each text, in context: spans must follow their texts too.
    let words: Vec<WordInContext<'_>> = texts
        .iter()
        .map(|&text| {
            let end = text.find(' ').unwrap_or(text.len());
            WordInContext { text, word: 0..end }
        })
        .collect();
    let batched = model.embed_words(&words, Layer::Last).unwrap();
    for (word, got) in words.iter().zip(&batched) {
        let single = model
            .embed_words(std::slice::from_ref(word), Layer::Last)
            .unwrap()
            .remove(0);
        let diff = max_abs_diff(got, &single);
        assert!(
            diff <= 1e-5,
            "{folder} {:?}: batched word differs by {diff}",
            word.text
        );
    }
}
