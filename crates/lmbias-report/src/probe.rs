//! Markdown for the categorical-association probe: one size's contingency
//! table with its χ² test (like Dusi 2024, Table 1), and a sweep summary.

use lmbias_studies::probe::{Association, ProbeStep};

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

#[cfg(test)]
mod tests {
    use super::*;

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
