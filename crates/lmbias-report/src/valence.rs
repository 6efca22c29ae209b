//! Tables and figures of the temporal valence study (`lmbias_studies::valence`).

use lmbias_data::valence::Group;
use lmbias_studies::corpus_valence::{Agreement, Scores};
use lmbias_studies::valence::{K_SWEEP, ModelResult};

use crate::boxplot::{BoxPlot, BoxSeries};
use crate::svg::PALETTE;
use crate::table::Table;

/// The two per-sentence measures the paper plots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// B(m, s) = x·p, on [−1, 1].
    Bias,
    /// A(m, s) = 1 − |v(s) − B(m, s)| / 2, on [0, 1].
    Adequacy,
}

impl Measure {
    /// Both measures, in the paper's order (one figure each).
    pub const ALL: [Measure; 2] = [Measure::Bias, Measure::Adequacy];

    /// The name used in file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Bias => "bias",
            Measure::Adequacy => "adequacy",
        }
    }
}

/// One measure's distribution per sentence group, every model side by side within each group:
/// the shape of the paper's Figures 1 (B) and 2 (A). `results` share a dataset and k (the
/// first's are named).
pub fn figure(results: &[ModelResult], measure: Measure) -> String {
    let present = groups(results);
    let mut series = Vec::new();
    let mut clusters = Vec::new();
    for group in &present {
        let mut span = 0;
        for (i, result) in results.iter().enumerate() {
            let Some(g) = result.groups.iter().find(|g| g.group == *group) else {
                continue;
            };
            let dist = match measure {
                Measure::Bias => g.bias,
                Measure::Adequacy => g.adequacy,
            };
            let values = result
                .sentences
                .iter()
                .filter(|s| s.group == *group)
                .filter_map(|s| match measure {
                    Measure::Bias => s.bias,
                    Measure::Adequacy => s.adequacy,
                })
                .collect();
            series.push(BoxSeries {
                label: String::new(),
                values,
                q1: dist.q1,
                median: dist.median,
                q3: dist.q3,
                colour: PALETTE[i % PALETTE.len()],
            });
            span += 1;
        }
        clusters.push((group.to_string(), span));
    }
    let (title, y_label, y_range, guides) = match measure {
        Measure::Bias => (
            "bias B",
            "B(m, s) = Σ x·p   (−1 EME … +1 ME)",
            (-1.0, 1.0),
            vec![0.0],
        ),
        Measure::Adequacy => (
            "adequacy A",
            "A(m, s) = 1 − |v(s) − B| / 2",
            (0.0, 1.0),
            vec![],
        ),
    };
    let (dataset, k) = results
        .first()
        .map_or(("", 0), |r| (r.dataset.as_str(), r.top_k));
    BoxPlot {
        title: format!("{title} per sentence group, top-{k}"),
        x_label: format!("sentence group ({dataset}){}", left_out_note(results)),
        y_label: y_label.into(),
        y_range,
        guides,
        series,
        clusters,
        legend: results
            .iter()
            .enumerate()
            .map(|(i, r)| (r.model.clone(), PALETTE[i % PALETTE.len()]))
            .collect(),
    }
    .to_svg()
}

/// "; N sentences left out (unannotated share > G)" when the guard left any out of `results`,
/// else nothing: a figure or table without them says so beside what it shows.
fn left_out_note(results: &[ModelResult]) -> String {
    let n: usize = results.iter().map(|r| r.excluded().count()).sum();
    match (n, results.first()) {
        (0, _) | (_, None) => String::new(),
        (n, Some(r)) => format!(
            "; {n} sentence{} left out: unannotated share > {}",
            if n == 1 { "" } else { "s" },
            r.max_unannotated_share
        ),
    }
}

/// `<measure>-k<k>.svg`: one figure per measure, every model in it.
pub fn figure_file_name(measure: Measure, top_k: usize) -> String {
    format!("{}-k{top_k}.svg", measure.as_str())
}

fn num(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    // "-0.000" would read as a (tiny) negative bias.
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_owned()
    } else {
        s
    }
}

