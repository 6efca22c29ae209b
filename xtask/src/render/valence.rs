//! The valence study's files (`valence/`: figures, tables, results.json, the period models'
//! training reports, the known-answer check) and its REPORT.md section.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use lmbias_papers::cuscito;
use lmbias_papers::known_answer::{KnownAnswer, KnownAnswerError};
use lmbias_report::table::Table;
use lmbias_runs::studies::corpus_valence::Agreement;
use lmbias_runs::studies::valence::ModelResult;
use lmbias_runs::valence::{ValenceOutput, ValenceRun};

use super::{reported, write_figure, write_file as write, write_json};
use crate::analysis::Analysis;
use crate::models::{ModelInfo, Skipped, Study};
use crate::period_models;

/// The known-answer check as the analysis holds it.
type KnownAnswerOutcome = Option<Result<KnownAnswer, KnownAnswerError>>;

pub(super) fn files(dir: &Path, analysis: &Analysis) -> Result<()> {
    let results = &analysis.results;
    if results.valence.is_empty() {
        return Ok(());
    }
    write_period_models(dir, &results.trained, &analysis.known_answer)?;
    write_valence_set(
        dir,
        &results.valence,
        &analysis.valence,
        results.corpus_agreement,
        Layout::Pretty,
    )?;
    write(
        &dir.join("examples.md"),
        crate::shapes::valence_examples(&analysis.valence),
    )?;
    for (name, runs, scored, layout) in [
        (
            "lexicon",
            &results.valence_lexicon,
            &analysis.valence_lexicon,
            Layout::Pretty,
        ),
        (
            "drawn",
            &results.valence_drawn,
            &analysis.valence_drawn,
            Layout::PerModel,
        ),
        (
            "plays",
            &results.valence_plays,
            &analysis.valence_plays,
            Layout::PerModel,
        ),
    ] {
        if !runs.is_empty() {
            let sub = dir.join(name);
            std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
            write_valence_set(&sub, runs, scored, None, layout)?;
        }
    }
    Ok(())
}

/// How the results are laid out: one indented results.json, or for the drawn set, whose every
/// proposal of 900 sentences is half a megabyte a model, one file per model on one line
/// (`results-<k>.json`, k from 1 in the report's model order), so that no file grows with the
/// number of models.
#[derive(Clone, Copy)]
enum Layout {
    Pretty,
    PerModel,
}

/// One valence set's figures, results.json and tables into `dir`.
fn write_valence_set(
    dir: &Path,
    runs: &[ValenceRun],
    results: &[ModelResult],
    agreement: Option<Agreement>,
    layout: Layout,
) -> Result<()> {
    use lmbias_report::valence::{
        Measure, comparison_table, figure, figure_file_name, group_table, sentence_table,
        sweep_table,
    };
    if let Some(first) = results.first() {
        for measure in Measure::ALL {
            write_figure(
                &dir.join(figure_file_name(measure, first.top_k)),
                &figure(results, measure),
            )?;
        }
    }
    match layout {
        Layout::Pretty => write_json(
            &dir.join("results.json"),
            &ValenceOutput::of(runs, agreement),
        )?,
        Layout::PerModel => {
            for (k, run) in runs.chunks(1).enumerate() {
                let output = ValenceOutput::of(run, agreement);
                write(
                    &dir.join(format!("results-{}.json", k + 1)),
                    serde_json::to_string(&output)? + "\n",
                )?;
            }
        }
    }
    let tables: [(&str, Table); 4] = [
        ("comparison", comparison_table(results, 3)),
        ("groups", group_table(results, 3)),
        ("k-sweep", sweep_table(results, 3)),
        ("sentences", sentence_table(results, 3)),
    ];
    for (name, table) in tables {
        write(&dir.join(format!("{name}.md")), table.to_markdown())?;
        write(&dir.join(format!("{name}.csv")), table.to_csv())?;
    }
    Ok(())
}

/// The period models' training reports and provenance (`period-models/`), and the
/// known-answer check on them (`known-answer.json`) when both ran and can be compared;
/// REPORT.md says why when they cannot.
fn write_period_models(
    dir: &Path,
    trained: &[period_models::Provenance],
    known_answer: &KnownAnswerOutcome,
) -> Result<()> {
    if !trained.is_empty() {
        let sub = dir.join("period-models");
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        for p in trained {
            write_json(&sub.join(format!("{}-training.json", p.short)), &p.report)?;
            write(
                &sub.join(format!("{}-training.md", p.short)),
                p.report.markdown(),
            )?;
        }
        write(
            &sub.join("PROVENANCE.md"),
            period_models::provenance_markdown(trained),
        )?;
    }
    if let Some(Ok(answer)) = known_answer {
        write_json(&dir.join("known-answer.json"), answer)?;
    }
    Ok(())
}

