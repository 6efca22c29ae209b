//! Our numbers in the shape of the papers' own tables, for REPORT.md and each
//! study's folder alike.

use std::fmt::Write as _;

use lmbias_runs::studies::valence::ModelResult;

/// Cuscito et al.'s Tables 1–3, one example sentence per group (two of them the
/// paper's, the Modern English one ours), with every model's top-k proposals, x,
/// p, B and A.
pub fn valence_examples(results: &[ModelResult]) -> String {
    let mut md = String::new();
    for (id, what) in lmbias_papers::cuscito::EXAMPLES {
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
