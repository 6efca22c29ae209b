//! The probe's files (`probe/`: a p-against-n figure per model and pair, results.json, the
//! summary and our analogue of Dusi's Table 1) and its REPORT.md section.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use lmbias_papers::dusi;
use lmbias_report::papers::dusi as layout;
use lmbias_report::table::Table;
use lmbias_runs::probe::ProbeOutput;

use super::{reported, write_figure, write_file as write, write_json};
use crate::analysis::Analysis;

/// Writes the probe's files; unlike the other studies, also when every model failed
/// (empty tables say that it ran on none).
pub(super) fn files(dir: &Path, analysis: &Analysis) -> Result<()> {
    let runs = &analysis.probe;
    // One figure per model and pair, as Dusi's Figure 1 draws each pair, n up to the width.
    for run in runs {
        let series = lmbias_report::pvalue_curve::PValueSeries {
            label: run.pair.clone(),
            points: run.sweep.iter().map(|s| (s.n, s.p_value())).collect(),
        };
        let title = format!(
            "{}: χ² p against n (2 … {})\n{}",
            run.pair,
            run.width(),
            run.model
        );
        write_figure(
            &dir.join(lmbias_report::probe::figure_file(run)),
            &lmbias_report::pvalue_curve::pvalue_curve(&title, &[series]),
        )?;
    }
    write_json(
        &dir.join("results.json"),
        &ProbeOutput::of(&analysis.results.probe),
    )?;
    let summary = lmbias_report::probe::summary_table(runs);
    write(&dir.join("summary.md"), summary.to_markdown())?;
    write(&dir.join("summary.csv"), summary.to_csv())?;
    write(&dir.join("table-1.md"), layout::table_1_markdown(runs))
}

pub(super) fn section(md: &mut String, analysis: &Analysis) -> Result<()> {
    let _ = writeln!(md, "## Categorical-association probe (Dusi 2024)\n");
    reported(md, dusi::REPORTED);
    // Dusi 2024, Table 1, as the paper prints it: predictions down, actual values across.
    let table_1: Vec<Vec<u64>> = dusi::TABLE_1.iter().map(|r| r.to_vec()).collect();
    let readings = dusi::table_1_readings();
    let independence = readings
        .iter()
        .find(|r| r.name == dusi::INDEPENDENCE)
        .and_then(|r| Some((r.statistic?.1, r.p_value)))
        .context("the test of independence is one of Dusi's readings")?;
    let mut printed = Table::new(["n = 235", "positive", "negative", "total"]);
    for (class, row) in ["christian", "muslim"].into_iter().zip(&table_1) {
        let mut cells = vec![format!("predicted {class}")];
        cells.extend(row.iter().map(u64::to_string));
        cells.push(row.iter().sum::<u64>().to_string());
        printed.push(cells);
    }
    let column = |c: usize| table_1.iter().map(|r| r[c]).sum::<u64>();
    printed.push([
        "total".to_owned(),
        column(0).to_string(),
        column(1).to_string(),
        (column(0) + column(1)).to_string(),
    ]);
    let _ = writeln!(
        md,
        "Dusi's Table 1 (the paper's model is \"BERT … the base English version\"; \
         bert-base-uncased is our reading of it), and our χ² test of independence on its \
         counts: χ² = {:.4}, p = {:.4e}.\n\n{}",
        independence.0,
        independence.1,
        printed.to_markdown()
    );
    let runs = &analysis.probe;
    // Our adjective list's size: the total of any table of the religion × adjectives runs.
    let ours = runs
        .iter()
        .find(|r| dusi::pair_of(r).is_some_and(|p| p.stereotyped == "adjectives.csv"))
        .and_then(|r| r.sweep.first())
        .map_or(String::new(), |s| {
            format!(
                ", our adjective list {}",
                s.table.iter().flatten().sum::<u64>()
            )
        });
    readings_markdown(md, &readings);
    let _ = writeln!(
        md,
        "The paper states its null as \"equal probabilities for each predicted class\": the \
         fit above, within each stereotyped value, to a 50/50 split between the predicted \
         classes (df = 2). On the paper's table it has the same statistic as the test of \
         independence only because both rows total 120; where the predicted classes are of \
         unequal size, as in ours below, they part. The fit also rejects a classifier that \
         merely predicts one class more often whatever the stereotyped value, which is no \
         association at all (see the tables below whose predicted classes are unbalanced). We \
         headline the test of independence, which measures association, and give the fit beside \
         it under every table. The paper's table counts 240 adjectives (120 predicted in each \
         class){ours}.\n"
    );
    if runs.is_empty() {
        let _ = writeln!(md, "No model was available for the probe.\n");
        return Ok(());
    }
    let table = lmbias_report::probe::summary_table(runs);
    let _ = writeln!(
        md,
        "Ours, on our word lists (`datasets/probe/`), swept over n = 2 … hidden size; p is the \
         test of independence's. Figures, one per model and pair as the paper's Figure 1 draws \
         each pair, n up to the model's width: `probe/MODEL-PAIR-p-vs-n.svg` (and `.png`, `.pdf`); every table: \
         `probe/results.json`.\n\n{}",
        table.to_markdown()
    );
    let figures: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "![{}, {}: p against n](probe/{})",
                r.model,
                r.pair,
                lmbias_report::probe::figure_file(r)
            )
        })
        .collect();
    let _ = writeln!(
        md,
        "Dusi's Figure 1 finding beside ours. The paper: \"higher values of n includes noise … \
         obfuscating the underlying bias … Lower values of n … give a clean representation\". \
         Ours, per quarter of the sweep: how many sizes have p < 0.05, and their median p. \
         Numbers, not a verdict: the paper's finding is about its model, and none of ours is \
         it.\n\n{}\n{}\n",
        layout::n_quarters_table(runs).to_markdown(),
        figures.join("\n")
    );
    let _ = writeln!(
        md,
        "### Our analogue of Dusi's Table 1, in its layout (predicted protected class down, \
         the stereotyped words' actual class across), at the n the paper reports for each pair \
         and at the same share of the model's width\n\n{}",
        layout::table_1_markdown(runs)
    );
    Ok(())
}

/// Which test Dusi ran: every common reading of "a χ² test" of Table 1 with its p beside the
/// paper's, and the closest, so that the reader sees that none reproduces the printed p.
fn readings_markdown(md: &mut String, readings: &[dusi::Reading]) {
    let mut table = Table::new(["reading", "df", "statistic", "p", "p / the paper's"]);
    for r in readings {
        table.push([
            r.name.to_owned(),
            r.statistic.map_or("–".to_owned(), |(df, _)| df.to_string()),
            r.statistic
                .map_or("–".to_owned(), |(_, x)| format!("{x:.4}")),
            format!("{:.2e}", r.p_value),
            format!("{:.2}", r.p_value / dusi::TABLE_1_P),
        ]);
    }
    let closest = dusi::closest_reading(readings).map_or_else(
        || "none".to_owned(),
        |r| format!("the {}, p = {:.2e}", r.name, r.p_value),
    );
    let _ = writeln!(
        md,
        "Which test the paper ran. It prints p = {:.1e} for Table 1; no common reading of its \
         \"χ² test\" gives that p on the table's own counts. The readings, computed on Table 1 \
         (the last is the null the paper states):\n\n{}\nThe closest reading is {closest}: \
         the paper's number is not reproduced, only approached.\n",
        dusi::TABLE_1_P,
        table.to_markdown()
    );
}
