//! The likelihood measures' files (`likelihood/`: the tables of CrowS-Pairs and of the period
//! pairs, every pair's raw scores and decisions as CSV, the summaries as JSON) and REPORT.md's
//! "Beyond the papers" section, which says that none of the three papers uses these measures.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use lmbias_report::crows as report;
use lmbias_report::table::Table;
use lmbias_runs::crows::{CrowsRun, ModelComparison, Relative};
use lmbias_runs::studies::crows::Measure;
use lmbias_runs::studies::crows::relative::RelativeMeasure;
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

/// results.json: each run without its pairs (those are in pairs.csv), the comparisons, and the
/// relative bias on CrowS-Pairs without its pairs (those are in relative.csv).
#[derive(Serialize)]
struct Summaries<'a> {
    crows_pairs: Vec<RunSummary<'a>>,
    period_pairs: Vec<RunSummary<'a>>,
    comparisons: &'a [Vec<ModelComparison>; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    relative: Option<RelativeSummary<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum RelativeSummary<'a> {
    Computed {
        base: &'a str,
        other: &'a str,
        measures: &'a [RelativeMeasure],
    },
    Failed {
        error: &'a str,
    },
}

impl<'a> RelativeSummary<'a> {
    fn of(relative: &'a Result<Relative, String>) -> RelativeSummary<'a> {
        match relative {
            Ok(r) => RelativeSummary::Computed {
                base: &r.base,
                other: &r.other,
                measures: &r.bias.measures,
            },
            Err(error) => RelativeSummary::Failed { error },
        }
    }
}

/// Every pair's difference of differences, a column per measure (raw values).
fn relative_table(relative: &Relative) -> Table {
    let measures: Vec<&str> = relative
        .bias
        .measures
        .iter()
        .map(|m| m.measure.as_str())
        .collect();
    let mut table = Table::new(
        ["base", "other", "id", "line", "bias_type"]
            .into_iter()
            .chain(measures.iter().copied())
            .map(String::from),
    );
    for pair in &relative.bias.pairs {
        let mut cells = vec![
            relative.base.clone(),
            relative.other.clone(),
            pair.id.clone(),
            pair.line.to_string(),
            pair.bias_type.clone(),
        ];
        cells.extend(measures.iter().map(|m| {
            pair.differences
                .get(*m)
                .map_or_else(String::new, ToString::to_string)
        }));
        table.push(cells);
    }
    table
}

/// The relative bias's table and note, or why it could not be computed.
fn relative_markdown(relative: &Result<Relative, String>) -> String {
    match relative {
        Ok(r) => report::relative_table(&r.base, &r.other, &r.bias),
        Err(why) => format!("The relative bias could not be computed: {why}.\n"),
    }
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
    let mut crows_md = set_markdown(
        "CrowS-Pairs, scored by likelihood",
        &results.crows,
        crows_cmp,
        report::STEREOTYPES,
    );
    if let Some(relative) = &analysis.relative {
        let _ = write!(
            crows_md,
            "\n## {} relative to {}\n\n{}",
            period_models::LABELS[1],
            period_models::LABELS[0],
            relative_markdown(relative)
        );
    }
    write(&dir.join("crows-pairs.md"), crows_md)?;
    if let Some(Ok(relative)) = &analysis.relative {
        write(&dir.join("relative.csv"), relative_table(relative).to_csv())?;
    }
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
            relative: analysis.relative.as_ref().map(RelativeSummary::of),
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
         the modified tokens), AUL and AULA (Kaneko & Bollegala 2022: the unmasked sentence); \
         on CrowS-Pairs also mlm-bias 0.1.7's (Zalkikar & Chandra 2025, issue #50): CRR and \
         ΔP (every token of the punctuation-stripped sentence masked alone: 1 − 1/rank of the \
         true token, log p_top − log p_true), CRRA and ΔPA (the same weighted by attention) \
         and SSS as mlm-bias computes it (sss_mlm_bias), each equal to mlm-bias's own on the \
         fixtures (`tests/tests/it/mlm_bias_parity.rs`). Beside each percentage, which the \
         originals report bare: an exact two-sided binomial test against 50 % with a Clopper–Pearson interval, uncorrected (95 %) for all pairs \
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
        if let Some(relative) = &analysis.relative {
            let (kjv, web) = (period_models::LABELS[0], period_models::LABELS[1]);
            let _ = writeln!(
                md,
                "#### Relative bias: {web} against {kjv}\n\nmlm-bias's relative bias between \
                 two models, here the two period models trained from one base on two Bibles: \
                 for each CrowS pair, how much more the WEB model prefers the more stereotypical \
                 sentence than the KJV model does (issue #50; every pair's d in \
                 `likelihood/relative.csv`).\n\n{}",
                relative_markdown(relative)
            );
        }
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

