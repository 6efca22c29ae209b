//! Tables and figures of a SEAT battery (`lmbias_studies::seat`), shared by
//! `lmbias seat` and `cargo xtask reproduce-paper`.

use lmbias_core::{Layer, Pooling, Role};
use lmbias_metrics::weat::{Alternative, StdKind};
use lmbias_metrics::wefe::Metric;
use lmbias_studies::seat::{BatteryResult, LostExample, Refused, SeatRow};

use lmbias_papers::Marks;

use crate::heatmap::{Frame, HeatmapLabels, SeatCell, SeatGrid, render_seat_heatmap};
use crate::table::Table;
use crate::wefe;

fn effect(row: &SeatRow) -> String {
    row.effect_size
        .map_or_else(|| "undefined".to_owned(), |d| format!("{d:.4}"))
}

fn flags(row: &SeatRow) -> String {
    let flags: Vec<String> = row.coverage.flags.iter().map(ToString::to_string).collect();
    flags.join("; ")
}

fn lost(examples: &[LostExample]) -> String {
    let lost: Vec<String> = examples.iter().map(ToString::to_string).collect();
    lost.join(", ")
}

/// A row's model as tables and figures name it: the model, or for a row of the
/// test's lower-cased copy "MODEL (lower-cased copy)", so the two runs of an
/// uncased model stand apart.
pub fn model_label(row: &SeatRow) -> String {
    if row.lowercased_copy {
        format!("{} (lower-cased copy)", row.model)
    } else {
        row.model.clone()
    }
}

/// Every number of every row, for CSV; `lost` lists the examples dropped (see
/// `lmbias_studies::seat::Lost`), as `set "text"` separated by commas.
pub fn table(rows: &[SeatRow]) -> Table {
    let columns = wefe_columns(rows);
    let mut table = Table::new(
        [
            "model",
            "test",
            "category_targ1",
            "category_targ2",
            "category_attr1",
            "category_attr2",
            "lowercased_copy",
            "pooling",
            "effect_size",
            "ddof",
            "p_value",
            "alternative",
            "exact",
            "p_holm",
            "p_bh",
            "size_targ1",
            "size_targ2",
            "size_attr1",
            "size_attr2",
            "coverage_flags",
            "lost",
        ]
        .into_iter()
        .map(String::from)
        .chain(wefe::csv_header(&columns)),
    );
    for r in rows {
        let mut cells: Vec<String> = vec![
            r.model.clone(),
            r.test.clone(),
            r.categories.targ1.clone(),
            r.categories.targ2.clone(),
            r.categories.attr1.clone(),
            r.categories.attr2.clone(),
            r.lowercased_copy.to_string(),
            r.pooling.to_string(),
            effect(r),
            r.std.ddof().to_string(),
            format!("{:.6}", r.p_value),
            side(r.alternative).to_owned(),
            r.exact.to_string(),
            format!("{:.6}", r.p_holm),
            format!("{:.6}", r.p_bh),
            r.sizes.targ1.to_string(),
            r.sizes.targ2.to_string(),
            r.sizes.attr1.to_string(),
            r.sizes.attr2.to_string(),
            flags(r),
            lost(&r.lost),
        ];
        cells.extend(wefe::csv_cells(&r.wefe, &columns));
        table.push(cells);
    }
    table
}

/// The (metric, attribute set) columns WEFE's metrics fill, from the first row that has them
/// (every row of a run asks for the same metrics).
fn wefe_columns(rows: &[SeatRow]) -> Vec<(Metric, Option<Role>)> {
    rows.iter()
        .find(|r| !r.wefe.is_empty())
        .map(|r| wefe::columns(&r.wefe))
        .unwrap_or_default()
}

