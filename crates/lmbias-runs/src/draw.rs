//! Valence sentences and period minimal pairs drawn from parallel corpora: the passages held
//! out of two period models' training, in their Early Modern and Modern wordings (the same
//! passages, aligned line by line), and the two training corpora, which rate words and must
//! not hold a held-out passage. `reproduce-paper`'s drawn set and period pairs are these on the
//! two Bibles; `lmbias draw-sentences` / `draw-pairs` and Python's `draw_sentences` /
//! `draw_pairs` run them on a researcher's own corpora. The methods are lmbias-studies'
//! `drawn_sentences`.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::Path;

use lmbias_data::corpus::Corpus;
use lmbias_studies::corpus_valence::CorpusValence;
use lmbias_studies::drawn_sentences::{self, DrawSettings, PeriodPair, VersePair};
use serde::Serialize;
use serde_json::Value;

use crate::RunError;
use crate::valence::CorpusSettings;

/// The held-out passages in both wordings and the two training corpora, read and checked.
pub struct Parallel {
    held_out: [Corpus; 2],
    training: [Corpus; 2],
}

impl Parallel {
    /// Reads the Early Modern and Modern held-out files (`held_out`: passage i of one is
    /// passage i of the other, text or JSON lines as a training corpus, a JSON line's
    /// `"line"` its number in the whole corpus) and the two training corpora. Held-out files
    /// whose passages are not numbered alike are refused, as is a file given twice.
    pub fn load(held_out: [&Path; 2], training: [&Path; 2]) -> Result<Parallel, RunError> {
        let all = [held_out[0], held_out[1], training[0], training[1]];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                let same = match (a.canonicalize(), b.canonicalize()) {
                    (Ok(x), Ok(y)) => x == y,
                    _ => a == b,
                };
                if same {
                    return Err(RunError::RepeatedCorpus {
                        path: a.to_path_buf(),
                    });
                }
            }
        }
        let [early, modern] = [Corpus::read(held_out[0])?, Corpus::read(held_out[1])?];
        if early.numbers() != modern.numbers() {
            let (a, b) = (early.numbers(), modern.numbers());
            let at = a
                .iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            return Err(RunError::Unaligned {
                early_modern: held_out[0].to_path_buf(),
                modern: held_out[1].to_path_buf(),
                detail: match (a.get(at), b.get(at)) {
                    (Some(x), Some(y)) => {
                        format!(
                            "passage {} is number {x} in one and {y} in the other",
                            at + 1
                        )
                    }
                    _ => format!("{} passages against {}", a.len(), b.len()),
                },
            });
        }
        Ok(Parallel {
            held_out: [early, modern],
            training: [Corpus::read(training[0])?, Corpus::read(training[1])?],
        })
    }

    /// The held-out passages as pairs of wordings, in file order.
    pub fn pairs(&self) -> Vec<VersePair<'_>> {
        let [early, modern] = &self.held_out;
        early
            .numbers()
            .iter()
            .zip(early.passages().iter().zip(modern.passages()))
            .map(|(&line, (e, m))| VersePair {
                line,
                early_modern: e,
                modern: m,
            })
            .collect()
    }

    fn training(&self) -> [&[String]; 2] {
        [self.training[0].passages(), self.training[1].passages()]
    }
}

/// Two aligned corpora split into training passages and held-out passages
/// (lmbias-studies' `drawn_sentences::held_out`): what [`Parallel::load`] reads back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The Early Modern and the Modern training text, one passage a line.
    pub training: [String; 2],
    /// The held-out passages, JSON lines `{"line", "text"}` (`line` from 1 in the whole
    /// corpus), the same lines in both.
    pub held_out: [String; 2],
    /// How many passages were held out, of how many.
    pub held: usize,
    /// The passages in each corpus.
    pub passages: usize,
}

/// The files a [`Split`] is written to in a folder, in [`Split::texts`]' order: what
/// `--training` and `--held-out` of the draws then read.
pub const SPLIT_FILES: [&str; 4] = [
    "early-training.txt",
    "modern-training.txt",
    "early-held-out.jsonl",
    "modern-held-out.jsonl",
];

