//! Tables and figures of a SEAT battery (`lmbias_studies::seat`), shared by
//! `lmbias seat` and `cargo xtask reproduce-paper`.

use lmbias_encoder::Layer;
use lmbias_studies::seat::SeatRow;

use crate::heatmap::{HeatmapLabels, SeatCell, SeatGrid, render_seat_heatmap, stars};
use crate::table::Table;

fn effect(row: &SeatRow) -> String {
    row.effect_size
        .map_or_else(|| "undefined".to_owned(), |d| format!("{d:.4}"))
}

fn flags(row: &SeatRow) -> String {
    let flags: Vec<String> = row.coverage.flags.iter().map(ToString::to_string).collect();
    flags.join("; ")
}

/// Every number of every row, for CSV.
pub fn table(rows: &[SeatRow]) -> Table {
    let mut table = Table::new([
        "model",
        "test",
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
    ]);
    for r in rows {
        table.push([
            r.model.clone(),
            r.test.clone(),
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
        ]);
    }
    table
}

/// A readable Markdown table with significance stars and a key.
pub fn markdown(rows: &[SeatRow]) -> String {
    let mut table = Table::new([
        "model", "test", "d", "p", "", "p (Holm)", "p (BH)", "exact", "sizes", "coverage",
    ]);
    for r in rows {
        table.push([
            r.model.clone(),
            r.test.clone(),
            effect(r),
            format!("{:.4}", r.p_value),
            stars(r.p_value).to_owned(),
            format!("{:.4}{}", r.p_holm, stars(r.p_holm)),
            format!("{:.4}{}", r.p_bh, stars(r.p_bh)),
            if r.exact { "yes" } else { "sampled" }.to_owned(),
            format!(
                "{}/{}/{}/{}",
                r.sizes.targ1, r.sizes.targ2, r.sizes.attr1, r.sizes.attr2
            ),
            flags(r),
        ]);
    }
    format!(
        "{}\n* p<0.05, ** p<0.01, *** p<0.001. Holm and BH adjust over each model's battery. \
         Coverage flags a target set with more than half its examples split into ≥3 pieces, \
         or any example with an unknown piece.\n",
        table.to_markdown()
    )
}

/// The two heatmaps of a battery, as `(file name, SVG)`: raw p and Holm-adjusted p,
/// each beside the effect sizes. `title` names the battery, pooling and layer.
pub fn heatmaps(rows: &[SeatRow], title: &str) -> [(&'static str, String); 2] {
    let figure = |p_label: &str, p_of: fn(&SeatRow) -> f64| {
        let grid = SeatGrid::from_results(rows.iter().map(|r| {
            let cell = SeatCell {
                p_value: p_of(r),
                // An undefined d (all scores equal) is drawn as no effect.
                effect_size: r.effect_size.unwrap_or(0.0),
            };
            (r.model.as_str(), r.test.as_str(), cell)
        }));
        let labels = HeatmapLabels {
            title: title.to_owned(),
            p_label: p_label.to_owned(),
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

/// "last layer" or "layer i", for titles.
pub fn layer_label(layer: Layer) -> String {
    match layer {
        Layer::Last => "last layer".to_owned(),
        Layer::Index(i) => format!("layer {i}"),
    }
}