/// WEFE's metrics, one row per (model, test): each value with its Holm-adjusted p's mark,
/// and a note on what each means; empty when no row has them.
pub fn wefe_markdown(rows: &[SeatRow], marks: Marks) -> String {
    let columns = wefe_columns(rows);
    if columns.is_empty() {
        return String::new();
    }
    let mut header = vec!["model".to_owned(), "test".to_owned()];
    header.extend(columns.iter().map(|&(metric, attribute)| match attribute {
        Some(role) => format!("{} wrt {}", metric.name().to_uppercase(), role.symbol()),
        None => metric.name().to_uppercase(),
    }));
    let mut table = Table::new(header);
    for r in rows {
        let mut cells = vec![model_label(r), r.test.clone()];
        for &column in &columns {
            let value = wefe::value(&r.wefe, column);
            cells.push(match value.and_then(|v| v.value) {
                None => "undefined".to_owned(),
                Some(x) => match value.and_then(|v| v.p_holm) {
                    // Three decimals would print a p below 0.0005 as "0.000".
                    Some(p) if p < 0.001 => format!("{x:.4}{} (p < 0.001)", marks.mark(p)),
                    Some(p) => format!("{x:.4}{} (p {p:.3})", marks.mark(p)),
                    None => format!("{x:.4}"),
                },
            });
        }
        table.push(cells);
    }
    let undefined: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.wefe.iter().filter_map(move |v| {
                v.undefined.as_ref().map(|why| {
                    format!(
                        "- {} · {} · {}: {why}\n",
                        model_label(r),
                        r.test,
                        wefe::key(v.metric, v.attribute)
                    )
                })
            })
        })
        .collect();
    let mut out = format!(
        "\nWEFE 1.0.1's metrics on the same vectors (p Holm-adjusted across each model's \
         battery within each column; marks as above):\n\n{}\n\
         RND (Garg et al. 2018): mean over a of ‖a − x̄‖ − ‖a − ȳ‖, < 0 when the attribute \
         words lie nearer X; p two-sided over splits of X ∪ Y. ECT (Dev & Phillips 2019): \
         Spearman's ρ between the attribute words' cosines to x̄ and to ȳ, 1 = no bias; p is \
         the lower tail over splits of X ∪ Y. RIPA (Ethayarajh et al. 2019): mean of a · \
         (xᵢ − yᵢ)/‖xᵢ − yᵢ‖, > 0 when A leans to X; p two-sided, pairs swapped. RNSB \
         (Sweeney & Najafian 2019): KL divergence from uniform of P(B | t) over all target \
         words, 0 = no bias. MAC (Manzini et al. 2019): mean cosine distance of the target \
         words to each attribute set. RNSB and MAC pool the target sets, so no permutation \
         of them tests anything: no p.\n",
        table.to_markdown()
    );
    if !undefined.is_empty() {
        out.push_str("\nUndefined values:\n\n");
        out.extend(undefined);
    }
    out
}

/// `one-sided` or `two-sided`.
fn side(alternative: Alternative) -> &'static str {
    match alternative {
        Alternative::Greater => "one-sided",
        Alternative::TwoSided => "two-sided",
    }
}

/// What every row shares, said once: the tails of p and the std of d, or "as each row's
/// CSV says" when rows differ (shards of one run never do).
fn shared<T: PartialEq + Copy>(rows: &[SeatRow], of: fn(&SeatRow) -> T) -> Option<T> {
    let first = of(rows.first()?);
    rows.iter().all(|r| of(r) == first).then_some(first)
}

