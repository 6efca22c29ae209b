//! WEFE's five other metrics beside WEAT on Caliskan et al.'s WEAT 1–10 (issue #50): their
//! files (`seat/wefe/`: the rows as JSON, CSV and Markdown) and REPORT.md's "Beyond the
//! papers" section on them, which says that none of the three papers computes them.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use lmbias_papers::Marks;
use lmbias_runs::seat::SeatOutput;

use super::{write_file as write, write_json};
use crate::analysis::Analysis;

/// Caliskan et al.'s tables mark p with stars, as the English battery does.
const MARKS: Marks = Marks::Stars;

/// Writes `seat/wefe/` under the SEAT study's folder `dir`; nothing when no model ran it.
pub(super) fn files(dir: &Path, analysis: &Analysis) -> Result<()> {
    if analysis.results.wefe.is_empty() {
        return Ok(());
    }
    let sub = dir.join("wefe");
    std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
    write_json(
        &sub.join("results.json"),
        &SeatOutput::of(&analysis.results.wefe),
    )?;
    write(
        &sub.join("results.csv"),
        lmbias_report::seat::table(&analysis.wefe.rows).to_csv(),
    )?;
    write(
        &sub.join("results.md"),
        lmbias_report::seat::battery_markdown(&analysis.wefe, MARKS),
    )
}

/// REPORT.md's section.
pub(super) fn section(md: &mut String, analysis: &Analysis) {
    let _ = writeln!(
        md,
        "## Beyond the papers: WEFE's metrics on Caliskan et al.'s WEAT 1–10\n"
    );
    let mut models: Vec<&str> = Vec::new();
    for row in &analysis.wefe.rows {
        if !models.contains(&row.model.as_str()) {
            models.push(&row.model);
        }
    }
    let _ = writeln!(
        md,
        "None of the three papers computes these: this section is ours (issue #50). WEFE 1.0.1 \
         (Badilla et al. 2020) offers five association metrics besides WEAT: RND (Garg et al. \
         2018), RNSB (Sweeney & Najafian 2019), MAC (Manzini et al. 2019), ECT (Dev & Phillips \
         2019) and RIPA (Ethayarajh et al. 2019). lmbias computes them on the vectors WEAT \
         reads, here for the ten tests of Caliskan et al.'s Table 1 as sent-bias's word lists \
         give them (`datasets/seat/en/weat1.jsonl` … `weat10.jsonl`), on every model that ran \
         the SEAT study{}. Vectors as WEAT sees them: a static model's own, a checkpoint's \
         pooled vector of the word alone, not normalized (RND, RNSB and RIPA see a vector's \
         length; WEFE's default also leaves vectors as given). Each value equals WEFE's own \
         (`tests/tests/it/wefe_parity.rs`, GloVe 6B 50d through this pipeline and MiniLM's \
         vectors). Our readings (`docs/results-format.md`, \"WEFE's metrics\"): WEFE's RND, \
         ECT and RIPA take one attribute set, so each runs once against A and once against B; \
         RNSB classifies A against B; MAC uses all four sets. WEFE reports no test; ours are \
         RND's two-sided and ECT's lower-tail permutation tests over splits of X ∪ Y and \
         RIPA's two-sided sign flip of its pairs, Holm-adjusted across the ten tests within \
         each model, metric and attribute set ({}). RNSB and MAC pool the target sets, so no \
         permutation of them tests anything: they have no p. WEAT's rows for these ten tests \
         (Holm across the ten), with every value unrounded: `seat/wefe/results.md`, \
         `results.csv`, `results.json`.\n",
        if models.is_empty() {
            String::new()
        } else {
            format!(" ({})", models.join(", "))
        },
        MARKS.key()
    );
    if analysis.wefe.rows.is_empty() && analysis.wefe.refused.is_empty() {
        let _ = writeln!(md, "No model ran them in this run.\n");
        return;
    }
    md.push_str(&lmbias_report::seat::wefe_markdown(
        &analysis.wefe.rows,
        MARKS,
    ));
    md.push_str(&lmbias_report::seat::refused_markdown(
        &analysis.wefe.refused,
    ));
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use lmbias_runs::encoder::Role;
    use lmbias_runs::metrics::wefe::{Metric, MetricValue};
    use lmbias_runs::seat::SeatRun;
    use lmbias_runs::studies::seat::{Refusal, Refused, SetSizes};
    use lmbias_studies::testing::seat_row;

    use super::*;
    use crate::analysis::Results;
    use crate::render::fixtures::provenance;

    /// A value of `metric` with its Holm-adjusted p, as a battery sets it.
    fn value(metric: Metric, value: f64, p_holm: Option<f64>) -> MetricValue {
        MetricValue {
            metric,
            attribute: None,
            value: Some(value),
            undefined: None,
            test: None,
            p_holm,
            accuracy: None,
        }
    }

    /// The section and the files show the values the runs hold, under each model, with the
    /// tests the run refused; a run without them says so instead of printing an empty table.
    #[test]
    fn wefe_values_are_shown_per_model_with_refusals() {
        let mut row = seat_row("glove-6b-50d", "weat6", 1.8, 0.001);
        row.wefe = vec![
            value(Metric::Mac, 0.8123, None),
            value(Metric::Rnsb, 0.0456, None),
        ];
        let run = SeatRun {
            provenance: provenance("glove-6b-50d", &[], &[]),
            rows: vec![row],
            refused: vec![Refused {
                model: "glove-6b-50d".to_owned(),
                test: "weat1".to_owned(),
                lowercased_copy: false,
                reason: Refusal::EmptySet { set: Role::Attr1 },
                sizes: SetSizes {
                    targ1: 2,
                    targ2: 2,
                    attr1: 0,
                    attr2: 2,
                },
                lost: vec![],
            }],
        };
        let analysis = Analysis::of(Results {
            wefe: vec![run],
            ..Results::default()
        });
        let mut md = String::new();
        section(&mut md, &analysis);
        assert!(
            md.contains("on every model that ran the SEAT study (glove-6b-50d)"),
            "{md}"
        );
        assert!(
            md.contains("| glove-6b-50d | weat6 | 0.8123 | 0.0456 |"),
            "{md}"
        );
        assert!(
            md.contains("- glove-6b-50d · weat1: set attr1 lost all its examples"),
            "{md}"
        );

        let dir = std::env::temp_dir().join(format!("xtask-wefe-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        files(&dir, &analysis).unwrap();
        let csv = std::fs::read_to_string(dir.join("wefe/results.csv")).unwrap();
        assert!(
            csv.lines()
                .next()
                .unwrap()
                .ends_with(",mac,rnsb,rnsb_accuracy"),
            "{csv}"
        );
        let json = std::fs::read_to_string(dir.join("wefe/results.json")).unwrap();
        assert!(json.contains("\"metric\": \"mac\""), "{json}");
        let _ = std::fs::remove_dir_all(&dir);

        let mut none = String::new();
        section(&mut none, &Analysis::of(Results::default()));
        assert!(
            none.ends_with("No model ran them in this run.\n\n"),
            "{none}"
        );
        files(&dir, &Analysis::of(Results::default())).unwrap();
        assert!(!dir.exists());
    }
}