/// Groups present in any result, in scale order.
fn groups(results: &[ModelResult]) -> Vec<Group> {
    Group::ALL
        .into_iter()
        .filter(|g| {
            results
                .iter()
                .any(|r| r.groups.iter().any(|s| s.group == *g))
        })
        .collect()
}

/// One row per model: mean B and mean A per group (the model comparison).
pub fn comparison_table(results: &[ModelResult], digits: usize) -> Table {
    let groups = groups(results);
    let mut header = vec!["model".to_owned(), "k".to_owned()];
    header.extend(groups.iter().map(|g| format!("mean B {g}")));
    header.extend(groups.iter().map(|g| format!("mean A {g}")));
    let mut table = Table::new(header);
    for r in results {
        let cell = |g: &Group, a: bool| {
            r.groups
                .iter()
                .find(|s| s.group == *g)
                .map_or("–".to_owned(), |s| {
                    num(if a { s.adequacy.mean } else { s.bias.mean }, digits)
                })
        };
        let mut row = vec![r.model.clone(), r.top_k.to_string()];
        row.extend(groups.iter().map(|g| cell(g, false)));
        row.extend(groups.iter().map(|g| cell(g, true)));
        table.push(row);
    }
    table
}

/// Per model and group: n scored and left out, mean, median, quartiles and IQR of B and A,
/// mean unannotated share.
pub fn group_table(results: &[ModelResult], digits: usize) -> Table {
    let mut table = Table::new([
        "model",
        "k",
        "group",
        "n",
        "left out",
        "B mean",
        "B median",
        "B q1",
        "B q3",
        "B IQR",
        "A mean",
        "A median",
        "A q1",
        "A q3",
        "A IQR",
        "unannotated share",
    ]);
    for r in results {
        for g in &r.groups {
            let mut row = vec![
                r.model.clone(),
                r.top_k.to_string(),
                g.group.to_string(),
                g.bias.n.to_string(),
                g.excluded.to_string(),
            ];
            for d in [g.bias, g.adequacy] {
                row.extend([d.mean, d.median, d.q1, d.q3, d.iqr].map(|v| num(v, digits)));
            }
            row.push(num(g.mean_unannotated_share, digits));
            table.push(row);
        }
    }
    table
}

/// Mean B per model and group at each k of the sweep, with the mean unannotated share that
/// comes with it.
pub fn sweep_table(results: &[ModelResult], digits: usize) -> Table {
    let mut header = vec!["model".to_owned(), "group".to_owned()];
    header.extend(K_SWEEP.iter().map(|k| format!("mean B k={k}")));
    header.extend(K_SWEEP.iter().map(|k| format!("unannotated share k={k}")));
    header.extend(K_SWEEP.iter().map(|k| format!("left out k={k}")));
    let mut table = Table::new(header);
    for r in results {
        // Every group the sweep has, even one the guard emptied at the chosen k.
        let swept = Group::ALL
            .into_iter()
            .filter(|g| r.k_sweep.iter().any(|p| p.group == *g));
        for group in swept {
            let points: Vec<_> = K_SWEEP
                .iter()
                .map(|k| r.k_sweep.iter().find(|p| p.k == *k && p.group == group))
                .collect();
            let mut row = vec![r.model.clone(), group.to_string()];
            row.extend(
                points
                    .iter()
                    .map(|p| score(p.and_then(|p| p.mean_bias), digits)),
            );
            row.extend(
                points
                    .iter()
                    .map(|p| score(p.and_then(|p| p.mean_unannotated_share), digits)),
            );
            row.extend(
                points
                    .iter()
                    .map(|p| p.map_or("–".into(), |p| p.excluded.to_string())),
            );
            table.push(row);
        }
    }
    table
}

/// A sentence's id, group, v, B, A (– when left out) and unannotated share, as both sentence
/// tables give them.
fn sentence_cells(s: &lmbias_studies::valence::SentenceScore, digits: usize) -> [String; 6] {
    [
        s.id.clone(),
        s.group.to_string(),
        s.valence.to_string(),
        score(s.bias, digits),
        score(s.adequacy, digits),
        num(s.unannotated_share, digits),
    ]
}