pub(super) fn section(
    md: &mut String,
    analysis: &Analysis,
    models: &[ModelInfo],
    skipped: &[Skipped],
) {
    let _ = writeln!(md, "## Temporal valence (Cuscito, Ferrara & Ruskov)\n");
    reported(md, cuscito::REPORTED);
    let valence = &analysis.valence;
    if valence.is_empty() {
        let _ = writeln!(
            md,
            "The valence study produced no results, so no `valence/` folder was written: it fills \
             masks, so it needs a model with a masked-language-modelling head (bert-base-uncased, \
             MacBERTh, BL Books, …); see the models above.\n"
        );
        known_answer_section(md, analysis, models, skipped);
        return;
    }
    let _ = writeln!(
        md,
        "Ours, on our 60 sentences (`datasets/valence/eme-me-60.json`), annotated sentence by \
         sentence with no global lexicon. Annotation keys a model cannot propose (not one piece \
         of its vocabulary, e.g. *hath* for bert-base-uncased) are skipped for it; how many each \
         model could use, and the share of its top-k probability mass that no source rated \
         (scored 0; the next table says which source rated the rest). A sentence more than {} \
         of whose top-k mass no source rated gets no B and no A and is left out of the means \
         and figures (our guard, not the paper's; `--max-unannotated-share`): {} of the {} \
         sentence scores here.\n\n{}",
        valence.first().map_or(0.0, |r| r.max_unannotated_share),
        valence.iter().map(|r| r.excluded().count()).sum::<usize>(),
        valence.iter().map(|r| r.sentences.len()).sum::<usize>(),
        lmbias_report::valence::coverage_table(valence, 3).to_markdown()
    );
    let _ = writeln!(
        md,
        "Every proposal the annotations leave is rated from the two Bibles' training verses \
         (our construction of the paper's Discussion: log-odds with an informative Dirichlet \
         prior, z-scored, thresholds 1.96 and 3.29, the word with its neighbour in the \
         sentence where the corpora hold the pair 5 times; `lmbias valence --valence-from`), so \
         that no mass is scored 0 unseen. The share of each model's top-k mass each source \
         rated:\n\n{}",
        lmbias_report::valence::source_table(valence, 3).to_markdown()
    );
    if let Some(agreement) = &analysis.results.corpus_agreement {
        let _ = writeln!(
            md,
            "How the corpus-derived valence agrees with our hand annotations where both rate a \
             word:{}",
            lmbias_report::valence::corpus_agreement(agreement, 3).replacen(
                "\n## Corpus-derived valence against the annotations\n",
                "",
                1
            )
        );
    }
    let _ = writeln!(
        md,
        "Mean bias B (−1 Early Modern … 1 Modern) and adequacy A per group. Figures: \
         `valence/*.svg` (and `.png`, `.pdf`); per-sentence numbers: `valence/sentences.csv`.\n\n{}",
        lmbias_report::valence::comparison_table(valence, 3).to_markdown()
    );
    if let Some(neutral) = cuscito::neutral_adequacy(valence) {
        let _ = writeln!(md, "{neutral}\n");
    }
    let lexicon = &analysis.valence_lexicon;
    if !lexicon.is_empty() {
        let _ = writeln!(
            md,
            "The same sentences with every proposal rated by the known answer's lexicon alone \
             (`datasets/valence/lexicon-v1.tsv`, a word it does not list 0; `lmbias valence \
             --lexicon`), the sentence annotations set aside (tables and figures: \
             `valence/lexicon/`):\n\n{}",
            lmbias_report::valence::comparison_table(lexicon, 3).to_markdown()
        );
    }
    let drawn = &analysis.valence_drawn;
    if !drawn.is_empty() {
        let _ = writeln!(
            md,
            "On the drawn sentences (`datasets/valence/kjv-web-drawn.json`: verses held out of \
             the period models' training, masked where the two Bibles' training verses rate the \
             words apart; every proposal rated by the lexicon alone), the group means (tables \
             and figures: `valence/drawn/`):\n\n{}",
            lmbias_report::valence::comparison_table(drawn, 3).to_markdown()
        );
    }
    let plays = &analysis.valence_plays;
    if !plays.is_empty() {
        let _ = writeln!(
            md,
            "On the play-line sentences (`datasets/valence/plays-wordnet.json`: Shakespeare's \
             speeches held out of his model's training and WordNet 3.0's example sentences, no \
             model's training text, masked where the lexicon rates a word of their period; every \
             proposal rated by the lexicon alone), the group means (tables and figures: \
             `valence/plays/`):\n\n{}",
            lmbias_report::valence::comparison_table(plays, 3).to_markdown()
        );
    }
    let _ = writeln!(
        md,
        "\n### Example sentences in the shape of the paper's Tables 1–3 (two of the paper's, one \
         of ours)\n\n{}",
        crate::shapes::valence_examples(valence)
    );
    known_answer_section(md, analysis, models, skipped);
}

