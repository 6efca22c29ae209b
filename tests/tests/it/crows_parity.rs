//! The likelihood measures against transformers (tests/fixtures/generate/crows_reference.py,
//! which follows metric.py, bias-bench's crows.py and Kaneko & Bollegala's evaluate.py) on
//! every tiny masked-LM family, on a 34-pair sample of CrowS-Pairs: the same pieces, every
//! raw score within 1e-4 relative, the same decisions except where a pair's two scores are
//! within 1e-4, and the originals' counts.

use lmbias_data::crows::PairSet;
use lmbias_model::{Checkpoint, DeviceKind, load_masked_lm};
use lmbias_studies::crows::summary::summarize;
use lmbias_studies::crows::{Decision, Measure, Measures, PairScore, decide, score};
use lmbias_testing::{fixtures, model_dir, reference};
use serde_json::Value;

/// Every folder crows_reference.py (and mlm_bias_reference.py) scores.
pub(crate) const FOLDERS: [&str; 11] = [
    "tiny-bert-mlm",
    "tiny-roberta-mlm",
    "tiny-xlmr-mlm",
    "tiny-camembert-mlm",
    "tiny-distilbert-mlm",
    "tiny-electra-generator",
    "tiny-albert-mlm",
    "tiny-albert-groups",
    "tiny-modernbert-mlm",
    "tiny-deberta-v3-mlm",
    "tiny-deberta-v2-conv",
];

/// The tolerance: relative, on each raw score.
const TOLERANCE: f64 = 1e-4;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOLERANCE * a.abs().max(b.abs())
}

pub(crate) fn ids(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

fn pair_of(v: &Value) -> Option<[f64; 2]> {
    v.as_array()
        .map(|a| [a[0].as_f64().unwrap(), a[1].as_f64().unwrap()])
}

/// Checks one folder's scores against its reference; returns how many decisions differed
/// on a near-tie (allowed) so a caller can report them.
fn check(folder: &str, scores: &[PairScore], want: &Value) -> usize {
    let pairs = want["pairs"].as_array().unwrap();
    assert_eq!(scores.len(), pairs.len(), "{folder}: pair count");
    let mut near_ties = 0;
    for (got, want) in scores.iter().zip(pairs) {
        let id = &got.id;
        assert_eq!(id, want["id"].as_str().unwrap(), "{folder}: pair order");
        for measure in Measures::PAPERS.iter() {
            let key = measure.as_str();
            let want_scores = pair_of(&want[key]);
            let got_scores = match (got.more.get(measure), got.less.get(measure)) {
                (Some(a), Some(b)) => Some([a, b]),
                _ => None,
            };
            assert_eq!(
                got_scores.is_some(),
                want_scores.is_some(),
                "{folder} pair {id} {key}: scored or skipped"
            );
            let (Some(g), Some(w)) = (got_scores, want_scores) else {
                assert_eq!(got.decisions.get(measure), Decision::Skipped);
                continue;
            };
            for (side, (a, b)) in ["sent_more", "sent_less"].iter().zip(g.iter().zip(&w)) {
                assert!(
                    close(*a, *b),
                    "{folder} pair {id} {key} {side}: lmbias {a} vs transformers {b}"
                );
            }
            let theirs = decide(measure, Some(w[0]), Some(w[1]));
            let ours = got.decisions.get(measure);
            if ours != theirs {
                assert!(
                    close(w[0], w[1]),
                    "{folder} pair {id} {key}: decided {ours:?}, transformers {theirs:?}"
                );
                near_ties += 1;
            }
        }
    }
    near_ties
}

#[test]
fn every_family_scores_crows_pairs_as_the_originals_do() {
    let pairs = PairSet::read(&fixtures().join("crows").join("short-pairs.csv")).unwrap();
    assert_eq!(pairs.pairs().len(), 34);
    for folder in FOLDERS {
        let want = reference(&format!("crows-{folder}"));
        let checkpoint = Checkpoint::resolve(model_dir(folder).to_str().unwrap()).unwrap();
        let model = load_masked_lm(&checkpoint, DeviceKind::Cpu).unwrap();
        let scores = score(model.as_ref(), pairs.pairs(), Measures::PAPERS, &mut |_| {})
            .unwrap()
            .pairs;
        // The same pieces as transformers' `tokenizer.encode`.
        for (pair, want) in pairs.pairs().iter().zip(want["pairs"].as_array().unwrap()) {
            let encoded = model.encode(&[&pair.more, &pair.less]).unwrap();
            assert_eq!(
                encoded[0].ids,
                ids(&want["ids_more"]),
                "{folder} pair {}",
                pair.id
            );
            assert_eq!(
                encoded[1].ids,
                ids(&want["ids_less"]),
                "{folder} pair {}",
                pair.id
            );
        }
        let near_ties = check(folder, &scores, &want);
        // The originals' counts, where no decision fell on a near-tie.
        if near_ties == 0 {
            let summary = summarize(&scores, Measures::PAPERS);
            let counts = &want["summary"];
            let pll = &summary[0];
            assert_eq!(pll.measure, Measure::Pll);
            assert_eq!(pll.overall.pairs, counts["pll"]["n"].as_u64().unwrap());
            assert_eq!(
                pll.overall.stereotypical,
                counts["pll"]["stereo"].as_u64().unwrap()
                    + counts["pll"]["antistereo"].as_u64().unwrap(),
                "{folder}: metric.py's count"
            );
            assert_eq!(pll.overall.ties, counts["pll"]["neutral"].as_u64().unwrap());
            let bb = &summary[1];
            assert_eq!(
                bb.overall.pairs,
                counts["bias_bench"]["n"].as_u64().unwrap()
            );
            for (s, key) in [(&summary[2], "aul"), (&summary[3], "aula")] {
                assert_eq!(
                    s.overall.stereotypical,
                    counts[key]["stereotypical"].as_u64().unwrap(),
                    "{folder}: {key}'s count"
                );
                assert_eq!(s.overall.pairs, counts[key]["n"].as_u64().unwrap());
            }
        }
        eprintln!("{folder}: {near_ties} decisions on near-ties");
    }
}
