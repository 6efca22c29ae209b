//! Dusi (2024)'s Table 1 and Figure 1 finding with our runs beside them, in the paper's
//! layout; what the paper says is lmbias-papers' `dusi`.

use std::fmt::Write as _;

use lmbias_papers::dusi::{PAPER_WIDTH, at_paper_n, pair_of};
use lmbias_studies::probe::{ProbeRun, ProbeStep};

use crate::probe::{ClassOrder, p_text, step_markdown};
use crate::table::Table;

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
        let Some(pair) = pair_of(run) else {
            continue;
        };
        let order = ClassOrder {
            protected: &pair.protected_classes,
            stereotyped: &pair.stereotyped_classes,
        };
        let n = pair.paper_n;
        let width = run.width();
        match at_paper_n(run) {
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
    use lmbias_papers::dusi::PAIRS;
    use lmbias_studies::testing::{dusi_table_1, probe_step};

    fn step(table: Vec<Vec<u64>>) -> ProbeStep {
        probe_step(table)
    }

    fn table_1() -> ProbeStep {
        dusi_table_1()
    }

    fn run(pair: usize, width: usize, sweep: Vec<ProbeStep>) -> ProbeRun {
        ProbeRun {
            model: "m".into(),
            pair: PAIRS[pair].name.to_owned(),
            relevance_order: (0..width).collect(),
            sweep,
        }
    }

    fn at(n: usize, step: &ProbeStep) -> ProbeStep {
        ProbeStep { n, ..step.clone() }
    }

    #[test]
    fn runs_are_set_beside_the_papers_n() {
        let narrow = at(2, &step(vec![vec![30, 0], vec![25, 0]]));
        let wide = at(10, &table_1());
        let runs = [
            run(2, 10, vec![narrow.clone(), wide]),
            run(1, 2, vec![narrow]),
        ];
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
    fn a_model_at_the_papers_width_gets_one_table_at_the_papers_n() {
        let md = table_1_markdown(&[run(0, 768, vec![at(235, &table_1())])]);
        assert_eq!(md.matches("| n = ").count(), 1, "{md}");
    }
}
