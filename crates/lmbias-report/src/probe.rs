//! Markdown for the categorical-association probe: one size's contingency
//! table with its χ² test in the layout of Dusi 2024's Table 1, a sweep
//! summary, and per-run summaries of [`ProbeRun`]s.

use std::fmt::Write as _;

use lmbias_metrics::chi2::chi2_equal_within_rows;
use lmbias_studies::probe::{Association, PAPER_WIDTH, ProbeRun, ProbeStep};

use crate::table::Table;

/// The order in which [`step_markdown`] prints the classes. A class it does not
/// name follows those it names, in sorted order.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassOrder<'a> {
    /// The protected classes the second SVM predicts: the table's rows.
    pub protected: &'a [&'a str],
    /// The stereotyped words' actual classes: the table's columns.
    pub stereotyped: &'a [&'a str],
}

/// Indices of `names` in the order `wanted` gives, the rest after them as they come.
fn ordered(names: &[String], wanted: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = wanted
        .iter()
        .filter_map(|w| names.iter().position(|n| n == w))
        .collect();
    let rest: Vec<usize> = (0..names.len()).filter(|i| !order.contains(i)).collect();
    order.extend(rest);
    order
}

/// One size's table as Dusi 2024 prints its Table 1: the predicted protected
/// classes down, the stereotyped words' actual classes across, with totals,
/// then the test (or why there is none).
pub fn step_markdown(step: &ProbeStep, order: ClassOrder<'_>) -> String {
    // `step.table[r][c]`: stereotyped class `rows[r]` predicted as protected `cols[c]`.
    let down = ordered(&step.cols, order.protected);
    let across = ordered(&step.rows, order.stereotyped);
    let mut header = vec![format!("n = {}", step.n)];
    header.extend(across.iter().map(|&r| step.rows[r].clone()));
    header.push("total".into());
    let mut table = Table::new(header);
    for &c in &down {
        let mut cells = vec![format!("predicted {}", step.cols[c])];
        cells.extend(across.iter().map(|&r| step.table[r][c].to_string()));
        cells.push(step.table.iter().map(|row| row[c]).sum::<u64>().to_string());
        table.push(cells);
    }
    let mut totals = vec!["total".to_string()];
    totals.extend(
        across
            .iter()
            .map(|&r| step.table[r].iter().sum::<u64>().to_string()),
    );
    totals.push(step.table.iter().flatten().sum::<u64>().to_string());
    table.push(totals);
    // A blank line ends the table: GitHub would read the next line as one more row.
    format!(
        "{}\n\n{}\n",
        table.to_markdown().trim_end(),
        association_line(step)
    )
}

/// The test of the step's table in both of Dusi's readings: the test of independence
/// first (the p the paper prints for its Table 1), then the fit to the null the paper
/// states, "equal probabilities for each predicted class" within each stereotyped value.
fn association_line(step: &ProbeStep) -> String {
    match &step.association {
        Association::Tested { chi2, dof, p_value } => {
            let mut line = format!(
                "χ² test of independence = {chi2:.4} (df = {dof}, no Yates correction), p = {}",
                p_text(*p_value)
            );
            // Rows are the stereotyped classes: each row's fit to equal predicted classes.
            if let Ok(fit) = chi2_equal_within_rows(&step.table) {
                let _ = write!(
                    line,
                    "; fit to equal predicted classes within each stereotyped value: χ² = {:.4} \
                     (df = {}), p = {}",
                    fit.chi2,
                    fit.df,
                    p_text(fit.p_value)
                );
            }
            line
        }
        Association::NotTestable { reason } => format!("not testable: {reason}"),
    }
}

/// Three significant digits; scientific below 0.001.
pub fn p_text(p: f64) -> String {
    if p == 0.0 {
        "0 (below f64 range)".into()
    } else if p < 1e-3 {
        format!("{p:.2e}")
    } else {
        format!("{p:.3}")
    }
}

/// One line per size: n, the table row by row, χ² and p.
pub fn sweep_markdown(steps: &[ProbeStep]) -> String {
    let mut table = Table::new(["n", "table (rows: stereotyped, cols: predicted)", "χ²", "p"]);
    for step in steps {
        let cells: Vec<String> = step
            .table
            .iter()
            .map(|r| r.iter().map(u64::to_string).collect::<Vec<_>>().join(" "))
            .collect();
        let (chi2, p) = match &step.association {
            Association::Tested { chi2, p_value, .. } => (format!("{chi2:.3}"), p_text(*p_value)),
            Association::NotTestable { reason } => ("–".into(), format!("not testable: {reason}")),
        };
        table.push([step.n.to_string(), cells.join(" / "), chi2, p]);
    }
    table.to_markdown()
}