/// A readable Markdown table with significance marks and a key. Each row names its four
/// sets (X vs Y × A vs B), the header says whether p is one- or two-sided, and a note says
/// what the sign of d means. Sizes are those used; a row that lost examples says how many
/// beside them, and a note lists them.
pub fn markdown(rows: &[SeatRow], marks: Marks) -> String {
    let p_header = match shared(rows, |r| r.alternative) {
        Some(a) => format!("p ({})", side(a)),
        None => "p".to_owned(),
    };
    let mut table = Table::new([
        "model",
        "test",
        "X vs Y × A vs B",
        "d",
        p_header.as_str(),
        "",
        "p (Holm)",
        "p (BH)",
        "exact",
        "sizes",
        "coverage",
    ]);
    for r in rows {
        table.push([
            model_label(r),
            r.test.clone(),
            r.categories.to_string(),
            effect(r),
            format!("{:.4}", r.p_value),
            marks.mark(r.p_value).to_owned(),
            format!("{:.4}{}", r.p_holm, marks.mark(r.p_holm)),
            format!("{:.4}{}", r.p_bh, marks.mark(r.p_bh)),
            if r.exact { "yes" } else { "sampled" }.to_owned(),
            format!(
                "{}/{}/{}/{}{}",
                r.sizes.targ1,
                r.sizes.targ2,
                r.sizes.attr1,
                r.sizes.attr2,
                match r.lost.len() {
                    0 => String::new(),
                    n => format!(" ({n} lost)"),
                }
            ),
            flags(r),
        ]);
    }
    let std = match shared(rows, |r| r.std) {
        Some(StdKind::Sample) => "sample std, ddof 1",
        Some(StdKind::Population) => "population std, ddof 0",
        None => "each row's std: see the CSV's ddof",
    };
    let tails = match shared(rows, |r| r.alternative) {
        Some(Alternative::Greater) => {
            "p is one-sided (sent-bias): the chance that a random equal split of X ∪ Y is at \
             least as far in that direction"
        }
        Some(Alternative::TwoSided) => {
            "p is two-sided: the chance that a random equal split of X ∪ Y is at least as far \
             in either direction"
        }
        None => "p is one- or two-sided as each row's CSV says",
    };
    let mut out = format!(
        "{}\n{}. Holm and BH adjust over each model's battery. \
         Coverage flags a target set with more than half its examples split into ≥3 pieces, \
         or any example with an unknown piece.\n\n\
         d is Cohen's d ({std}): d > 0 means X is more associated with A, relative to B, \
         than Y is; {tails}.\n",
        table.to_markdown(),
        marks.key().split("   ").collect::<Vec<_>>().join(", ")
    );
    let copies = lowercased_copies(rows);
    if !copies.is_empty() {
        let list: Vec<String> = copies
            .iter()
            .map(|(model, n)| format!("{model} ({n} test{})", if *n == 1 { "" } else { "s" }))
            .collect();
        out.push_str(&format!(
            "\nRows marked \"(lower-cased copy)\" ran the test's lower-cased copy, beside the file \
             as given, on the models whose tokenizer lower-cases: {}. Holm and BH adjust the copy's \
             rows among themselves, apart from the files as given.\n",
            list.join(", ")
        ));
    }
    let lost_rows: Vec<String> = rows
        .iter()
        .filter(|r| !r.lost.is_empty())
        .map(|r| format!("- {} · {}: {}\n", model_label(r), r.test, lost(&r.lost)))
        .collect();
    if !lost_rows.is_empty() {
        out.push_str(
            "\nLost examples (a word the model has no vector for: dropped before embedding, \
             not counted in the sizes):\n\n",
        );
        out.extend(lost_rows);
    }
    out
}

/// The tests a battery refused (a set emptied, or X and Y made unequal, by
/// dropping lost examples), one item each with its lost examples; empty when none was.
pub fn refused_markdown(refused: &[Refused]) -> String {
    if refused.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\nRefused tests (not run: dropping the examples with a word the model has no vector \
         for left a set empty, or X and Y of unequal size):\n\n",
    );
    for r in refused {
        out.push_str(&format!(
            "- {} · {}: {}; lost: {}\n",
            r.model,
            r.test,
            r.reason,
            lost(&r.lost)
        ));
    }
    out
}

/// [`markdown`] of the rows, then [`wefe_markdown`], then [`refused_markdown`].
pub fn battery_markdown(result: &BatteryResult, marks: Marks) -> String {
    markdown(&result.rows, marks)
        + &wefe_markdown(&result.rows, marks)
        + &refused_markdown(&result.refused)
}

