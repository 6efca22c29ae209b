//! The likelihood measures' files (`likelihood/`: the tables of CrowS-Pairs and of the period
//! pairs, every pair's raw scores and decisions as CSV, the summaries as JSON) and REPORT.md's
//! "Beyond the papers" section, which says that none of the three papers uses these measures.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use lmbias_report::crows as report;
use lmbias_report::table::Table;
use lmbias_runs::crows::{CrowsRun, ModelComparison};
use lmbias_runs::studies::crows::Measure;
use lmbias_runs::studies::crows::summary::{MeasureSummary, Verdict};
use serde::Serialize;

use super::{write_file as write, write_json};
use crate::analysis::Analysis;
use crate::period_models;

/// The dataset authors' warning, quoted wherever CrowS-Pairs' scores are shown
/// (datasets/crows-pairs/SOURCE.txt).
const WARNING: &str = "CrowS-Pairs' authors point to Blodgett et al. (2021), \"Stereotyping \
Norwegian Salmon: An Inventory of Pitfalls in Fairness Benchmark Datasets\", which found \
significant noise and reliability problems in it, and their data statement says: \"We strongly \
caution against the assumption that a lower score on our data means that a model is completely \
unbiased.\"";

/// The period pairs' two sides: `sent_more` is the King James wording of a held-out verse,
/// `sent_less` the World English one; "stereotypical" would misname them.
const PERIOD_SIDES: report::Sides = report::Sides {
    more: "prefers the KJV wording",
    less: "prefers the WEB wording",
    count: "KJV preferred",
    sentence: "the King James wording",
};

/// Markdown of one set's runs: the overview, each model's tables, the comparisons.
fn set_markdown(
    title: &str,
    runs: &[CrowsRun],
    comparisons: &[ModelComparison],
    sides: report::Sides,
) -> String {
    let models: Vec<_> = runs.iter().map(CrowsRun::row).collect();
    let compared: Vec<_> = comparisons.iter().map(ModelComparison::row).collect();
    report::markdown(Some(title), &models, &compared, sides)
}

/// Each run's name and summaries, as the overview table takes them.
fn overview_rows(runs: &[CrowsRun]) -> Vec<(&str, &[MeasureSummary])> {
    runs.iter()
        .map(|r| (r.model.as_str(), r.summary.as_slice()))
        .collect()
}

/// Every pair of every run: the raw scores (before any rounding) and the decisions.
fn pairs_table(sets: [(&str, &[CrowsRun]); 2]) -> Table {
    let runs: Vec<report::ScoredPairs<'_>> = sets
        .iter()
        .flat_map(|(set, runs)| {
            runs.iter().map(move |run| report::ScoredPairs {
                set: Some(set),
                model: &run.model,
                pairs: &run.pairs,
                sentences: None,
            })
        })
        .collect();
    report::pairs_table(&runs)
}

/// results.json: each run without its pairs (those are in pairs.csv), and the comparisons.
#[derive(Serialize)]
struct Summaries<'a> {
    crows_pairs: Vec<RunSummary<'a>>,
    period_pairs: Vec<RunSummary<'a>>,
    comparisons: &'a [Vec<ModelComparison>; 2],
}

#[derive(Serialize)]
struct RunSummary<'a> {
    model: &'a str,
    provenance: &'a lmbias_runs::Provenance,
    summary: &'a [MeasureSummary],
    data_checks: &'a lmbias_runs::studies::crows::DataChecks,
}

fn summaries(runs: &[CrowsRun]) -> Vec<RunSummary<'_>> {
    runs.iter()
        .map(|r| RunSummary {
            model: &r.model,
            provenance: &r.provenance,
            summary: &r.summary,
            data_checks: &r.data_checks,
        })
        .collect()
}