/// The known-answer check on the two period models, when the run wanted them: the check, or
/// why it could not be made (a model skipped or failed, results that cannot be paired).
fn known_answer_section(
    md: &mut String,
    analysis: &Analysis,
    models: &[ModelInfo],
    skipped: &[Skipped],
) {
    let results = &analysis.results;
    let wanted = period_models::LABELS
        .iter()
        .any(|l| models.iter().any(|m| m.name == *l) || skipped.iter().any(|s| s.id == *l));
    if !wanted {
        return;
    }
    const HEADING: &str = "### Known answer: models trained here, claims fixed before the run";
    match &analysis.known_answer {
        Some(Ok(answer)) => {
            let agreement = results
                .lexicon_agreement
                .as_ref()
                .map(lexicon_agreement)
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "{}\n{agreement}The models (numbers: `valence/known-answer.json`; provenance, \
                 with the corpora's licences and digests and each training's time: \
                 `valence/period-models/PROVENANCE.md`):\n\n{}",
                lmbias_report::papers::known_answer::markdown(answer),
                period_models::summary_table(&results.trained).to_markdown()
            );
        }
        Some(Err(err)) => {
            let _ = writeln!(md, "{HEADING}\n\nThe check could not be made: {err}.\n");
        }
        None => {
            let missing: Vec<String> = period_models::LABELS
                .iter()
                .filter(|l| !results.valence.iter().any(|r| r.result.model == **l))
                .map(|l| {
                    let why = skipped
                        .iter()
                        .find(|s| s.id == *l && s.studies.contains(&Study::Valence))
                        .map(|s| format!("was skipped: {}", s.reason))
                        .or_else(|| {
                            results
                                .failures
                                .iter()
                                .find(|f| f.study == Study::Valence && f.model == *l)
                                .map(|f| format!("failed: {}", f.reason))
                        })
                        .unwrap_or_else(|| "did not run".to_owned());
                    format!("{l} {why}")
                })
                .collect();
            let _ = writeln!(
                md,
                "{HEADING}\n\nNot checked: the check compares the valence results of the period \
                 models trained here (a known-answer experiment, not the paper's models), the KJV \
                 and the WEB one at least, and {}.\n",
                missing.join("; ")
            );
        }
    }
}