/// Per model and pair: the smallest p over the sweep, where it occurs, and how
/// many sizes were testable.
pub fn summary_table(runs: &[ProbeRun]) -> Table {
    let mut table = Table::new([
        "model",
        "pair",
        "min p",
        "at n",
        "sizes p < 0.05",
        "testable sizes",
    ]);
    for run in runs {
        let (n, p) = run
            .min_p()
            .map_or(("–".to_owned(), "not testable".to_owned()), |(n, p)| {
                (n.to_string(), format!("{p:.3e}"))
            });
        let significant = run
            .sweep
            .iter()
            .filter(|s| s.p_value().is_some_and(|p| p < 0.05))
            .count();
        let testable = run.sweep.iter().filter(|s| s.p_value().is_some()).count();
        table.push([
            run.model.clone(),
            run.pair.clone(),
            p,
            n,
            significant.to_string(),
            format!("{testable}/{}", run.sweep.len()),
        ]);
    }
    table
}

/// The file of a run's p-against-n figure: one per model and pair, as Dusi's Figure 1
/// draws each pair.
pub fn figure_file(run: &ProbeRun) -> String {
    format!(
        "{}-{}-p-vs-n.svg",
        crate::file_stem(&run.model),
        crate::file_stem(&run.pair)
    )
}

/// Dusi's Figure 1 finding ("Lower values of n … give a clean representation") set
/// beside ours: per run, each quarter of the sweep (n from 2 to the model's width)
/// with how many of its sizes have p < 0.05 and their median p, so where along n
/// the association is clearest can be read off. Numbers only: the paper's finding is
/// about its model, so no verdict is drawn.
pub fn n_quarters_table(runs: &[ProbeRun]) -> Table {
    let mut table = Table::new([
        "model",
        "pair",
        "first quarter of n",
        "second",
        "third",
        "fourth",
    ]);
    for run in runs {
        let width = run.width().max(1);
        let mut cells = vec![run.model.clone(), run.pair.clone()];
        for quarter in 0..4 {
            let steps: Vec<&ProbeStep> = run
                .sweep
                .iter()
                .filter(|s| (s.n.max(1) * 4 - 1) / width == quarter)
                .collect();
            let (Some(first), Some(last)) = (steps.first(), steps.last()) else {
                cells.push("–".to_owned());
                continue;
            };
            let mut ps: Vec<f64> = steps.iter().filter_map(|s| s.p_value()).collect();
            ps.sort_by(f64::total_cmp);
            let significant = ps.iter().filter(|p| **p < 0.05).count();
            let median = match ps.len() {
                0 => "none testable".to_owned(),
                n if n % 2 == 1 => format!("median p {}", p_text(ps[n / 2])),
                n => format!("median p {}", p_text((ps[n / 2 - 1] + ps[n / 2]) / 2.0)),
            };
            cells.push(format!(
                "n {}–{}: {significant}/{} p < 0.05, {median}",
                first.n,
                last.n,
                steps.len()
            ));
        }
        table.push(cells);
    }
    table
}

