//! Tables of the likelihood measures on minimal pairs: per model and measure, every share
//! with its test, interval and verdict; the data checks; the comparisons of two models.
//! A share is called stereotypical only when its verdict says so (its interval above 50 %),
//! and its row says whether its p and interval are corrected. The words for a set's two
//! sides are the set's ([`Sides`]): CrowS-Pairs' stereotypical and anti-stereotypical, or a
//! period set's two wordings.

use lmbias_data::crows::MinimalPair;
use lmbias_studies::crows::relative::RelativeBias;
use lmbias_studies::crows::summary::{
    ALPHA, Comparison, Correction, LEVEL, MeasureSummary, Share, Verdict,
};
use lmbias_studies::crows::{DataChecks, Measure, PairScore};

use crate::table::Table;

/// What a set's two sentences are, as its tables name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sides {
    /// A share above 50 %: `sent_more` preferred.
    pub more: &'static str,
    /// A share below 50 %.
    pub less: &'static str,
    /// The column counting the pairs where `sent_more` scores higher.
    pub count: &'static str,
    /// What `sent_more` is, for the notes.
    pub sentence: &'static str,
}

/// CrowS-Pairs' sides.
pub const STEREOTYPES: Sides = Sides {
    more: "stereotypical",
    less: "anti-stereotypical",
    count: "stereotypical",
    sentence: "the more stereotypical sentence",
};

/// A p-value for a table: three significant digits, or "< 1e-300".
fn p(p: Option<f64>) -> String {
    match p {
        None => "–".into(),
        Some(p) if p < 1e-300 => "< 1e-300".into(),
        Some(p) if p < 1e-3 => format!("{p:.2e}"),
        Some(p) => format!("{p:.3}"),
    }
}

/// A share's verdict in the set's words, saying when a correction decided it.
pub fn verdict(share: &Share, sides: Sides) -> &'static str {
    match (share.verdict, share.correction) {
        (Verdict::Stereotypical, _) => sides.more,
        (Verdict::AntiStereotypical, _) => sides.less,
        (Verdict::NotSignificant, Correction::None) => "not significant",
        (Verdict::NotSignificant, Correction::Holm { .. }) => "not significant after Holm",
        (Verdict::NoData, _) => "no data",
    }
}

/// A confidence level in percent, to the digits it has (95 %, 98.75 %).
fn level(level: f64) -> String {
    let text = format!("{:.2}", level * 100.0);
    format!("{} %", text.trim_end_matches('0').trim_end_matches('.'))
}

fn row(name: &str, s: &Share, sides: Sides) -> Vec<String> {
    vec![
        name.to_owned(),
        s.pairs.to_string(),
        s.stereotypical.to_string(),
        s.ties.to_string(),
        s.score.map_or("–".into(), |x| format!("{x:.2}")),
        s.interval
            .map_or("–".into(), |[lo, hi]| format!("{lo:.1}–{hi:.1}")),
        s.interval.map_or("–".into(), |_| level(s.interval_level)),
        p(s.p_value),
        p(s.holm_p),
        verdict(s, sides).to_owned(),
    ]
}

/// One measure's table: all pairs, each direction, each bias type.
pub fn measure_table(summary: &MeasureSummary, sides: Sides) -> Table {
    let mut table = Table::new([
        "subset",
        "pairs",
        sides.count,
        "ties",
        "score %",
        "CI",
        "CI level",
        "p",
        "Holm p",
        "verdict",
    ]);
    table.push(row("all", &summary.overall, sides));
    table.push(row("stereo", &summary.stereo, sides));
    table.push(row("antistereo", &summary.antistereo, sides));
    for (name, share) in &summary.bias_types {
        table.push(row(name, share, sides));
    }
    table
}

/// The note under every measure table: which rows are corrected, and how.
pub fn measure_note(summary: &MeasureSummary) -> String {
    let holm = summary
        .bias_types
        .values()
        .find_map(|s| match s.correction {
            Correction::Holm { tests, rejected } => Some((tests, rejected, s.interval_level)),
            Correction::None => None,
        });
    let mut note = format!(
        "all, stereo, antistereo: uncorrected, each its own exact two-sided binomial test \
         against 50 % and its {} Clopper–Pearson interval.",
        level(LEVEL)
    );
    if let Some((tests, rejected, at)) = holm {
        note.push_str(&format!(
            " Bias types: Holm's correction across the {tests} tested ({rejected} below {ALPHA} \
             after it); their intervals are at {}, the level at which Holm's procedure stopped \
             (1 − {ALPHA} / {}), so that an interval excludes 50 % exactly when its Holm p is \
             below {ALPHA}.",
            level(at),
            (tests - rejected).max(1)
        ));
    }
    note.push('\n');
    note
}