    /// `stereotypical` of `pairs` verses the KJV way.
    fn run(model: &str, stereotypical: u64, pairs: u64) -> CrowsRun {
        let pairs = crows_pairs("verse", stereotypical, pairs);
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
            period_pairs: vec![
                run(LABELS[0], 70, 100),
                run(LABELS[1], 30, 100),
                run(LABELS[2], 50, 100),
            ],
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

    /// The WEB model's bias relative to the KJV model's is shown under CrowS-Pairs, with every
    /// pair's d in relative.csv; when the two read a pair as different pieces, REPORT.md says
    /// why there is none, and no relative.csv is written.
    #[test]
    fn the_relative_bias_of_web_against_kjv_is_shown_or_why_not() {
        let kjv = run(LABELS[0], 60, 100);
        let mut web = run(LABELS[1], 30, 100);
        // 40 pairs whose sent_more the WEB model finds likelier than the KJV model does.
        for pair in web.pairs.iter_mut().take(40) {
            pair.more.pll = 1.0;
        }
        let analysis = Analysis::of(Results {
            crows: vec![kjv.clone(), web.clone()],
            ..Results::default()
        });
        let mut md = String::new();
        section(&mut md, &analysis);
        assert!(
            md.contains(
                "#### Relative bias: MiniLM + WEB (trained here) against MiniLM + KJV (trained \
                 here)"
            ),
            "{md}"
        );
        let pll = md.lines().find(|l| l.starts_with("| pll |")).unwrap();
        assert!(pll.starts_with("| pll | 100 | 40 | 60 |"), "{pll}");
        let dir = std::env::temp_dir().join(format!("lmbias-relative-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        files(&dir, &analysis).unwrap();
        let csv = std::fs::read_to_string(dir.join("relative.csv")).unwrap();
        assert_eq!(csv.lines().count(), 101, "{csv}");
        assert!(
            csv.starts_with("base,other,id,line,bias_type,pll,"),
            "{csv}"
        );
        assert!(
            csv.contains(
                "\nMiniLM + KJV (trained here),MiniLM + WEB (trained here),verse-0,2,verse,1,"
            ),
            "{csv}"
        );
        let tables = std::fs::read_to_string(dir.join("crows-pairs.md")).unwrap();
        assert!(
            tables.contains("## MiniLM + WEB (trained here) relative to"),
            "{tables}"
        );
        std::fs::remove_dir_all(&dir).unwrap();

        // Different pieces: no relative bias, and the reason.
        web.pairs[0].more.tokens = vec!["verse".to_owned()];
        let analysis = Analysis::of(Results {
            crows: vec![kjv, web],
            ..Results::default()
        });
        let mut md = String::new();
        section(&mut md, &analysis);
        assert!(
            md.contains("The relative bias could not be computed: "),
            "{md}"
        );
        std::fs::create_dir_all(&dir).unwrap();
        files(&dir, &analysis).unwrap();
        assert!(!dir.join("relative.csv").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
