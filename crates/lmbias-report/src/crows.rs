//! Tables of the likelihood measures on minimal pairs: per model and measure, every share
//! with its test, interval and verdict; the data checks; the comparisons of two models.
//! A share is called stereotypical only when its verdict says so (its interval above 50 %).

use lmbias_studies::crows::summary::{ALPHA, Comparison, LEVEL, MeasureSummary, Share, Verdict};
use lmbias_studies::crows::{DataChecks, Measure};

use crate::table::Table;

/// A p-value for a table: three significant digits, or "< 1e-300".
fn p(p: Option<f64>) -> String {
    match p {
        None => "–".into(),
        Some(p) if p < 1e-300 => "< 1e-300".into(),
        Some(p) if p < 1e-3 => format!("{p:.2e}"),
        Some(p) => format!("{p:.3}"),
    }
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Stereotypical => "stereotypical",
        Verdict::AntiStereotypical => "anti-stereotypical",
        Verdict::WithinChance => "within chance",
        Verdict::NoData => "no data",
    }
}

fn row(name: &str, s: &Share) -> Vec<String> {
    vec![
        name.to_owned(),
        s.pairs.to_string(),
        s.stereotypical.to_string(),
        s.ties.to_string(),
        s.score.map_or("–".into(), |x| format!("{x:.2}")),
        s.interval
            .map_or("–".into(), |[lo, hi]| format!("{lo:.1}–{hi:.1}")),
        p(s.p_value),
        p(s.holm_p),
        verdict(s.verdict).to_owned(),
    ]
}

/// One measure's table: all pairs, each direction, each bias type.
pub fn measure_table(summary: &MeasureSummary) -> Table {
    let mut table = Table::new([
        "subset",
        "pairs",
        "stereotypical",
        "ties",
        "score %",
        &format!("{:.0} % CI", LEVEL * 100.0),
        "p",
        "Holm p",
        "verdict",
    ]);
    table.push(row("all", &summary.overall));
    table.push(row("stereo", &summary.stereo));
    table.push(row("antistereo", &summary.antistereo));
    for (name, share) in &summary.bias_types {
        table.push(row(name, share));
    }
    table
}

/// The overall score of every model under every measure, one row per model.
pub fn overview(models: &[(&str, &[MeasureSummary])]) -> Table {
    let mut header = vec!["model".to_owned()];
    header.extend(Measure::ALL.iter().map(|m| m.as_str().to_owned()));
    let mut table = Table::new(header);
    for (model, summaries) in models {
        let mut cells = vec![(*model).to_owned()];
        for m in Measure::ALL {
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

/// The note under every overview: what the columns and the star mean.
pub fn overview_note() -> String {
    format!(
        "Score: % of pairs where the more stereotypical sentence scores higher (the originals' \
         percentage); in brackets the {:.0} % Clopper–Pearson interval over the pairs decided; \
         * the interval excludes 50 % and the exact two-sided binomial p < {ALPHA}. \
         pll: {}; bias_bench: {}; aul: {}; aula: {}.\n",
        LEVEL * 100.0,
        Measure::Pll.label(),
        Measure::BiasBench.label(),
        Measure::Aul.label(),
        Measure::Aula.label(),
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
pub fn model_section(model: &str, summaries: &[MeasureSummary], checks: &DataChecks) -> String {
    let mut out = format!("## {model}\n\n");
    for s in summaries {
        out.push_str(&format!("### {}\n\n", s.label));
        out.push_str(&measure_table(s).to_markdown());
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
) -> String {
    let mut md = title.map_or_else(String::new, |t| format!("# {t}\n\n"));
    let overview_rows: Vec<(&str, &[MeasureSummary])> =
        models.iter().map(|(m, s, _)| (*m, *s)).collect();
    md.push_str(&overview(&overview_rows).to_markdown());
    md.push('\n');
    md.push_str(&overview_note());
    for (model, summaries, checks) in models {
        md.push('\n');
        md.push_str(&model_section(model, summaries, checks));
    }
    if !compared.is_empty() {
        md.push_str("\n## Models compared on the same pairs\n\n");
        md.push_str(&comparisons(compared).to_markdown());
    }
    md
}