impl Split {
    /// The four files' texts, in [`SPLIT_FILES`]' order.
    pub fn texts(&self) -> [&str; 4] {
        [
            &self.training[0],
            &self.training[1],
            &self.held_out[0],
            &self.held_out[1],
        ]
    }
}

/// Splits two aligned corpora (passage i of one is passage i of the other): a `share` of the
/// passages drawn with `seed`, with every passage whose wordings have the same words and every
/// one sharing a wording with a held-out passage, held out of training. Corpora of unequal
/// length, and a share outside (0, 1), are refused.
pub fn split(corpora: [&Path; 2], share: f64, seed: u64) -> Result<Split, RunError> {
    if !(share > 0.0 && share < 1.0) {
        return Err(RunError::Share { share });
    }
    let [early, modern] = [Corpus::read(corpora[0])?, Corpus::read(corpora[1])?];
    let (a, b) = (early.passages(), modern.passages());
    if a.len() != b.len() {
        return Err(RunError::Unaligned {
            early_modern: corpora[0].to_path_buf(),
            modern: corpora[1].to_path_buf(),
            detail: format!("{} passages against {}", a.len(), b.len()),
        });
    }
    let held = drawn_sentences::held_out(a, b, share, seed);
    let mut out = Split {
        training: [String::new(), String::new()],
        held_out: [String::new(), String::new()],
        held: held.len(),
        passages: a.len(),
    };
    for (k, passages) in [a, b].into_iter().enumerate() {
        for (i, passage) in passages.iter().enumerate() {
            if held.contains(&i) {
                let line = serde_json::json!({"line": i + 1, "text": passage});
                out.held_out[k].push_str(&line.to_string());
                out.held_out[k].push('\n');
            } else {
                out.training[k].push_str(passage);
                out.training[k].push('\n');
            }
        }
    }
    Ok(out)
}

/// How sentences are drawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SentenceSettings {
    /// Early Modern sentences, and as many Modern ones.
    pub per_group: NonZeroUsize,
    /// The seed of the draw.
    pub seed: u64,
    /// The mask token written into the sentences.
    pub mask: String,
    /// How the training corpora rate words. By default z alone (no log-odds floor), the rule
    /// `datasets/valence/kjv-web-drawn.json` was drawn by.
    pub rating: CorpusSettings,
    /// The dataset's name.
    pub name: String,
    /// The dataset's description; the counts follow it.
    pub description: String,
    /// What the dataset's provenance calls the corpora; `None`: the training files' names.
    pub corpora: Option<String>,
}

impl Default for SentenceSettings {
    /// 300 a group and seed 34, as the drawn set of issue #34.
    fn default() -> Self {
        SentenceSettings {
            per_group: NonZeroUsize::new(300).expect("300 is not 0"),
            seed: 34,
            mask: "[MASK]".to_owned(),
            rating: CorpusSettings {
                min_log_odds: 0.0,
                ..CorpusSettings::default()
            },
            name: "drawn".to_owned(),
            description: "Temporal-valence sentences drawn from held-out passages of two \
                          period corpora (lmbias draw-sentences)."
                .to_owned(),
            corpora: None,
        }
    }
}