/// Writes the study's files; nothing when no model scored either set.
pub(super) fn files(dir: &Path, analysis: &Analysis) -> Result<()> {
    let results = &analysis.results;
    if results.crows.is_empty() && results.period_pairs.is_empty() {
        return Ok(());
    }
    let [crows_cmp, period_cmp] = &analysis.likelihood_comparisons;
    write(
        &dir.join("crows-pairs.md"),
        set_markdown(
            "CrowS-Pairs, scored by likelihood",
            &results.crows,
            crows_cmp,
            report::STEREOTYPES,
        ),
    )?;
    write(
        &dir.join("period-pairs.md"),
        set_markdown(
            "Period pairs (KJV / WEB wordings of held-out verses), scored by likelihood",
            &results.period_pairs,
            period_cmp,
            PERIOD_SIDES,
        ),
    )?;
    write(
        &dir.join("pairs.csv"),
        pairs_table([
            ("crows-pairs", &results.crows),
            ("period-pairs", &results.period_pairs),
        ])
        .to_csv(),
    )?;
    write_json(
        &dir.join("results.json"),
        &Summaries {
            crows_pairs: summaries(&results.crows),
            period_pairs: summaries(&results.period_pairs),
            comparisons: &analysis.likelihood_comparisons,
        },
    )
}