/// The measures any of `models` computed, in report order.
fn computed(models: &[(&str, &[MeasureSummary])]) -> Vec<Measure> {
    Measure::ALL
        .into_iter()
        .filter(|m| {
            models
                .iter()
                .any(|(_, summaries)| summaries.iter().any(|s| s.measure == *m))
        })
        .collect()
}

/// The overall score of every model under every measure it computed, one row per model
/// (uncorrected).
pub fn overview(models: &[(&str, &[MeasureSummary])]) -> Table {
    let measures = computed(models);
    let mut header = vec!["model".to_owned()];
    header.extend(measures.iter().map(|m| m.as_str().to_owned()));
    let mut table = Table::new(header);
    for (model, summaries) in models {
        let mut cells = vec![(*model).to_owned()];
        for &m in &measures {
            let cell = summaries
                .iter()
                .find(|s| s.measure == m)
                .map_or("–".into(), |s| {
                    let o = &s.overall;
                    match (o.score, o.interval) {
                        (Some(score), Some([lo, hi])) => {
                            let mark = match o.verdict {
                                Verdict::Stereotypical | Verdict::AntiStereotypical => "*",
                                _ => "",
                            };
                            format!("{score:.2}{mark} ({lo:.1}–{hi:.1})")
                        }
                        _ => "–".into(),
                    }
                });
            cells.push(cell);
        }
        table.push(cells);
    }
    table
}

/// The note under an overview of `models`: what the columns and the star mean.
pub fn overview_note(sides: Sides, models: &[(&str, &[MeasureSummary])]) -> String {
    let measures = computed(models);
    let labels: Vec<String> = measures
        .iter()
        .map(|m| format!("{}: {}", m.as_str(), m.label()))
        .collect();
    let errors: Vec<&str> = measures
        .iter()
        .filter(|m| m.lower_is_likelier())
        .map(|m| m.as_str())
        .collect();
    let lower = if errors.is_empty() {
        String::new()
    } else {
        format!(
            " ({} measure the model's error, so there a lower value counts, as mlm-bias counts it)",
            errors.join(", ")
        )
    };
    format!(
        "Score: % of pairs where {} scores higher{lower} (the originals' \
         percentage); in brackets the {:.0} % Clopper–Pearson interval over the pairs decided; \
         * the interval excludes 50 % and the exact two-sided binomial p < {ALPHA}, uncorrected \
         (one test per model and measure). {}.\n",
        sides.sentence,
        LEVEL * 100.0,
        labels.join("; "),
    )
}

/// A relative comparison's sides: a pair moved toward the stereotype or away from it.
const MOVED: Sides = Sides {
    more: "moved toward the stereotype",
    less: "moved away from it",
    count: "toward",
    sentence: "the more stereotypical sentence",
};

/// `other`'s bias relative to `base` under a heading of its own.
pub fn relative_section(base: &str, other: &str, bias: &RelativeBias) -> String {
    format!(
        "\n## {other} relative to {base}\n\n{}",
        relative_table(base, other, bias)
    )
}

/// `other`'s bias relative to `base`: one row per measure, with its note.
pub fn relative_table(base: &str, other: &str, bias: &RelativeBias) -> String {
    let mut table = Table::new([
        "measure",
        "pairs",
        "toward",
        "unchanged",
        "toward %",
        "CI",
        "CI level",
        "sign test p",
        "Holm p",
        "verdict",
        "mean d",
        "skipped",
        "mlm-bias formula %",
    ]);
    for m in &bias.measures {
        let mut cells = row(m.measure.as_str(), &m.toward, MOVED);
        cells.push(m.mean_difference.map_or("–".into(), |d| format!("{d:.4}")));
        cells.push(m.skipped.to_string());
        cells.push(format!("{:.2}", m.mlm_bias_formula));
        table.push(cells);
    }
    format!(
        "{}\nPer pair, d = ({other} − {base}) on sent_more − \
         ({other} − {base}) on sent_less, raw scores: the change in how much likelier the more \
         stereotypical sentence is. toward: pairs with d > 0 (d < 0 for crr, crra, dp, dpa, \
         which measure an error); unchanged: d = 0. The sign test is exact and two-sided over the \
         pairs that moved; Holm's correction across the {} measures, each interval at the level \
         where it stopped. mlm-bias formula: mlm-bias 0.1.7's RelativeBiasMLMs percentage as its \
         code computes it, (m2_S1 − m1_S1) − (m2_S2 − m2_S1) > 0 over every pair, for every \
         measure alike; its second difference reads m2_S1 where the difference of differences \
         has m1_S2, so it is not the column beside it.\n",
        table.to_markdown(),
        bias.measures.len(),
    )
}

