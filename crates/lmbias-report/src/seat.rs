//! Tables and figures of a SEAT battery (`lmbias_studies::seat`), shared by
//! `lmbias seat` and `cargo xtask reproduce-paper`.

use lmbias_encoder::Layer;
use lmbias_studies::seat::{BatteryResult, LostExample, Refused, SeatRow};

use crate::heatmap::{HeatmapLabels, Marks, SeatCell, SeatGrid, render_seat_heatmap};
use crate::table::Table;

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

/// Every number of every row, for CSV; `lost` lists the examples dropped (see
/// `lmbias_studies::seat::Lost`), as `set "text"` separated by commas.
pub fn table(rows: &[SeatRow]) -> Table {
    let mut table = Table::new([
        "model",
        "test",
        "lowercased_copy",
        "pooling",
        "effect_size",
        "p_value",
        "exact",
        "p_holm",
        "p_bh",
        "size_targ1",
        "size_targ2",
        "size_attr1",
        "size_attr2",
        "coverage_flags",
        "lost",
    ]);
    for r in rows {
        table.push([
            r.model.clone(),
            r.test.clone(),
            r.lowercased_copy.to_string(),
            r.pooling.to_string(),
            effect(r),
            format!("{:.6}", r.p_value),
            r.exact.to_string(),
            format!("{:.6}", r.p_holm),
            format!("{:.6}", r.p_bh),
            r.sizes.targ1.to_string(),
            r.sizes.targ2.to_string(),
            r.sizes.attr1.to_string(),
            r.sizes.attr2.to_string(),
            flags(r),
            lost(&r.lost),
        ]);
    }
    table
}

/// A readable Markdown table with significance marks and a key. Sizes are those
/// used; a row that lost examples says how many beside them, and a note lists them.
pub fn markdown(rows: &[SeatRow], marks: Marks) -> String {
    let mut table = Table::new([
        "model", "test", "d", "p", "", "p (Holm)", "p (BH)", "exact", "sizes", "coverage",
    ]);
    for r in rows {
        table.push([
            r.model.clone(),
            r.test.clone(),
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
    let mut out = format!(
        "{}\n{}. Holm and BH adjust over each model's battery. \
         Coverage flags a target set with more than half its examples split into ≥3 pieces, \
         or any example with an unknown piece.\n",
        table.to_markdown(),
        marks.key().split("   ").collect::<Vec<_>>().join(", ")
    );
    let copies = lowercased_copies(rows);
    if !copies.is_empty() {
        let list: Vec<String> = copies
            .iter()
            .map(|(model, n)| format!("{model} ({n} tests)"))
            .collect();
        out.push_str(&format!(
            "\nLower-cased copies ran on the models whose tokenizer lower-cases: {}.\n",
            list.join(", ")
        ));
    }
    let lost_rows: Vec<String> = rows
        .iter()
        .filter(|r| !r.lost.is_empty())
        .map(|r| format!("- {} · {}: {}\n", r.model, r.test, lost(&r.lost)))
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

/// [`markdown`] of the rows, then [`refused_markdown`].
pub fn battery_markdown(result: &BatteryResult, marks: Marks) -> String {
    markdown(&result.rows, marks) + &refused_markdown(&result.refused)
}

/// Per model, in first-seen order, how many of its tests ran their lower-cased copy
/// (models that ran none are left out).
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
    let figure = |p_label: &str, p_of: fn(&SeatRow) -> f64| {
        let grid = SeatGrid::from_results(
            rows.iter()
                .map(|r| (r.model.as_str(), r.test.as_str(), cell(r, p_of))),
        );
        let labels = HeatmapLabels {
            title: title.to_owned(),
            p_label: p_label.to_owned(),
            marks,
        };
        render_seat_heatmap(&grid, &labels)
    };
    [
        ("seat-heatmap.svg", figure("p", |r| r.p_value)),
        (
            "seat-heatmap-holm.svg",
            figure("p (Holm-adjusted)", |r| r.p_holm),
        ),
    ]
}

/// A heatmap with the models as rows and the given tests as columns, each
/// column under its label (`(label, test name)`), in the given order; tests no
/// model ran are left out. `None` when none of them ran.
pub fn selected_heatmap(
    rows: &[SeatRow],
    columns: &[(&str, &str)],
    labels: &HeatmapLabels,
) -> Option<String> {
    let mut triples = Vec::new();
    for (label, test) in columns {
        for r in rows.iter().filter(|r| r.test == *test) {
            triples.push((r.model.as_str(), *label, cell(r, |r| r.p_value)));
        }
    }
    if triples.is_empty() {
        return None;
    }
    let grid = SeatGrid::from_results(triples).transposed();
    Some(render_seat_heatmap(&grid, labels))
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
    use lmbias_data::association::Role;
    use lmbias_encoder::Pooling;
    use lmbias_studies::seat::{Refusal, SetSizes, TestCoverage};

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
            model: "glove".into(),
            test: test.into(),
            lowercased_copy: false,
            pooling: Pooling::Mean,
            layer: Layer::Last,
            effect_size: Some(1.0),
            test_statistic: 0.5,
            p_value: 0.01,
            exact: true,
            n_partitions: Some(70),
            n_evaluated: 70,
            p_holm: 0.02,
            p_bh: 0.01,
            sizes: sizes(8, 8, 8, 7),
            coverage: TestCoverage {
                sets: vec![],
                flags: vec![],
            },
            lost,
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
}
