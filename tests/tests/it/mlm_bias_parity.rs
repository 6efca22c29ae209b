//! mlm-bias's measures (`lmbias crows --measures all`) against mlm-bias 0.1.7 itself, run with
//! each tiny masked-LM folder's real weights on the 34-pair CrowS-Pairs sample
//! (tests/fixtures/generate/mlm_bias_reference.py): the same stripped sentences, every
//! sentence's CRR, CRRA, ΔP, ΔPA, SSS, AUL and AULA within 1e-5 relative, the same decisions
//! except on a near-tie, and mlm-bias's percentages.
//!
//! A rank orders logits, and two logits within float32 noise of each other can be ordered
//! differently by torch and by Burn: every piece's rank must equal mlm-bias's except where the
//! reference marks the piece fragile (another id's logit within 1e-4); a sentence whose CRR or
//! CRRA is then off must equal mlm-bias's when recomputed with mlm-bias's ranks.

use lmbias_core::{HiddenPiece, MaskedLm};
use lmbias_data::crows::PairSet;
use lmbias_model::{Checkpoint, DeviceKind, load_masked_lm};
use lmbias_studies::crows::mlm_bias::stripped;
use lmbias_studies::crows::summary::summarize;
use lmbias_studies::crows::{Measure, Measures, decide, score};
use lmbias_testing::{fixtures, model_dir, reference};

use crate::crows_parity::{FOLDERS, ids};
use serde_json::Value;

/// The tolerance, relative.
const TOLERANCE: f64 = 1e-5;

/// Our measures and mlm-bias's names for them.
const NAMES: [(Measure, &str); 7] = [
    (Measure::Crr, "crr"),
    (Measure::Crra, "crra"),
    (Measure::Dp, "dp"),
    (Measure::Dpa, "dpa"),
    (Measure::SssMlmBias, "sss"),
    (Measure::Aul, "aul"),
    (Measure::Aula, "aula"),
];

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOLERANCE * a.abs().max(b.abs())
}

/// One sentence's rank checks: every piece's rank as mlm-bias's except the fragile ones, and
/// its CRR and CRRA (sentence means) recomputed from mlm-bias's ranks with our w.
struct Ranked {
    crr: f64,
    crra: f64,
    differs: usize,
}

fn ranked(model: &dyn MaskedLm, text: &str, theirs: &Value, fragile: &Value, what: &str) -> Ranked {
    let e = &model.encode(&[&stripped(text)]).unwrap()[0];
    let items: Vec<HiddenPiece<'_>> = (0..e.ids.len())
        .filter(|&p| !e.special[p])
        .map(|position| HiddenPiece {
            ids: &e.ids,
            position,
        })
        .collect();
    let ours = model.hidden_scores(&items, true).unwrap();
    let theirs: Vec<u32> = ids(theirs);
    let fragile: Vec<usize> = fragile
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(ours.len(), theirs.len(), "{what}: pieces");
    let mut differs = 0;
    for (i, (o, &t)) in ours.iter().zip(&theirs).enumerate() {
        if o.rank != t {
            assert!(
                fragile.contains(&i),
                "{what}: piece {i} ranked {} by lmbias, {t} by mlm-bias, not at a near-tie",
                o.rank
            );
            differs += 1;
        }
    }
    let n = ours.len() as f64;
    let w = |a: &[f64]| a[1..a.len() - 1].iter().sum::<f64>() / (a.len() - 2) as f64;
    Ranked {
        crr: theirs
            .iter()
            .map(|&r| 1.0 - 1.0 / f64::from(r))
            .sum::<f64>()
            / n,
        crra: ours
            .iter()
            .zip(&theirs)
            .map(|(o, &r)| w(&o.attention) * (1.0 + f64::from(r).ln()))
            .sum::<f64>()
            / n,
        differs,
    }
}