/// Which sentence vector each model's rows used, for a figure's title: models
/// grouped by pooling in first-seen order, e.g. "mean pooling: MiniLM, GloVe; cls
/// pooling: bert-base-uncased".
pub fn pooling_label(rows: &[SeatRow]) -> String {
    let mut groups: Vec<(Pooling, Vec<&str>)> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|(p, _)| *p == r.pooling) {
            Some((_, models)) if models.contains(&r.model.as_str()) => {}
            Some((_, models)) => models.push(&r.model),
            None => groups.push((r.pooling, vec![&r.model])),
        }
    }
    groups
        .iter()
        .map(|(p, models)| format!("{p} pooling: {}", models.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `a` against `b` with each run of digits compared as a number: `weat2` before `weat10`,
/// `sent-weat6b` after `sent-weat6`.
pub fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out: Vec<(bool, &str)> = Vec::new();
        let mut start = 0;
        for (i, c) in s.char_indices().skip(1) {
            let prev = s[..i]
                .chars()
                .next_back()
                .is_some_and(|p| p.is_ascii_digit());
            if prev != c.is_ascii_digit() {
                out.push((prev, &s[start..i]));
                start = i;
            }
        }
        if !s.is_empty() {
            out.push((
                s[start..].starts_with(|c: char| c.is_ascii_digit()),
                &s[start..],
            ));
        }
        out
    }
    let (x, y) = (chunks(a), chunks(b));
    for (p, q) in x.iter().zip(&y) {
        let order = match (p, q) {
            ((true, m), (true, n)) => {
                let (m, n) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                m.len().cmp(&n.len()).then_with(|| m.cmp(n))
            }
            ((_, m), (_, n)) => m.cmp(n),
        };
        if order.is_ne() {
            return order;
        }
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

/// Per model, in first-seen order, how many of its tests also ran their lower-cased
/// copy (models that ran none are left out).
pub fn lowercased_copies(rows: &[SeatRow]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for r in rows.iter().filter(|r| r.lowercased_copy) {
        match out.iter_mut().find(|(m, _)| *m == r.model) {
            Some((_, n)) => *n += 1,
            None => out.push((r.model.clone(), 1)),
        }
    }
    out
}

/// The rows that are distinct results: a lower-cased copy's row equal to the files as
/// given (same model and test, same d and p: the tokenizer lower-cases, so the model saw
/// the same text) is one result, not two.
pub fn distinct_results(rows: &[SeatRow]) -> Vec<&SeatRow> {
    let repeats = |copy: &SeatRow| {
        copy.lowercased_copy
            && rows.iter().any(|r| {
                !r.lowercased_copy
                    && r.model == copy.model
                    && r.test == copy.test
                    && r.effect_size == copy.effect_size
                    && r.p_value == copy.p_value
            })
    };
    rows.iter().filter(|r| !repeats(r)).collect()
}

fn cell(r: &SeatRow, p_of: fn(&SeatRow) -> f64) -> SeatCell {
    SeatCell {
        p_value: p_of(r),
        // An undefined d (all scores equal) is drawn as no effect.
        effect_size: r.effect_size.unwrap_or(0.0),
    }
}

/// The two heatmaps of a battery, as `(file name, SVG)`: raw p and Holm-adjusted p,
/// each beside the effect sizes. `title` names the battery, pooling and layer.
pub fn heatmaps(rows: &[SeatRow], title: &str, marks: Marks) -> [(&'static str, String); 2] {
    // Tests in natural order (weat2 before weat10), as a reader looks them up.
    let mut rows: Vec<&SeatRow> = rows.iter().collect();
    rows.sort_by(|a, b| natural_order(&a.test, &b.test));
    let figure = |p_label: &str, p_of: fn(&SeatRow) -> f64| {
        let labels: Vec<String> = rows.iter().map(|r| model_label(r)).collect();
        let grid = SeatGrid::from_results(
            rows.iter()
                .zip(&labels)
                .map(|(r, model)| (model.as_str(), r.test.as_str(), cell(r, p_of))),
        );
        let labels = HeatmapLabels {
            title: title.to_owned(),
            p_label: p_label.to_owned(),
            marks,
            effect_sizes: true,
        };
        render_seat_heatmap(&grid, &labels, Frame::WHOLE)
    };
    [
        ("seat-heatmap.svg", figure("p", |r| r.p_value)),
        (
            "seat-heatmap-holm.svg",
            figure("p (Holm-adjusted)", |r| r.p_holm),
        ),
    ]
}

/// [`selected_heatmap`] in parts of at most `per_part` columns, one below the other in one
/// figure under one title and above one legend: a figure of many tests that reads at one page
/// width (Caglidil et al.'s Figure 1 has 19).
pub fn selected_heatmap_in_parts(
    rows: &[SeatRow],
    columns: &[(&str, &str)],
    labels: &HeatmapLabels,
    per_part: usize,
) -> Option<String> {
    // Only the columns some model ran are split, so that no part is empty.
    let ran: Vec<(&str, &str)> = columns
        .iter()
        .filter(|(_, test)| rows.iter().any(|r| r.test == *test))
        .copied()
        .collect();
    let chunks: Vec<&[(&str, &str)]> = ran.chunks(per_part.max(1)).collect();
    let parts: Vec<String> = chunks
        .iter()
        .enumerate()
        .filter_map(|(i, chunk)| {
            let frame = Frame {
                title: i == 0,
                legend: i + 1 == chunks.len(),
            };
            selected_in(rows, chunk, labels, frame)
        })
        .collect();
    (!parts.is_empty()).then(|| crate::svg::stack(&parts))
}

/// `rows` with each model named by the last part of its id or folder
/// (`sentence-transformers/all-MiniLM-L6-v2` → `all-MiniLM-L6-v2`) where no two models share
/// it, else as given: row labels short enough for a figure to read at page width.
pub fn with_short_names(rows: &[SeatRow]) -> Vec<SeatRow> {
    let short = |model: &str| -> String {
        let trimmed = model.trim_end_matches('/');
        trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
    };
    let mut models: Vec<&str> = rows.iter().map(|r| r.model.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    let mut names: Vec<String> = models.iter().map(|m| short(m)).collect();
    names.sort_unstable();
    let unique = names.windows(2).all(|w| w[0] != w[1]);
    rows.iter()
        .map(|r| SeatRow {
            model: if unique {
                short(&r.model)
            } else {
                r.model.clone()
            },
            ..r.clone()
        })
        .collect()
}

/// A heatmap with the models as rows (a lower-cased copy's rows as a row of
/// their own, see [`model_label`]) and the given tests as columns, each column
/// under its label (`(label, test name)`), in the given order; tests no model ran
/// are left out. `None` when none of them ran.
pub fn selected_heatmap(
    rows: &[SeatRow],
    columns: &[(&str, &str)],
    labels: &HeatmapLabels,
) -> Option<String> {
    selected_in(rows, columns, labels, Frame::WHOLE)
}

fn selected_in(
    rows: &[SeatRow],
    columns: &[(&str, &str)],
    labels: &HeatmapLabels,
    frame: Frame,
) -> Option<String> {
    let models: Vec<String> = rows.iter().map(model_label).collect();
    let mut triples = Vec::new();
    for (label, test) in columns {
        for (r, model) in rows.iter().zip(&models).filter(|(r, _)| r.test == *test) {
            triples.push((model.as_str(), *label, cell(r, |r| r.p_value)));
        }
    }
    if triples.is_empty() {
        return None;
    }
    let grid = SeatGrid::from_results(triples).transposed();
    Some(render_seat_heatmap(&grid, labels, frame))
}

/// "last layer" or "layer i", for titles.
pub fn layer_label(layer: Layer) -> String {
    match layer {
        Layer::Last => "last layer".to_owned(),
        Layer::Index(i) => format!("layer {i}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_core::Pooling;
    use lmbias_data::association::Role;
    use lmbias_studies::seat::{Refusal, SetSizes};
    use lmbias_studies::testing::seat_row;

    /// A Holm p below 0.0005 would print as "0.000" at three decimals: it reads "< 0.001".
    #[test]
    fn wefe_p_below_a_thousandth_is_not_printed_as_zero() {
        use lmbias_metrics::wefe::MetricValue;
        let value = |attribute, p_holm| MetricValue {
            metric: Metric::Rnd,
            attribute: Some(attribute),
            value: Some(-0.5),
            undefined: None,
            test: None,
            p_holm: Some(p_holm),
            accuracy: None,
        };
        let mut row = seat_row("m", "weat1", 1.0, 0.01);
        row.wefe = vec![value(Role::Attr1, 0.0002), value(Role::Attr2, 0.0123)];
        let md = wefe_markdown(&[row], Marks::Stars);
        assert!(
            md.contains("| m | weat1 | -0.5000*** (p < 0.001) | -0.5000* (p 0.012) |"),
            "{md}"
        );
    }

    fn sizes(targ1: usize, targ2: usize, attr1: usize, attr2: usize) -> SetSizes {
        SetSizes {
            targ1,
            targ2,
            attr1,
            attr2,
        }
    }

    fn lost(set: Role, text: &str) -> LostExample {
        LostExample {
            set,
            text: text.to_owned(),
        }
    }

    fn row(test: &str, lost: Vec<LostExample>) -> SeatRow {
        SeatRow {
            pooling: Pooling::Mean,
            test_statistic: 0.5,
            n_partitions: Some(70),
            n_evaluated: 70,
            p_holm: 0.02,
            sizes: sizes(8, 8, 8, 7),
            lost,
            ..seat_row("glove", test, 1.0, 0.01)
        }
    }

    /// Issue #49, item 4: a row says what its d and p mean: the four sets by name, the
    /// tails of p in the header and the std and the sign of d in the note below; CSV has
    /// them per row.
    /// Issue #49, item 6: test names sort as a reader expects, numbers by value.
    #[test]
    fn tests_sort_naturally() {
        let mut names = [
            "weat10",
            "weat2",
            "sent-weat6b",
            "weat1",
            "sent-weat6",
            "weat10b",
            "weat02",
        ];
        names.sort_by(|a, b| natural_order(a, b));
        assert_eq!(
            names,
            [
                "sent-weat6",
                "sent-weat6b",
                "weat1",
                "weat02",
                "weat2",
                "weat10",
                "weat10b"
            ]
        );
        let rows: Vec<SeatRow> = ["weat10", "weat2", "weat1"].map(|t| row(t, vec![])).into();
        let [(_, svg), _] = heatmaps(&rows, "t", Marks::Stars);
        let at = |name: &str| svg.find(&format!(">{name}<")).unwrap();
        assert!(
            at("weat1") < at("weat2") && at("weat2") < at("weat10"),
            "{svg}"
        );
    }

    /// Issue #49, item 6: a figure of many tests in parts, one below the other: one title,
    /// one legend, every column drawn once, p alone when asked; models by their short names
    /// unless two would share one.
    #[test]
    fn a_figure_in_parts_has_one_title_and_one_legend() {
        let tests = ["t1", "t2", "t3", "t4", "t5"];
        let rows: Vec<SeatRow> = tests
            .iter()
            .flat_map(|t| {
                ["org/bert", "other/roberta"].map(|m| SeatRow {
                    model: m.to_owned(),
                    ..row(t, vec![])
                })
            })
            .collect();
        let columns: Vec<(&str, &str)> = tests.iter().map(|t| (*t, *t)).collect();
        // A column no model ran is left out, not drawn as an empty part.
        let mut with_unrun = columns.clone();
        with_unrun.push(("never", "never"));
        let labels = HeatmapLabels {
            title: "Figure".to_owned(),
            p_label: "p".to_owned(),
            marks: Marks::Caglidil,
            effect_sizes: false,
        };
        let short = with_short_names(&rows);
        let svg = selected_heatmap_in_parts(&short, &with_unrun, &labels, 2).unwrap();
        let count = |needle: &str| svg.matches(needle).count();
        assert_eq!(count(">Figure</text>"), 1, "{svg}");
        assert_eq!(count("(log scale)"), 1, "{svg}");
        assert_eq!(count("<g transform="), 3, "three parts: {svg}");
        for t in tests {
            assert_eq!(count(&format!(">{t}</text>")), 1, "{t}");
        }
        assert_eq!(count(">never</text>"), 0);
        assert_eq!(count("effect size d"), 0);
        assert_eq!(count(">bert</text>"), 3, "{svg}");
        assert!(!svg.contains("org/bert"), "{svg}");
        let one = selected_heatmap(&short, &columns, &labels).unwrap();
        let width = |svg: &str| -> f64 {
            let w = svg.split(" width=\"").nth(1).unwrap();
            w.split('"').next().unwrap().parse().unwrap()
        };
        assert!(
            width(&svg) < 0.6 * width(&one),
            "{} vs {}",
            width(&svg),
            width(&one)
        );

        let clash: Vec<SeatRow> = ["a/bert", "b/bert"]
            .map(|m| SeatRow {
                model: m.to_owned(),
                ..row("t1", vec![])
            })
            .into();
        let kept: Vec<String> = with_short_names(&clash)
            .into_iter()
            .map(|r| r.model)
            .collect();
        assert_eq!(kept, ["a/bert", "b/bert"]);
    }

    #[test]
    fn rows_name_their_sets_the_direction_and_the_tails() {
        let one_sided = [row("weat1", vec![])];
        let md = markdown(&one_sided, Marks::Stars);
        assert!(
            md.contains("| model | test | X vs Y × A vs B | d | p (one-sided) |"),
            "{md}"
        );
        assert!(
            md.contains("d is Cohen's d (sample std, ddof 1): d > 0 means X is more associated with A, relative to B, than Y is; p is one-sided (sent-bias)"),
            "{md}"
        );
        let two_sided = [SeatRow {
            alternative: Alternative::TwoSided,
            std: StdKind::Population,
            ..row("weat1", vec![])
        }];
        let md = markdown(&two_sided, Marks::Stars);
        assert!(md.contains("| d | p (two-sided) |"), "{md}");
        assert!(md.contains("(population std, ddof 0)"), "{md}");
        assert!(md.contains("p is two-sided"), "{md}");
        let mixed = [one_sided[0].clone(), two_sided[0].clone()];
        let md = markdown(&mixed, Marks::Stars);
        assert!(md.contains("| d | p |"), "{md}");
        assert!(md.contains("as each row's CSV says"), "{md}");
        let csv = table(&two_sided).to_csv();
        let mut lines = csv.lines();
        assert!(
            lines.next().unwrap().starts_with(
                "model,test,category_targ1,category_targ2,category_attr1,category_attr2,\
                 lowercased_copy,pooling,effect_size,ddof,p_value,alternative,"
            ),
            "{csv}"
        );
        assert!(
            lines.next().unwrap().starts_with(
                "glove,weat1,Flowers,Insects,Pleasant,Unpleasant,false,mean,1.0000,0,0.010000,two-sided,"
            ),
            "{csv}"
        );
    }

    /// A lower-cased copy's rows are labelled as such in the table, the note and
    /// the figures, each a row of its own beside the model's files as given.
    #[test]
    fn a_lowercased_copy_is_labelled_apart() {
        let given = row("weat6_tr", vec![]);
        let mut copy = given.clone();
        copy.lowercased_copy = true;
        copy.p_value = 0.5;
        let rows = [given.clone(), copy];
        let md = markdown(&rows, Marks::Caglidil);
        assert!(
            md.contains("| glove | weat6_tr | Flowers vs Insects × Pleasant vs Unpleasant | 1.0000 | 0.0100 |"),
            "{md}"
        );
        assert!(
            md.contains("| glove (lower-cased copy) | weat6_tr | Flowers vs Insects × Pleasant vs Unpleasant | 1.0000 | 0.5000 |"),
            "{md}"
        );
        assert!(md.contains("lower-cases: glove (1 test)."), "{md}");
        assert!(
            !markdown(&rows[..1], Marks::Caglidil).contains("lower-cased"),
            "no copy, no note"
        );
        let labels = HeatmapLabels {
            title: "t".to_owned(),
            p_label: "p".to_owned(),
            marks: Marks::Caglidil,
            effect_sizes: true,
        };
        let svg = selected_heatmap(&rows, &[("C6 word", "weat6_tr")], &labels).unwrap();
        assert!(
            svg.contains(">glove<") && svg.contains(">glove (lower-cased copy)<"),
            "{svg}"
        );
        for (_, svg) in heatmaps(&rows, "t", Marks::Caglidil) {
            assert!(svg.contains(">glove (lower-cased copy)<"), "{svg}");
        }
    }

    #[test]
    fn lost_examples_and_refused_tests_are_listed() {
        let result = BatteryResult {
            rows: vec![
                row("plain", vec![]),
                row("likable", vec![lost(Role::Attr2, "unliked")]),
            ],
            refused: vec![Refused {
                model: "glove".into(),
                test: "weat1".into(),
                lowercased_copy: false,
                reason: Refusal::UnequalTargets {
                    targ1: 24,
                    targ2: 25,
                },
                sizes: sizes(24, 25, 25, 25),
                lost: vec![lost(Role::Targ1, "gladiola")],
            }],
        };
        let md = battery_markdown(&result, Marks::Stars);
        assert!(
            md.contains("| 8/8/8/7 |") && md.contains("| 8/8/8/7 (1 lost) |"),
            "{md}"
        );
        assert!(
            md.contains("- glove · likable: attr2 \"unliked\"\n"),
            "{md}"
        );
        assert!(
            md.contains(
                "- glove · weat1: targ1 and targ2 have 24 and 25 examples once lost ones are \
                 dropped (WEAT needs equal sizes); lost: targ1 \"gladiola\"\n"
            ),
            "{md}"
        );
        // Nothing lost, nothing refused: the table and its key alone.
        let plain = battery_markdown(
            &BatteryResult {
                rows: vec![row("plain", vec![])],
                refused: vec![],
            },
            Marks::Stars,
        );
        assert_eq!(plain, markdown(&[row("plain", vec![])], Marks::Stars));
        assert!(
            !plain.contains("lost") && !plain.contains("Refused"),
            "{plain}"
        );

        let csv = table(&result.rows).to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with(",coverage_flags,lost"), "{csv}");
        assert!(lines[1].ends_with(",,"), "{csv}");
        assert!(lines[2].ends_with(r#","attr2 ""unliked""""#), "{csv}");
    }

    #[test]
    fn a_copy_equal_to_the_files_as_given_counts_once() {
        let original = row("weat6_tr", vec![]);
        let same = SeatRow {
            lowercased_copy: true,
            ..original.clone()
        };
        let other = SeatRow {
            lowercased_copy: true,
            test: "weat7_tr".into(),
            ..original.clone()
        };
        let differs = SeatRow {
            p_value: 0.02,
            ..same.clone()
        };
        let rows = [original.clone(), same, other.clone()];
        assert_eq!(distinct_results(&rows), [&original, &other]);
        let rows = [original.clone(), differs.clone()];
        assert_eq!(distinct_results(&rows), [&original, &differs]);
    }
}