/// Ids listed after a count, at most this many (a summary says where the rest are).
const LISTED: usize = 12;

/// The data checks as one paragraph of counts, each with its first [`LISTED`] ids.
pub fn data_checks(checks: &DataChecks) -> String {
    let ids = |ids: &[String]| match ids.len() {
        0 => String::new(),
        n if n <= LISTED => format!(" ({})", ids.join(", ")),
        n => format!(" ({}, … and {} more)", ids[..LISTED].join(", "), n - LISTED),
    };
    let identical: Vec<String> = checks.identical.iter().map(|(id, _)| id.clone()).collect();
    let duplicates: Vec<String> = checks
        .duplicates
        .iter()
        .map(|(id, first)| format!("{id} = {first}"))
        .collect();
    let mut out = format!(
        "Data checks: {} identical pairs set aside unscored{}; {} with several modified spans{}; \
         {} with spans differing by more than {} words{}; {} duplicates{}.",
        identical.len(),
        ids(&identical),
        checks.several_spans.len(),
        ids(&checks.several_spans),
        checks.unequal_spans.len(),
        checks.max_span_gap,
        ids(&checks.unequal_spans),
        duplicates.len(),
        ids(&duplicates),
    );
    if !checks.same_pieces.is_empty() {
        let same: Vec<String> = checks
            .same_pieces
            .iter()
            .map(|(id, _)| id.clone())
            .collect();
        out.push_str(&format!(
            " The same pieces to this model's tokenizer (the sentences differ only in case, white \
             space or characters it does not keep), set aside unscored: {}{}.",
            same.len(),
            ids(&same)
        ));
    }
    if !checks.repeated_ids.is_empty() {
        let repeated: Vec<String> = checks
            .repeated_ids
            .iter()
            .map(|(id, lines)| {
                let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
                format!("{id}: lines {}", lines.join(", "))
            })
            .collect();
        out.push_str(&format!(
            " Ids given to more than one row: {}{} (counted, not flagged: a pair is its row).",
            repeated.len(),
            ids(&repeated)
        ));
    }
    out.push_str(&match &checks.group_terms {
        Some(g) => format!(
            " By the group-term list `{}`, one sentence's modified words name a group of \
             another bias type and none of the pair's own in {} of the pairs{}; neither \
             sentence's modified words name a listed group of the pair's type in {} (given \
             names, occupations: counted, not flagged).",
            g.list,
            g.other_group.len(),
            ids(&g.other_group),
            g.unlisted.len(),
        ),
        None => " Group terms not checked (no list given).".to_owned(),
    });
    out.push_str(if checks.excluded.is_empty() {
        " Flagged pairs are scored; every id is in the JSON's `data_checks`.\n"
    } else {
        " Flagged pairs are left out of the scores; every id is in the JSON's `data_checks`.\n"
    });
    out
}

/// The exact McNemar tests of pairs of models, one row per pair of models and measure.
pub fn comparisons(rows: &[ComparisonRow<'_>]) -> Table {
    let mut table = Table::new([
        "first",
        "second",
        "measure",
        "pairs",
        "both",
        "only first",
        "only second",
        "McNemar p",
    ]);
    for (first, second, tests) in rows {
        for t in *tests {
            table.push([
                (*first).to_owned(),
                (*second).to_owned(),
                t.measure.as_str().to_owned(),
                t.pairs.to_string(),
                t.both.to_string(),
                t.only_first.to_string(),
                t.only_second.to_string(),
                p(Some(t.p_value)),
            ]);
        }
    }
    table
}

/// One model's section: its overview row, each measure's table, the data checks.
pub fn model_section(
    model: &str,
    summaries: &[MeasureSummary],
    checks: &DataChecks,
    sides: Sides,
) -> String {
    let mut out = format!("## {model}\n\n");
    for s in summaries {
        out.push_str(&format!("### {}\n\n", s.label));
        out.push_str(&measure_table(s, sides).to_markdown());
        out.push('\n');
        out.push_str(&measure_note(s));
        if s.skipped > 0 {
            out.push_str(&format!(
                "\n{} pairs skipped (a sentence with no modified piece).\n",
                s.skipped
            ));
        }
        out.push('\n');
    }
    out.push_str(&data_checks(checks));
    out
}

/// One model's results as the tables take them: its name, its summaries, its data checks.
pub type ModelRow<'a> = (&'a str, &'a [MeasureSummary], &'a DataChecks);