/// Dusi's Table 1 for each run in the paper's layout: at the n the paper reports
/// for the pair and, for a model of another width than the paper's 768, at the
/// same share of the model's width (n = 235 of 768 is 118 of 384), so the two
/// can be read side by side. A model too narrow for the paper's n gets a line
/// saying so.
pub fn table_1_markdown(runs: &[ProbeRun]) -> String {
    let mut md = String::new();
    for run in runs {
        // Only the paper's pairs have a table in the paper to set beside.
        let Some(pair) = run.dusi_pair() else {
            continue;
        };
        let order = ClassOrder {
            protected: &pair.protected_classes,
            stereotyped: &pair.stereotyped_classes,
        };
        let n = pair.paper_n;
        let width = run.width();
        match run.at_paper_n() {
            Some(step) => {
                let _ = writeln!(
                    md,
                    "{} / {} at the paper's n = {n}:\n\n{}",
                    run.model,
                    run.pair,
                    step_markdown(step, order)
                );
            }
            None => {
                let _ = writeln!(
                    md,
                    "{} / {}: the paper's n = {n} exceeds the model's width {width}.\n",
                    run.model, run.pair,
                );
            }
        }
        let share = pair.n_at_paper_share(width);
        if width != PAPER_WIDTH
            && share != n
            && let Some(step) = run.at(share)
        {
            let _ = writeln!(
                md,
                "{} / {} at n = {share}, the paper's share of the width ({n} of {PAPER_WIDTH}, \
                 {share} of {width}):\n\n{}",
                run.model,
                run.pair,
                step_markdown(step, order)
            );
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_studies::probe::DUSI_PAIRS;

    fn step(table: Vec<Vec<u64>>) -> ProbeStep {
        let rows = vec!["negative".to_string(), "positive".to_string()];
        let cols = vec!["christian".to_string(), "muslim".to_string()];
        ProbeStep {
            n: 50,
            dims: vec![],
            association: Association::of_table(&rows, &cols, &table),
            rows,
            cols,
            table,
        }
    }

    /// Dusi 2024, Table 1, as the probe counts it: rows are the stereotyped classes
    /// (sorted: negative, positive), columns the predicted protected ones.
    fn table_1() -> ProbeStep {
        step(vec![vec![40, 81], vec![80, 39]])
    }

    const PAPER_ORDER: ClassOrder<'static> = ClassOrder {
        protected: &["christian", "muslim"],
        stereotyped: &["positive", "negative"],
    };

    #[test]
    fn dusi_table_1() {
        // Dusi 2024, Table 1: christian × positive 80, muslim × negative 81, column
        // totals 119 / 121; χ² = 28.0186, p = 1.2e-7.
        let table1 = table_1();
        let p = table1.p_value().unwrap();
        assert!((p - 1.2015e-7).abs() < 5e-12, "{p}");
        insta::assert_snapshot!(step_markdown(&table1, PAPER_ORDER));
    }

    #[test]
    fn classes_the_order_does_not_name_follow_in_sorted_order() {
        let md = step_markdown(&table_1(), ClassOrder::default());
        assert!(
            md.starts_with(
                "| n = 50 | negative | positive | total |\n|---|---|---|---|\n\
                 | predicted christian | 40 | 80 | 120 |\n\
                 | predicted muslim | 81 | 39 | 120 |\n\
                 | total | 121 | 119 | 240 |\n"
            ),
            "{md}"
        );
    }

    fn run(pair: usize, width: usize, sweep: Vec<ProbeStep>) -> ProbeRun {
        ProbeRun {
            model: "m".into(),
            pair: DUSI_PAIRS[pair].name.to_owned(),
            relevance_order: (0..width).collect(),
            sweep,
        }
    }

    fn at(n: usize, step: &ProbeStep) -> ProbeStep {
        ProbeStep { n, ..step.clone() }
    }

    #[test]
    fn runs_are_summarised_and_set_beside_the_papers_n() {
        let narrow = at(2, &step(vec![vec![30, 0], vec![25, 0]]));
        let wide = at(10, &table_1());
        let runs = [
            run(2, 10, vec![narrow.clone(), wide]),
            run(1, 2, vec![narrow]),
        ];
        assert_eq!(
            summary_table(&runs).to_markdown(),
            "| model | pair | min p | at n | sizes p < 0.05 | testable sizes |\n\
             |---|---|---|---|---|---|\n\
             | m | ethnicity × criminality | 1.202e-7 | 10 | 1 | 1/2 |\n\
             | m | gender × salary | not testable | – | 0 | 0/1 |\n"
        );
        let md = table_1_markdown(&runs);
        // ethnicity × criminality at the paper's n = 10 and at 10 × 10 / 768 → 2.
        assert!(
            md.starts_with("m / ethnicity × criminality at the paper's n = 10:\n\n| n = 10 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "m / ethnicity × criminality at n = 2, the paper's share of the width \
                 (10 of 768, 2 of 10):\n\n| n = 2 |"
            ),
            "{md}"
        );
        // Too narrow for the paper's n, it still gets the paper's share of its width.
        assert!(
            md.contains(
                "m / gender × salary: the paper's n = 42 exceeds the model's width 2.\n\n\
                 m / gender × salary at n = 2, the paper's share of the width (42 of 768, 2 of 2):"
            ),
            "{md}"
        );
    }

    #[test]
    fn quarters_of_the_sweep_count_significant_sizes() {
        let significant = table_1();
        let not = step(vec![vec![30, 31], vec![29, 30]]);
        let untestable = step(vec![vec![30, 0], vec![25, 0]]);
        // Width 8: quarters n ≤ 2, 3–4, 5–6, 7–8.
        let sweep = vec![
            at(2, &significant),
            at(3, &significant),
            at(4, &not),
            at(5, &not),
            at(6, &untestable),
            at(7, &not),
            at(8, &not),
        ];
        let md = n_quarters_table(&[run(0, 8, sweep)]).to_markdown();
        assert!(
            md.ends_with(
                "| m | religion × adjectives | n 2–2: 1/1 p < 0.05, median p 1.20e-7 | \
                 n 3–4: 1/2 p < 0.05, median p 0.499 | n 5–6: 0/2 p < 0.05, median p 0.998 | \
                 n 7–8: 0/2 p < 0.05, median p 0.998 |\n"
            ),
            "{md}"
        );
    }

    #[test]
    fn the_papers_share_of_the_width() {
        let religion = DUSI_PAIRS[0];
        // 235 of 768 is 30.6 %: 117.5 of MiniLM's 384 rounds to 118, 15.3 of GloVe's 50 to 15.
        assert_eq!(religion.n_at_paper_share(384), 118);
        assert_eq!(religion.n_at_paper_share(50), 15);
        assert_eq!(religion.n_at_paper_share(768), 235);
        assert_eq!(DUSI_PAIRS[2].n_at_paper_share(50), 2);
        // A model at the paper's width gets one table, at the paper's n.
        let md = table_1_markdown(&[run(0, 768, vec![at(235, &table_1())])]);
        assert_eq!(md.matches("| n = ").count(), 1, "{md}");
    }

    #[test]
    fn untestable_tables_say_why() {
        let out = step_markdown(&step(vec![vec![30, 0], vec![25, 0]]), PAPER_ORDER);
        assert!(
            out.ends_with("not testable: protected class \"muslim\" was never predicted\n"),
            "{out}"
        );
        let sweep = sweep_markdown(&[table_1(), step(vec![vec![30, 0], vec![25, 0]])]);
        assert!(
            sweep.contains("| 50 | 40 81 / 80 39 | 28.019 | 1.20e-7 |"),
            "{sweep}"
        );
    }
}
