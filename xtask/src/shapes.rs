//! Our numbers in the shape of the papers' own tables, for REPORT.md and each
//! study's folder alike.

use std::fmt::Write as _;

use lmbias_studies::valence::ModelResult;

use crate::paper;
use crate::reproduce::{PROBE_PAIRS, ProbeRun};

/// Cuscito et al.'s Tables 1–3: each of the paper's example sentences with every
/// model's top-k proposals, x, p, B and A.
pub fn valence_examples(results: &[ModelResult]) -> String {
    let mut md = String::new();
    for (id, what) in paper::VALENCE_EXAMPLES {
        match lmbias_report::valence::example_table(results, id, 3) {
            Some(table) => {
                let _ = writeln!(md, "{what} (`{id}`):\n\n{}", table.to_markdown());
            }
            None => {
                let _ = writeln!(md, "{what} (`{id}`): not in the dataset.\n");
            }
        }
    }
    md
}

/// Dusi's Table 1 for each model and pair, at the n the paper reports for that pair.
pub fn probe_table_1(runs: &[ProbeRun]) -> String {
    let mut md = String::new();
    for run in runs {
        let Some(pair) = PROBE_PAIRS.iter().find(|p| p.name == run.pair) else {
            continue;
        };
        let n = pair.paper_n;
        match run.sweep.iter().find(|s| s.n == n) {
            Some(step) => {
                let _ = writeln!(
                    md,
                    "{} / {} at n = {n}:\n\n{}",
                    run.model,
                    run.pair,
                    lmbias_report::probe::step_markdown(step)
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