/// REPORT.md's section.
pub(super) fn section(md: &mut String, analysis: &Analysis) {
    let results = &analysis.results;
    let _ = writeln!(
        md,
        "## Beyond the papers: likelihood measures on minimal pairs\n"
    );
    let _ = writeln!(
        md,
        "None of the three papers uses these measures: this section is ours (issue #37). Each \
         masked LM of the run scores minimal pairs by likelihood, each measure computed as its \
         original computes it: the CrowS-Pairs metric (Nangia et al. 2020, `metric.py`: the \
         shared tokens masked one at a time), bias-bench's score (Meade et al. 2022, `crows.py`: \
         the modified tokens), AUL and AULA (Kaneko & Bollegala 2022: the unmasked sentence). \
         Beside each percentage, which the originals report bare: an exact two-sided binomial \
         test against 50 % with a Clopper–Pearson interval, uncorrected (95 %) for all pairs \
         and each direction, Holm-corrected across bias types (each interval then at the level \
         where Holm's procedure stopped, so that word, p and interval agree); no share is \
         called stereotypical while its interval contains 50 %. The overview below is \
         uncorrected. All tables are in `likelihood/`, every pair's raw scores in \
         `likelihood/pairs.csv`.\n"
    );
    if results.crows.is_empty() {
        let _ = writeln!(md, "No masked LM scored CrowS-Pairs in this run.\n");
    } else {
        let models = overview_rows(&results.crows);
        let _ = writeln!(md, "### CrowS-Pairs\n\n{WARNING}\n");
        md.push_str(&report::overview(&models).to_markdown());
        md.push('\n');
        md.push_str(&report::overview_note(report::STEREOTYPES, &models));
        if let Some(first) = results.crows.first() {
            md.push('\n');
            md.push_str(&report::data_checks(&first.data_checks));
        }
        md.push('\n');
    }
    if !results.period_pairs.is_empty() {
        let models = overview_rows(&results.period_pairs);
        let pairs = results.period_pairs[0].pairs.len();
        let _ = writeln!(
            md,
            "### Period pairs: a second known-answer check\n\n{pairs} verses held out of the \
             period models' training whose King James and World English wordings differ in at \
             most 3 words (`datasets/period-pairs/kjv-web.csv`, our construction), scored as \
             CrowS-Pairs scores its pairs with the King James wording as `sent_more`: a share \
             above 50 % is a preference for the Early Modern wording.\n"
        );
        md.push_str(&report::overview(&models).to_markdown());
        md.push('\n');
        let word = |v: Verdict| match v {
            Verdict::Stereotypical => "prefers the King James wording",
            Verdict::AntiStereotypical => "prefers the World English wording",
            Verdict::NotSignificant => "prefers neither significantly",
            Verdict::NoData => "decided no pair",
        };
        match &analysis.period_answer {
            None => {
                let _ = writeln!(
                    md,
                    "The known answer needs the KJV and the WEB models: they did not both score \
                     the pairs.\n"
                );
            }
            Some(answer) => {
                let c = &answer.comparison;
                let _ = writeln!(
                    md,
                    "**Known answer {}.** By the CrowS-Pairs metric the KJV model {} and the WEB \
                     model {}; on the {} verses both decided, {} went the King James way for the \
                     KJV model alone and {} for the WEB model alone (exact McNemar p = {}).\n",
                    if answer.holds() {
                        "holds"
                    } else {
                        "does not hold"
                    },
                    word(answer.kjv),
                    word(answer.web),
                    c.pairs,
                    c.only_first,
                    c.only_second,
                    if c.p_value < 1e-300 {
                        "< 1e-300".to_owned()
                    } else {
                        format!("{:.2e}", c.p_value)
                    },
                );
            }
        }
        // The models the known answer does not test, by the same metric, so that a preference
        // the KJV/WEB pair shows is not read into them.
        let others: Vec<String> = results
            .period_pairs
            .iter()
            .filter(|r| !period_models::LABELS[..2].contains(&r.model.as_str()))
            .filter_map(|r| {
                let share = &r
                    .summary
                    .iter()
                    .find(|s| s.measure == Measure::Pll)?
                    .overall;
                let (score, [lo, hi]) = (share.score?, share.interval?);
                Some(format!(
                    "{} {} ({score:.2} %, 95 % interval {lo:.1}–{hi:.1})",
                    r.model,
                    word(share.verdict)
                ))
            })
            .collect();
        if !others.is_empty() {
            let _ = writeln!(
                md,
                "Outside the known answer, by the same metric: {}.\n",
                others.join("; ")
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use lmbias_runs::studies::crows::DataChecks;
    use lmbias_runs::studies::crows::summary::summarize;
    use lmbias_studies::testing::crows_pairs;

    use super::*;
    use crate::analysis::Results;
    use crate::period_models::LABELS;
    use crate::render::fixtures::provenance;
    use lmbias_runs::studies::crows::Measures;

    /// `stereotypical` of 100 verses the KJV way.
    fn run(model: &str, stereotypical: u64) -> CrowsRun {
        let pairs = crows_pairs("verse", stereotypical, 100);
        CrowsRun {
            provenance: provenance(model, &[], &[]),
            model: model.to_owned(),
            summary: summarize(&pairs, Measures::PAPERS),
            data_checks: DataChecks {
                identical: vec![],
                same_pieces: vec![],
                several_spans: vec![],
                unequal_spans: vec![],
                duplicates: vec![],
                repeated_ids: vec![],
                group_terms: None,
                max_span_gap: 3,
                excluded: vec![],
            },
            pairs,
        }
    }

    /// The period pairs speak of their two wordings, and a model the known answer does not
    /// test is said to prefer neither beside the bold verdict, with its score and interval.
    #[test]
    fn the_period_pairs_name_their_wordings_and_the_model_outside_the_answer() {
        let results = Results {
            period_pairs: vec![run(LABELS[0], 70), run(LABELS[1], 30), run(LABELS[2], 50)],
            ..Results::default()
        };
        let analysis = Analysis::of(results);
        let mut md = String::new();
        section(&mut md, &analysis);
        assert!(md.contains("**Known answer holds.**"), "{md}");
        assert!(
            md.contains(
                "Outside the known answer, by the same metric: MiniLM + Shakespeare (trained \
                 here) prefers neither significantly (50.00 %, 95 % interval 39.8–60.2)."
            ),
            "{md}"
        );
        let dir = std::env::temp_dir().join(format!("lmbias-period-words-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        files(&dir, &analysis).unwrap();
        let tables = std::fs::read_to_string(dir.join("period-pairs.md")).unwrap();
        assert!(tables.contains("| KJV preferred |"), "{tables}");
        assert!(tables.contains("| prefers the KJV wording |"), "{tables}");
        assert!(tables.contains("| prefers the WEB wording |"), "{tables}");
        assert!(!tables.contains("stereotypical"), "{tables}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