/// B or A, "–" for a sentence the guard left out.
fn score(v: Option<f64>, digits: usize) -> String {
    v.map_or("–".to_owned(), |v| num(v, digits))
}

/// Every sentence of every model: v, B, A (– when left out), unannotated share and the
/// proposals as `token p (x)`, `?` for an unrated one.
pub fn sentence_table(results: &[ModelResult], digits: usize) -> Table {
    let mut table = Table::new([
        "model",
        "k",
        "id",
        "group",
        "v",
        "B",
        "A",
        "unannotated share",
        "proposals",
    ]);
    for r in results {
        for s in &r.sentences {
            let proposals: Vec<String> = s
                .tokens
                .iter()
                .map(|t| {
                    let x = match t.annotation {
                        lmbias_data::valence::AnnotationSource::None => "?".to_owned(),
                        _ => t.valence.to_string(),
                    };
                    format!("{} {} ({x})", t.token, num(t.prob, digits))
                })
                .collect();
            let mut row = vec![r.model.clone(), r.top_k.to_string()];
            row.extend(sentence_cells(s, digits));
            row.push(proposals.join("; "));
            table.push(row);
        }
    }
    table
}

/// Proposed tokens without an annotation, most probability first, per model.
pub fn unannotated_table(results: &[ModelResult], digits: usize) -> Table {
    let mut table = Table::new(["model", "token", "count", "total prob", "sentences"]);
    for r in results {
        for u in &r.unannotated {
            table.push([
                r.model.clone(),
                u.token.clone(),
                u.count.to_string(),
                num(u.total_prob, digits),
                u.sentences.join(" "),
            ]);
        }
    }
    table
}

/// Per model, the share of its top-k probability mass that each source rated: the sentence's
/// hand annotations, the dataset's lexicon, the period corpora, or nothing (scored 0).
pub fn source_table(results: &[ModelResult], digits: usize) -> Table {
    let mut table = Table::new(["model", "annotations", "lexicon", "corpora", "unrated"]);
    for r in results {
        let [a, l, c, n] = r.source_shares().map(|(_, share)| num(share, digits));
        table.push([r.model.clone(), a, l, c, n]);
    }
    table
}

/// Per model, how many annotation and lexicon keys its vocabulary can propose
/// (the others are skipped: see `lmbias_studies::valence::Coverage`), and the
/// share of its top-k probability mass that no annotation covered (scored 0).
pub fn coverage_table(results: &[ModelResult], digits: usize) -> Table {
    let mut table = Table::new([
        "model",
        "k",
        "annotation keys usable",
        "lexicon keys usable",
        "unannotated share of top-k mass (all sentences)",
        "keys it cannot propose",
    ]);
    for r in results {
        let c = &r.coverage;
        table.push([
            r.model.clone(),
            r.top_k.to_string(),
            format!("{}/{}", c.annotation_usable, c.annotation_keys),
            format!("{}/{}", c.lexicon_usable, c.lexicon_keys),
            r.unannotated_share()
                .map_or("–".to_owned(), |v| num(v, digits)),
            if c.unusable.is_empty() {
                "none".to_owned()
            } else {
                c.unusable.join(", ")
            },
        ]);
    }
    table
}

/// One sentence in the shape of Cuscito et al.'s Tables 1–3: per model, its
/// top-k proposals with x and p, then B and A. `None` when no result has the sentence.
pub fn example_table(results: &[ModelResult], id: &str, digits: usize) -> Option<Table> {
    let mut table = Table::new(["model", "rank", "token", "x", "p", "B", "A"]);
    let mut found = false;
    for r in results {
        let Some(s) = r.sentences.iter().find(|s| s.id == id) else {
            continue;
        };
        found = true;
        for (rank, t) in s.tokens.iter().enumerate() {
            let x = match t.annotation {
                lmbias_data::valence::AnnotationSource::None => "–".to_owned(),
                _ => t.valence.to_string(),
            };
            let (b, a) = if rank == 0 {
                (score(s.bias, digits), score(s.adequacy, digits))
            } else {
                (String::new(), String::new())
            };
            table.push([
                if rank == 0 {
                    r.model.clone()
                } else {
                    String::new()
                },
                (rank + 1).to_string(),
                t.token.clone(),
                x,
                num(t.prob, digits),
                b,
                a,
            ]);
        }
    }
    found.then_some(table)
}