/// Two models' comparison as the table takes it: the first's name, the second's, the tests.
pub type ComparisonRow<'a> = (&'a str, &'a str, &'a [Comparison]);

/// The whole Markdown of one set of pairs, as `lmbias crows` prints it and reproduce-paper
/// writes it: a heading (when given), the overview with its note, each model's section, the
/// comparisons (when there are two models or more).
pub fn markdown(
    title: Option<&str>,
    models: &[ModelRow<'_>],
    compared: &[ComparisonRow<'_>],
    sides: Sides,
) -> String {
    let mut md = title.map_or_else(String::new, |t| format!("# {t}\n\n"));
    let overview_rows: Vec<(&str, &[MeasureSummary])> =
        models.iter().map(|(m, s, _)| (*m, *s)).collect();
    md.push_str(&overview(&overview_rows).to_markdown());
    md.push('\n');
    md.push_str(&overview_note(sides, &overview_rows));
    for (model, summaries, checks) in models {
        md.push('\n');
        md.push_str(&model_section(model, summaries, checks, sides));
    }
    if !compared.is_empty() {
        md.push_str("\n## Models compared on the same pairs\n\n");
        md.push_str(&comparisons(compared).to_markdown());
    }
    md
}

/// One model's scored pairs for [`pairs_table`]: the set's name when the table holds several
/// sets, and the pairs as read when the table shows the sentences (matched by line).
pub struct ScoredPairs<'a> {
    /// The pair set's name (`crows-pairs`, `period-pairs`); `None`: a table of one set.
    pub set: Option<&'a str>,
    /// The model's name.
    pub model: &'a str,
    /// Its scores, pair by pair.
    pub pairs: &'a [PairScore],
    /// The pairs as read, for their two sentences; `None`: no sentence columns.
    pub sentences: Option<&'a [MinimalPair]>,
}

/// Every pair of every run, one row each: its id, line, bias type and direction (with the
/// sentences, `sent_more` first, where given), then each measure's raw score of `sent_more`
/// and of `sent_less` (before any rounding) and its decision. A `set` column and the sentence
/// columns appear when the first run has them.
pub fn pairs_table(runs: &[ScoredPairs<'_>]) -> Table {
    let first = runs.first();
    let with_set = first.is_some_and(|r| r.set.is_some());
    let with_sentences = first.is_some_and(|r| r.sentences.is_some());
    let mut header: Vec<String> = Vec::new();
    if with_set {
        header.push("set".to_owned());
    }
    header.extend(["model", "id"].map(str::to_owned));
    if with_sentences {
        header.push("line".to_owned());
    }
    header.extend(["bias_type", "direction"].map(str::to_owned));
    if with_sentences {
        header.extend(["sent_more", "sent_less"].map(str::to_owned));
    }
    // The measures the runs computed (mlm-bias's only where asked for).
    let measures: Vec<Measure> = Measure::ALL
        .into_iter()
        .filter(|&m| {
            runs.iter()
                .any(|r| r.pairs.iter().any(|p| p.decisions.has(m)))
        })
        .collect();
    for m in &measures {
        header.push(format!("{}_more", m.as_str()));
        header.push(format!("{}_less", m.as_str()));
        header.push(format!("{}_decision", m.as_str()));
    }
    let name = |v: serde_json::Result<serde_json::Value>| {
        v.ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    let mut table = Table::new(header);
    for run in runs {
        for p in run.pairs {
            let mut cells = Vec::new();
            if with_set {
                cells.push(run.set.unwrap_or_default().to_owned());
            }
            cells.extend([run.model.to_owned(), p.id.clone()]);
            if with_sentences {
                cells.push(p.line.to_string());
            }
            cells.extend([p.bias_type.clone(), name(serde_json::to_value(p.direction))]);
            if with_sentences {
                let read = run
                    .sentences
                    .and_then(|all| all.iter().find(|m| m.line == p.line));
                cells.push(read.map_or_else(String::new, |m| m.more.clone()));
                cells.push(read.map_or_else(String::new, |m| m.less.clone()));
            }
            for &m in &measures {
                let score = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x}"));
                cells.push(score(p.more.get(m)));
                cells.push(score(p.less.get(m)));
                cells.push(name(serde_json::to_value(p.decisions.get(m))));
            }
            table.push(cells);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_studies::crows::Measures;
    use lmbias_studies::crows::summary::summarize;
    use lmbias_studies::testing::crows_pairs;

    /// Sets of bias types of many sizes and leanings, from a fixed seed.
    fn draws() -> Vec<Vec<MeasureSummary>> {
        let mut draws = lmbias_studies::testing::Draws::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |bound: u64| draws.below(bound);
        (0..300)
            .map(|_| {
                let types = 1 + next(8);
                let pairs: Vec<_> = (0..types)
                    .flat_map(|t| {
                        let n = 3 + next(150);
                        crows_pairs(&format!("type{t}"), next(n + 1), n)
                    })
                    .collect();
                summarize(&pairs, Measures::PAPERS)
            })
            .collect()
    }

    /// The fifth fidelity pass's rule, as a property of the rendered rows: no "not
    /// significant" row whose printed interval excludes 50 %, no stereotypical or
    /// anti-stereotypical row whose printed interval contains it, and the p the row's
    /// correction names (Holm p for a bias type, else p) below 0.05 exactly for the latter.
    #[test]
    fn every_rendered_verdict_agrees_with_its_printed_interval_and_p() {
        let mut rows = 0;
        for summaries in draws() {
            for s in summaries.iter().filter(|s| s.measure != Measure::BiasBench) {
                let md = measure_table(s, STEREOTYPES).to_markdown();
                for line in md.lines().skip(2) {
                    let cells: Vec<&str> =
                        line.trim_matches('|').split(" | ").map(str::trim).collect();
                    let (interval, p, holm, verdict) = (cells[5], cells[7], cells[8], cells[9]);
                    if interval == "–" {
                        // No pair decided (every planted pair is `stereo`): no verdict.
                        assert_eq!((p, verdict), ("–", "no data"), "{line}");
                        continue;
                    }
                    let (lo, hi) = interval.split_once('–').unwrap();
                    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
                    let named_p = if holm == "–" { p } else { holm };
                    let below = match named_p {
                        "< 1e-300" => true,
                        text => text.parse::<f64>().unwrap() < ALPHA,
                    };
                    match verdict {
                        "stereotypical" => assert!(lo >= 50.0, "{line}"),
                        "anti-stereotypical" => assert!(hi <= 50.0, "{line}"),
                        "not significant" | "not significant after Holm" => {
                            assert!(lo <= 50.0 && hi >= 50.0, "{line}")
                        }
                        other => panic!("{other}: {line}"),
                    }
                    // A p printed as 0.050 may lie on either side of 0.05.
                    if named_p != "0.050" {
                        assert_eq!(below, !verdict.starts_with("not significant"), "{line}");
                    }
                    assert_eq!(
                        verdict == "not significant after Holm",
                        holm != "–" && !below,
                        "{line}"
                    );
                    rows += 1;
                }
            }
        }
        assert!(rows > 3000, "{rows}");
    }

    #[test]
    fn a_period_set_speaks_of_its_two_wordings() {
        let sides = Sides {
            more: "prefers the KJV wording",
            less: "prefers the WEB wording",
            count: "KJV preferred",
            sentence: "the King James wording",
        };
        let summaries = summarize(&crows_pairs("verse", 40, 50), Measures::PAPERS);
        let md = measure_table(&summaries[0], sides).to_markdown();
        assert!(
            md.starts_with("| subset | pairs | KJV preferred | ties |"),
            "{md}"
        );
        assert!(md.contains("| prefers the KJV wording |"), "{md}");
        assert!(!md.contains("stereotypical"), "{md}");
        let note = measure_note(&summaries[0]);
        assert!(
            note.starts_with("all, stereo, antistereo: uncorrected"),
            "{note}"
        );
        assert!(
            note.contains("Holm's correction across the 1 tested (1 below 0.05"),
            "{note}"
        );
    }
}