/// The sentences drawn from `parallel`: a valence dataset (datasets/README.md) whose
/// provenance records every file's sha256 and the seed, as JSON text.
pub fn sentences(parallel: &Parallel, settings: &SentenceSettings) -> Result<String, RunError> {
    let training = parallel.training();
    let r = &settings.rating;
    let rating = CorpusValence::new(
        training[0],
        training[1],
        r.alpha0,
        r.thresholds,
        r.min_context,
        r.min_log_odds,
    )
    .map_err(|source| RunError::PeriodCorpora {
        early_modern: parallel.training[0].path().to_path_buf(),
        modern: parallel.training[1].path().to_path_buf(),
        source,
    })?;
    let [early, modern] = &parallel.held_out;
    let [early_training, modern_training] = &parallel.training;
    let name = |c: &Corpus| c.path().display().to_string();
    let provenance = BTreeMap::from([
        (
            "corpora".to_owned(),
            settings.corpora.clone().unwrap_or_else(|| {
                format!(
                    "{} (Early Modern), {} (Modern)",
                    name(early_training),
                    name(modern_training)
                )
            }),
        ),
        (
            "early_modern_held_out_sha256".to_owned(),
            early.sha256().to_owned(),
        ),
        (
            "modern_held_out_sha256".to_owned(),
            modern.sha256().to_owned(),
        ),
        (
            "early_modern_training_sha256".to_owned(),
            early_training.sha256().to_owned(),
        ),
        (
            "modern_training_sha256".to_owned(),
            modern_training.sha256().to_owned(),
        ),
        ("seed".to_owned(), settings.seed.to_string()),
    ]);
    let value: Value = drawn_sentences::draw(
        &parallel.pairs(),
        training,
        &rating,
        &DrawSettings {
            per_group: settings.per_group.get(),
            seed: settings.seed,
            mask: settings.mask.clone(),
        },
        &settings.name,
        &settings.description,
        &provenance,
    )
    .map_err(|source| parallel.draw_error(source))?;
    Ok(serde_json::to_string_pretty(&value).expect("a JSON value prints") + "\n")
}

/// A period minimal pair: one held-out passage in its two wordings and the words that differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PairRow {
    /// The passage's number ([`Corpus::numbers`]).
    pub line: usize,
    /// The Early Modern wording (CrowS-Pairs' `sent_more`).
    pub sent_more: String,
    /// The Modern wording (`sent_less`).
    pub sent_less: String,
    /// The words of the Early Modern wording the alignment changes (lower-cased).
    pub changed_early_modern: Vec<String>,
    /// Those of the Modern wording.
    pub changed_modern: Vec<String>,
}

/// The held-out passages whose two wordings differ in 1 … `max_words` words (on each side),
/// in file order. None qualifying is refused.
pub fn pairs(parallel: &Parallel, max_words: NonZeroUsize) -> Result<Vec<PairRow>, RunError> {
    let max_words = max_words.get();
    let pairs: Vec<PeriodPair<'_>> =
        drawn_sentences::period_pairs(&parallel.pairs(), parallel.training(), max_words)
            .map_err(|source| parallel.draw_error(source))?;
    if pairs.is_empty() {
        return Err(RunError::NoPairs {
            early_modern: parallel.held_out[0].path().to_path_buf(),
            modern: parallel.held_out[1].path().to_path_buf(),
            max_words,
        });
    }
    Ok(pairs
        .into_iter()
        .map(|p| PairRow {
            line: p.line,
            sent_more: p.early_modern.to_owned(),
            sent_less: p.modern.to_owned(),
            changed_early_modern: p.early_words,
            changed_modern: p.modern_words,
        })
        .collect())
}

/// `rows` in CrowS-Pairs' CSV layout, so that `lmbias crows` scores them: every pair
/// `stereo`, `bias_type` `period` (a model's "stereotypical" share is then the share of
/// passages where it prefers the Early Modern wording), and the changed words of each side.
pub fn pairs_csv(rows: &[PairRow]) -> String {
    let field = |text: &str| format!("\"{}\"", text.replace('"', "\"\""));
    let mut out = String::from(
        ",sent_more,sent_less,stereo_antistereo,bias_type,changed_early_modern,changed_modern\n",
    );
    for p in rows {
        out.push_str(&format!(
            "{},{},{},stereo,period,{},{}\n",
            p.line,
            field(&p.sent_more),
            field(&p.sent_less),
            field(&p.changed_early_modern.join(" ")),
            field(&p.changed_modern.join(" ")),
        ));
    }
    out
}

impl Parallel {
    fn draw_error(&self, source: drawn_sentences::DrawError) -> RunError {
        RunError::Draw {
            early_modern: self.held_out[0].path().to_path_buf(),
            modern: self.held_out[1].path().to_path_buf(),
            source,
        }
    }
}