#[test]
fn mlm_bias_s_measures_equal_mlm_bias_0_1_7_on_every_family() {
    let pairs = PairSet::read(&fixtures().join("crows").join("short-pairs.csv")).unwrap();
    for folder in FOLDERS {
        let want = reference(&format!("mlm-bias-{folder}"));
        let checkpoint = Checkpoint::resolve(model_dir(folder).to_str().unwrap()).unwrap();
        let model = load_masked_lm(&checkpoint, DeviceKind::Cpu).unwrap();
        let scored = score(model.as_ref(), pairs.pairs(), Measures::ALL, &mut |_| {})
            .unwrap()
            .pairs;
        let rows = want["pairs"].as_array().unwrap();
        assert_eq!(scored.len(), rows.len(), "{folder}: pairs scored");
        let (mut near_ties, mut rank_differences) = (0, 0);
        for ((got, row), pair) in scored.iter().zip(rows).zip(pairs.pairs()) {
            let id = &got.id;
            assert_eq!(id, row["id"].as_str().unwrap(), "{folder}: pair order");
            // The sentence CRR and ΔP mask, piece by piece, is mlm-bias's stripped one.
            for (text, key) in [(&pair.more, "stripped_more"), (&pair.less, "stripped_less")] {
                let e = &model.encode(&[&stripped(text)]).unwrap()[0];
                let inner: Vec<u32> = (0..e.ids.len())
                    .filter(|&p| !e.special[p])
                    .map(|p| e.ids[p])
                    .collect();
                assert_eq!(inner, ids(&row[key]), "{folder} pair {id}: {key}");
            }
            let what = |side: &str| format!("{folder} pair {id} {side}");
            let with_theirs = [
                ranked(
                    model.as_ref(),
                    &pair.more,
                    &row["ranks"][0],
                    &row["fragile"][0],
                    &what("sent_more"),
                ),
                ranked(
                    model.as_ref(),
                    &pair.less,
                    &row["ranks"][1],
                    &row["fragile"][1],
                    &what("sent_less"),
                ),
            ];
            rank_differences += with_theirs.iter().map(|r| r.differs).sum::<usize>();
            for (measure, key) in NAMES {
                let theirs: Vec<Option<f64>> = row[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(Value::as_f64)
                    .collect();
                let ours = [got.more.get(measure), got.less.get(measure)];
                for (s, (side, (a, b))) in ["sent_more", "sent_less"]
                    .iter()
                    .zip(ours.iter().zip(&theirs))
                    .enumerate()
                {
                    // Off only where a rank was: then equal with mlm-bias's ranks.
                    let recomputed = match measure {
                        Measure::Crr if with_theirs[s].differs > 0 => Some(with_theirs[s].crr),
                        Measure::Crra if with_theirs[s].differs > 0 => Some(with_theirs[s].crra),
                        _ => None,
                    };
                    match (a, b) {
                        (Some(a), Some(b)) => assert!(
                            close(*a, *b) || recomputed.is_some_and(|r| close(r, *b)),
                            "{folder} pair {id} {key} {side}: lmbias {a} vs mlm-bias {b}"
                        ),
                        // mlm-bias's NaN: SSS of a sentence with nothing modified.
                        (None, None) => assert_eq!(measure, Measure::SssMlmBias),
                        _ => panic!(
                            "{folder} pair {id} {key} {side}: lmbias {a:?} vs mlm-bias {b:?}"
                        ),
                    }
                }
                let (Some(m), Some(l)) = (theirs[0], theirs[1]) else {
                    continue;
                };
                if decide(measure, Some(m), Some(l)) != got.decisions.get(measure) {
                    assert!(close(m, l), "{folder} pair {id} {key}: a decision differs");
                    near_ties += 1;
                }
            }
        }
        // mlm-bias's percentage: pairs counted over every pair (a NaN counts as not biased).
        if near_ties == 0 {
            let summary = summarize(&scored, Measures::ALL);
            for (measure, key) in NAMES {
                let s = summary.iter().find(|s| s.measure == measure).unwrap();
                let theirs = want["bias_scores"][key]["total"].as_f64().unwrap();
                let ours = 100.0 * s.overall.stereotypical as f64 / scored.len() as f64;
                assert!(
                    (ours - theirs).abs() < 1e-8,
                    "{folder} {key}: {ours} % vs mlm-bias's {theirs} %"
                );
            }
        }
        eprintln!(
            "{folder}: {near_ties} decisions on near-ties, {rank_differences} ranks at near-tied logits"
        );
    }
}