/// Each rater against the lexicon that rates the known answer, on the hand set's annotated
/// pairs (issue #46): weighted κ and ρ, and what κ_lin below 0.5 means.
fn lexicon_agreement(raters: &crate::known_answer::RaterAgreement) -> String {
    let a = &raters.agreement;
    let cell = |x: Option<f64>| x.map_or("–".to_owned(), |x| format!("{x:.3}"));
    let mut table = Table::new([
        "rater",
        "κ (linear)",
        "κ (quadratic)",
        "Spearman's ρ",
        "reads",
    ]);
    let mut rows = vec![(
        "hand annotations, in context (`eme-me-60`)".to_owned(),
        &a.hand,
    )];
    for c in &a.corpora {
        rows.push((format!("{}, in context", c.rater), &c.in_context));
        rows.push((format!("{}, word alone", c.rater), &c.word_alone));
    }
    for (rater, scores) in rows {
        let reads = match scores.kappa_linear {
            Some(k) if k >= 0.5 => "κ_lin ≥ 0.5",
            Some(_) => "κ_lin below 0.5: the two rate period differently",
            None => "undefined",
        };
        table.push([
            rater,
            cell(scores.kappa_linear),
            cell(scores.kappa_quadratic),
            cell(scores.rho),
            reads.to_owned(),
        ]);
    }
    format!(
        "The other raters against the lexicon, on the {} annotated (sentence, word) pairs of \
         `eme-me-60` ({} of the words listed in the lexicon, the rest 0 by its rule). No verdict \
         above uses them: the hand annotations rate the hand set's proposals in the tables \
         before, the Bibles' corpus rater the proposals those leave. The two disjoint corpus \
         raters (issue #46) take their Modern side from WordNet 3.0's definitions (Debian's \
         wordnet-base; the play-line set's Modern sentences are WordNet's example sentences, \
         never its definitions) and use the default effect-size floor (|log-odds| ≥ ln 2) and \
         z thresholds; they are reported here so that their agreement can be judged, and rate \
         no claim. Their κ is set here beside the lexicon's verdicts.{}\n\n{}\n",
        a.pairs,
        a.listed,
        raters
            .not_computed
            .as_ref()
            .map(|why| format!(" **The disjoint raters were not computed in this run:** {why}."))
            .unwrap_or_default(),
        table.to_markdown()
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{info, valence};
    use super::*;
    use crate::analysis::Results;
    use crate::period_models::{LABELS, ROLES};
    use crate::reproduce::Failure;

    fn known_answer_of(results: Results, models: &[ModelInfo], skipped: &[Skipped]) -> String {
        let mut md = String::new();
        known_answer_section(&mut md, &Analysis::of(results), models, skipped);
        md
    }

    #[test]
    fn the_known_answer_section_checks_the_frozen_claims_with_holm() {
        // The KJV, Shakespeare and mixture models lean Early Modern on EME, WEB does not; the
        // dose falls B 0.1 → −0.6 along WEB, 25, 50, 75 %, KJV.
        let results = || super::super::fixtures::period_results([-0.6, 0.1, -0.3, 0.0, -0.2, -0.4]);
        let models: Vec<ModelInfo> = LABELS.iter().zip(ROLES).map(|(l, r)| info(l, r)).collect();
        let md = known_answer_of(results(), &models, &[]);
        assert!(
            md.starts_with("### Known answer: models trained here, claims fixed before the run\n"),
            "{md}"
        );
        // Five sentences a group: every difference the expected way reaches only p = 1/32
        // before correction; Holm over the 12 tests takes each above 0.05, so none holds.
        assert!(
            md.contains("**0 of 10 claims hold** after Holm's correction"),
            "{md}"
        );
        assert!(md.contains("| C1 |"), "{md}");
        assert!(
            md.contains("| 0.031 | exact, all 2^5 sign patterns |"),
            "{md}"
        );
        assert!(md.contains("#### Dose-response (D1)"), "{md}");
        assert!(md.contains("#### Dose-response (D2)"), "{md}");
        assert!(
            md.contains(lmbias_papers::known_answer::FROZEN_SHA256),
            "{md}"
        );
        assert!(md.contains("**History of this check, disclosed.**"), "{md}");
        assert!(md.contains("`valence/period-models/PROVENANCE.md`"), "{md}");
        // A run that wanted no period model has no such section.
        assert_eq!(known_answer_of(results(), &[], &[]), "");
    }

    /// The drawn set's results go one file per model, in model order, each the CLI's JSON
    /// for that model alone.
    #[test]
    fn the_drawn_set_writes_one_results_file_per_model() {
        let runs = vec![valence(LABELS[0], -0.6, 0.1), valence(LABELS[1], 0.1, 0.6)];
        let results: Vec<ModelResult> = runs.iter().map(|r| r.result.clone()).collect();
        let dir = std::env::temp_dir().join(format!("xtask-per-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_valence_set(&dir, &runs, &results, None, Layout::PerModel).unwrap();
        for (k, label) in [(1, LABELS[0]), (2, LABELS[1])] {
            let text = std::fs::read_to_string(dir.join(format!("results-{k}.json"))).unwrap();
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(json["results"].as_array().unwrap().len(), 1);
            assert_eq!(json["results"][0]["model"], label);
            assert_eq!(text.lines().count(), 1);
        }
        assert!(!dir.join("results.json").exists() && !dir.join("results-3.json").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_known_answer_section_says_which_period_model_is_missing_and_why() {
        let results = Results {
            valence_lexicon: vec![valence("bert-base-uncased", 0.0, 0.0)],
            valence: vec![valence("bert-base-uncased", 0.0, 0.0)],
            failures: vec![Failure {
                study: Study::Valence,
                model: LABELS[1].to_owned(),
                reason: "training MiniLM + WEB (trained here): disk full".to_owned(),
            }],
            ..Results::default()
        };
        let skipped = [Skipped {
            id: LABELS[0].to_owned(),
            studies: vec![Study::Valence],
            role: ROLES[0].to_owned(),
            reason: "the base sentence-transformers/all-MiniLM-L6-v2: no such folder".to_owned(),
            cause: None,
        }];
        let md = known_answer_of(results, &[info(LABELS[1], ROLES[1])], &skipped);
        assert_eq!(
            md,
            "### Known answer: models trained here, claims fixed before the run\n\nNot \
             checked: the check compares the valence results of the period models trained here \
             (a known-answer experiment, not the paper's models), the KJV and the WEB one at \
             least, and MiniLM + KJV (trained here) was skipped: the base \
             sentence-transformers/all-MiniLM-L6-v2: no such folder; MiniLM + WEB (trained here) \
             failed: training MiniLM + WEB (trained here): disk full; MiniLM + Shakespeare \
             (trained here) did not run; MiniLM + 25 % KJV (trained here) did not run; MiniLM + \
             50 % KJV (trained here) did not run; MiniLM + 75 % KJV (trained here) did not run.\n\n"
        );
    }
}
