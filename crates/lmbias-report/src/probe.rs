//! Markdown for the categorical-association probe: one size's contingency
//! table with its χ² test in the layout of Dusi 2024's Table 1, a sweep
//! summary, and per-run summaries of [`ProbeRun`]s. What the paper itself reports
//! (its pairs, its n, its Table 1 set beside ours) is lmbias-papers' `dusi`.

use std::fmt::Write as _;

use lmbias_studies::probe::{Association, ProbeRun, ProbeStep};

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
            if let Some(fit) = step.fit_equal_within_rows() {
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

/// One line per size: n, the table row by row, χ² and p; `exact` writes every digit (for
/// CSV), else three (for reading).
pub fn sweep_table(steps: &[ProbeStep], exact: bool) -> Table {
    let mut table = Table::new(["n", "table (rows: stereotyped, cols: predicted)", "χ²", "p"]);
    for step in steps {
        let cells: Vec<String> = step
            .table
            .iter()
            .map(|r| r.iter().map(u64::to_string).collect::<Vec<_>>().join(" "))
            .collect();
        let (chi2, p) = match &step.association {
            Association::Tested { chi2, p_value, .. } if exact => {
                (chi2.to_string(), p_value.to_string())
            }
            Association::Tested { chi2, p_value, .. } => (format!("{chi2:.3}"), p_text(*p_value)),
            Association::NotTestable { reason } => ("–".into(), format!("not testable: {reason}")),
        };
        table.push([step.n.to_string(), cells.join(" / "), chi2, p]);
    }
    table
}

/// [`sweep_table`] to read, as Markdown.
pub fn sweep_markdown(steps: &[ProbeStep]) -> String {
    sweep_table(steps, false).to_markdown()
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

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_studies::testing::{dusi_table_1 as paper_table_1, probe_step};

    fn step(table: Vec<Vec<u64>>) -> ProbeStep {
        probe_step(table)
    }

    fn table_1() -> ProbeStep {
        paper_table_1()
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

    fn run(pair: &str, width: usize, sweep: Vec<ProbeStep>) -> ProbeRun {
        ProbeRun {
            model: "m".into(),
            pair: pair.to_owned(),
            relevance_order: (0..width).collect(),
            sweep,
        }
    }

    fn at(n: usize, step: &ProbeStep) -> ProbeStep {
        ProbeStep { n, ..step.clone() }
    }

    #[test]
    fn runs_are_summarised() {
        let narrow = at(2, &step(vec![vec![30, 0], vec![25, 0]]));
        let wide = at(10, &table_1());
        let runs = [
            run("ethnicity × criminality", 10, vec![narrow.clone(), wide]),
            run("gender × salary", 2, vec![narrow]),
        ];
        assert_eq!(
            summary_table(&runs).to_markdown(),
            "| model | pair | min p | at n | sizes p < 0.05 | testable sizes |\n\
             |---|---|---|---|---|---|\n\
             | m | ethnicity × criminality | 1.202e-7 | 10 | 1 | 1/2 |\n\
             | m | gender × salary | not testable | – | 0 | 0/1 |\n"
        );
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
