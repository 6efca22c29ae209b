//! Markdown for the categorical-association probe: one size's contingency
//! table with its χ² test (like Dusi 2024, Table 1), a sweep summary, and
//! per-run summaries of [`ProbeRun`]s.

use std::fmt::Write as _;

use lmbias_studies::probe::{Association, ProbeRun, ProbeStep};

use crate::table::Table;

/// The table of one size: stereotyped classes down, predicted protected classes
/// across, with totals, then the test (or why there is none).
pub fn step_markdown(step: &ProbeStep) -> String {
    let mut header = vec![format!("n = {}", step.n)];
    header.extend(step.cols.iter().map(|c| format!("predicted {c}")));
    header.push("total".into());
    let mut table = Table::new(header);
    for (row, counts) in step.rows.iter().zip(&step.table) {
        let mut cells = vec![row.clone()];
        cells.extend(counts.iter().map(u64::to_string));
        cells.push(counts.iter().sum::<u64>().to_string());
        table.push(cells);
    }
    let mut totals = vec!["total".to_string()];
    totals.extend(
        (0..step.cols.len()).map(|c| step.table.iter().map(|r| r[c]).sum::<u64>().to_string()),
    );
    totals.push(step.table.iter().flatten().sum::<u64>().to_string());
    table.push(totals);
    // A blank line ends the table: GitHub would read the next line as one more row.
    format!(
        "{}\n\n{}\n",
        table.to_markdown().trim_end(),
        association_line(&step.association)
    )
}

fn association_line(association: &Association) -> String {
    match association {
        Association::Tested { chi2, dof, p_value } => {
            format!(
                "χ² = {chi2:.4} (df = {dof}, no Yates correction), p = {}",
                p_text(*p_value)
            )
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
            run.pair.name.to_owned(),
            p,
            n,
            significant.to_string(),
            format!("{testable}/{}", run.sweep.len()),
        ]);
    }
    table
}

/// Dusi's Table 1 for each run, at the n the paper reports for its pair (or a
/// line saying the model is too narrow for it), so the two can be read side by side.
pub fn table_1_markdown(runs: &[ProbeRun]) -> String {
    let mut md = String::new();
    for run in runs {
        let n = run.pair.paper_n;
        match run.at_paper_n() {
            Some(step) => {
                let _ = writeln!(
                    md,
                    "{} / {} at n = {n}:\n\n{}",
                    run.model,
                    run.pair,
                    step_markdown(step)
                );
            }
            None => {
                let _ = writeln!(
                    md,
                    "{} / {}: the paper's n = {n} exceeds the model's hidden size {}.\n",
                    run.model,
                    run.pair,
                    run.sweep.last().map_or(0, |s| s.n)
                );
            }
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

    #[test]
    fn dusi_table_1() {
        // Dusi 2024, Table 1: [[80, 40], [39, 81]] gives p = 1.2e-7 (χ² = 28.0186).
        let table1 = step(vec![vec![80, 40], vec![39, 81]]);
        let p = table1.p_value().unwrap();
        assert!((p - 1.2015e-7).abs() < 5e-12, "{p}");
        insta::assert_snapshot!(step_markdown(&table1));
    }

    #[test]
    fn runs_are_summarised_and_set_beside_the_papers_n() {
        let mut narrow = step(vec![vec![30, 0], vec![25, 0]]);
        narrow.n = 2;
        let mut wide = step(vec![vec![80, 40], vec![39, 81]]);
        wide.n = 10;
        let runs = [
            ProbeRun {
                model: "m".into(),
                pair: DUSI_PAIRS[2],
                relevance_order: vec![],
                sweep: vec![narrow.clone(), wide],
            },
            ProbeRun {
                model: "m".into(),
                pair: DUSI_PAIRS[1],
                relevance_order: vec![],
                sweep: vec![narrow],
            },
        ];
        assert_eq!(
            summary_table(&runs).to_markdown(),
            "| model | pair | min p | at n | sizes p < 0.05 | testable sizes |\n\
             |---|---|---|---|---|---|\n\
             | m | ethnicity × criminality | 1.202e-7 | 10 | 1 | 1/2 |\n\
             | m | gender × salary | not testable | – | 0 | 0/1 |\n"
        );
        let md = table_1_markdown(&runs);
        assert!(
            md.starts_with("m / ethnicity × criminality at n = 10:\n\n| n = 10 |"),
            "{md}"
        );
        assert!(
            md.ends_with(
                "m / gender × salary: the paper's n = 42 exceeds the model's hidden size 2.\n\n"
            ),
            "{md}"
        );
    }

    #[test]
    fn untestable_tables_say_why() {
        let out = step_markdown(&step(vec![vec![30, 0], vec![25, 0]]));
        assert!(
            out.ends_with("not testable: protected class \"muslim\" was never predicted\n"),
            "{out}"
        );
        let sweep = sweep_markdown(&[
            step(vec![vec![80, 40], vec![39, 81]]),
            step(vec![vec![30, 0], vec![25, 0]]),
        ]);
        assert!(
            sweep.contains("| 50 | 80 40 / 39 81 | 28.019 | 1.20e-7 |"),
            "{sweep}"
        );
    }
}