/// Every sentence of every model, short: v, B, A (– when left out) and the unannotated share,
/// without the proposals ([`sentence_table`] has them).
pub fn sentence_scores(results: &[ModelResult], digits: usize) -> Table {
    let mut table = Table::new(["model", "id", "group", "v", "B", "A", "unannotated share"]);
    for r in results {
        for s in &r.sentences {
            let mut row = vec![r.model.clone()];
            row.extend(sentence_cells(s, digits));
            table.push(row);
        }
    }
    table
}

/// What the guard did, for a report: the rule, then per model the sentences it left out.
fn guard_note(results: &[ModelResult]) -> String {
    let Some(first) = results.first() else {
        return String::new();
    };
    let mut out = format!(
        "A sentence whose unannotated share (the part of its top-k probability no annotation, \
         lexicon or corpus rated) exceeds {} has no B and no A (–) and is left out of the group \
         means and figures (our rule, not the paper's: a B resting mostly on unrated zeros would \
         read as neutral; `--max-unannotated-share 1` scores every sentence).",
        first.max_unannotated_share
    );
    for r in results {
        let ids: Vec<&str> = r.excluded().map(|s| s.id.as_str()).collect();
        if !ids.is_empty() {
            out.push_str(&format!(
                "\n\n{}: {} of {} sentences left out: {}.",
                r.model,
                ids.len(),
                r.sentences.len(),
                ids.join(", ")
            ));
        }
    }
    out
}

/// The Markdown report: coverage, model comparison, per-group summaries, the sweep over k
/// and every sentence's scores, with the formulas a reader needs to read them.
pub fn markdown(results: &[ModelResult], digits: usize) -> String {
    let dataset = results.first().map_or("", |r| r.dataset.as_str());
    format!(
        "# Temporal valence: {dataset}\n\n\
         B = Σ x·p over the top-k proposals (−1 Early Modern … +1 Modern); \
         A = 1 − |v − B| / 2. An unrated proposal counts as x = 0. {}\n\n\
         Quantiles: numpy's linear method.\n\n\
         ## Annotation keys each model can propose, and its unannotated share\n\n{}\n\
         ## Model comparison (group means)\n\n{}\n\
         ## Per group\n\n{}\n\
         ## Mean B as k grows\n\n{}\n\
         ## Per sentence\n\n{}",
        guard_note(results),
        coverage_table(results, digits).to_markdown(),
        comparison_table(results, digits).to_markdown(),
        group_table(results, digits).to_markdown(),
        sweep_table(results, digits).to_markdown(),
        sentence_scores(results, digits).to_markdown(),
    )
}

/// How period corpora's ratings agree with the dataset's sentence annotations (Markdown): in
/// context, as the study scores proposals, and word alone, which shows what context adds.
pub fn corpus_agreement(a: &Agreement, digits: usize) -> String {
    let mut table = Table::new(["rating", "κ (linear)", "κ (quadratic)", "Spearman's ρ"]);
    let cell = |v: Option<f64>| v.map_or("–".to_owned(), |v| num(v, digits));
    let mut row = |label: &str, s: &Scores| {
        table.push([
            label.to_owned(),
            cell(s.kappa_linear),
            cell(s.kappa_quadratic),
            cell(s.rho),
        ])
    };
    row("in context (as proposals are scored)", &a.with_context);
    row("word alone", &a.word_alone);
    format!(
        "\n## Corpus-derived valence against the annotations\n\n\
         {} annotated (sentence, word) pairs, {} of them rated with a neighbour in the sentence. \
         Weighted Cohen's κ on the five-point scale and Spearman's ρ (– where undefined):\n\n{}",
        a.pairs,
        a.in_context,
        table.to_markdown()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_never_show_negative_zero() {
        assert_eq!(num(-0.00001, 3), "0.000");
        assert_eq!(num(-0.0, 2), "0.00");
        assert_eq!(num(-0.25, 2), "-0.25");
    }
}
