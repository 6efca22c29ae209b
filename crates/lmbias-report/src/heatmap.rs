//! The SEAT battery figure: a heatmap of p-values (tests × models) with
//! significance marks beside a table of effect sizes, after Figure 1 of
//! Caglidil, Ostendorff & Rehm (2024), which shows a Turkish SEAT battery that way.

use lmbias_papers::Marks;

use crate::svg::{Anchor, Rgb, Svg, TextStyle};

/// One test on one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SeatCell {
    /// Drawn in the left panel, coloured on a log scale and marked.
    pub p_value: f64,
    /// Drawn in the right panel, on a diverging scale.
    pub effect_size: f64,
}

/// Results of several models on several tests; a model may lack a test (drawn grey).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SeatGrid {
    models: Vec<String>,
    tests: Vec<String>,
    /// Row-major, `tests.len() × models.len()`.
    cells: Vec<Option<SeatCell>>,
}

impl SeatGrid {
    /// Collects `(model, test, cell)` triples; rows and columns keep first-seen
    /// order, and a later triple for the same pair replaces the earlier one.
    pub(crate) fn from_results<'a>(
        results: impl IntoIterator<Item = (&'a str, &'a str, SeatCell)>,
    ) -> SeatGrid {
        let results: Vec<_> = results.into_iter().collect();
        let mut grid = SeatGrid::default();
        for (model, test, _) in &results {
            if !grid.models.iter().any(|m| m == model) {
                grid.models.push((*model).to_owned());
            }
            if !grid.tests.iter().any(|t| t == test) {
                grid.tests.push((*test).to_owned());
            }
        }
        grid.cells = vec![None; grid.models.len() * grid.tests.len()];
        for (model, test, cell) in results {
            let m = grid
                .models
                .iter()
                .position(|x| x == model)
                .expect("collected above");
            let t = grid
                .tests
                .iter()
                .position(|x| x == test)
                .expect("collected above");
            grid.cells[t * grid.models.len() + m] = Some(cell);
        }
        grid
    }

    /// The cell of row `test`, column `model`; `None` where the model lacks
    /// the test, or either index is out of range.
    pub(crate) fn cell(&self, test: usize, model: usize) -> Option<SeatCell> {
        if test >= self.tests.len() || model >= self.models.len() {
            return None;
        }
        self.cells[test * self.models.len() + model]
    }

    /// Models as rows and tests as columns (Caglidil et al.'s Figure 1 layout):
    /// the renderer draws `tests` as rows, so the two lists swap places.
    pub(crate) fn transposed(&self) -> SeatGrid {
        let mut cells = Vec::with_capacity(self.cells.len());
        for m in 0..self.models.len() {
            for t in 0..self.tests.len() {
                cells.push(self.cell(t, m));
            }
        }
        SeatGrid {
            models: self.tests.clone(),
            tests: self.models.clone(),
            cells,
        }
    }
}

/// p-values at or below this share the darkest colour (−log10 p = 4).
const P_FLOOR: f64 = 1e-4;
/// Effect sizes beyond ±2 share the strongest colour (|d| ≤ 2 for WEAT's pooled-std d).
const D_LIMIT: f64 = 2.0;

/// Viridis, sampled at 0, 0.25, 0.5, 0.75, 1 (matplotlib's `viridis` stops).
const VIRIDIS: [Rgb; 5] = [
    Rgb(0x44, 0x01, 0x54),
    Rgb(0x3b, 0x52, 0x8b),
    Rgb(0x21, 0x91, 0x8c),
    Rgb(0x5e, 0xc9, 0x62),
    Rgb(0xfd, 0xe7, 0x25),
];

/// ColorBrewer RdBu ends and its white-ish centre.
const BLUE: Rgb = Rgb(0x21, 0x66, 0xac);
const MID: Rgb = Rgb(0xf7, 0xf7, 0xf7);
const RED: Rgb = Rgb(0xb2, 0x18, 0x2b);
const MISSING: Rgb = Rgb(0xd9, 0xd9, 0xd9);

fn lerp(a: Rgb, b: Rgb, t: f64) -> Rgb {
    let c = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
    Rgb(c(a.0, b.0), c(a.1, b.1), c(a.2, b.2))
}

/// Position of `p` on the log scale: 0 at p = 1, 1 at p ≤ 1e-4.
fn p_position(p: f64) -> f64 {
    (-p.max(P_FLOOR).log10() / -P_FLOOR.log10()).clamp(0.0, 1.0)
}

/// The fill for a p-value: light yellow at p = 1, dark purple at p ≤ 1e-4
/// (reversed viridis, so significant cells stand out and greyscale prints keep the order).
pub(crate) fn p_colour(p: f64) -> Rgb {
    let t = 1.0 - p_position(p);
    let scaled = t * (VIRIDIS.len() - 1) as f64;
    let i = (scaled.floor() as usize).min(VIRIDIS.len() - 2);
    lerp(VIRIDIS[i], VIRIDIS[i + 1], scaled - i as f64)
}

/// The fill for an effect size: blue for negative, red for positive, saturating at ±2.
pub(crate) fn d_colour(d: f64) -> Rgb {
    let t = (d / D_LIMIT).clamp(-1.0, 1.0);
    if t < 0.0 {
        lerp(MID, BLUE, -t)
    } else {
        lerp(MID, RED, t)
    }
}

/// `0.012`, `0.0004`, `<1e-4`: short enough for a cell, exact enough to read.
fn format_p(p: f64) -> String {
    if p < P_FLOOR {
        "<1e-4".into()
    } else if p < 0.001 {
        format!("{p:.4}")
    } else {
        format!("{p:.3}")
    }
}

/// What the figure says above the p panel (e.g. "p (Holm-adjusted)").
#[derive(Debug, Clone)]
pub struct HeatmapLabels {
    /// The heading: battery, pooling, layer.
    pub title: String,
    /// The left panel's heading, saying which p is drawn (raw, Holm).
    pub p_label: String,
    /// Which significance marks the cells and the key use.
    pub marks: Marks,
    /// Whether the effect sizes are drawn beside p; Caglidil et al.'s Figure 1 draws p only
    /// (§4.1: "Figure 1 shows the statistical significance (p-value)").
    pub effect_sizes: bool,
}

/// Which of a heatmap's frame is drawn: the parts of a figure split one below the other share
/// the first part's title and the last part's legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Frame {
    /// The figure's title above the panels.
    pub title: bool,
    /// The colour bars and keys below them.
    pub legend: bool,
}

impl Frame {
    /// A figure of its own: title and legend.
    pub(crate) const WHOLE: Frame = Frame {
        title: true,
        legend: true,
    };
}

const ROW_H: f64 = 22.0;
const COL_W: f64 = 86.0;
const CHAR_W: f64 = 6.6;
const GAP: f64 = 36.0;
const P_LEGEND_W: f64 = 200.0;

/// Renders the grid as one SVG: p-value heatmap (left), effect-size table (right, when
/// `labels.effect_sizes`), colour bars and the star key underneath (what `frame` asks).
pub(crate) fn render_seat_heatmap(grid: &SeatGrid, labels: &HeatmapLabels, frame: Frame) -> String {
    let n_models = grid.models.len();
    let n_tests = grid.tests.len();
    let label_w = grid
        .tests
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0) as f64
        * CHAR_W
        + 14.0;
    // Column headers (10 px, about 5.6 px a character) are rotated 40°:
    // they rise sin 40° and run right cos 40° of their length.
    let header_len = grid
        .models
        .iter()
        .map(|m| m.chars().count())
        .max()
        .unwrap_or(0) as f64
        * 5.6;
    let header_h = header_len * 0.643 + 12.0;
    let top = if frame.title { 34.0 + 18.0 } else { 0.0 } + header_h;
    let panel_w = n_models as f64 * COL_W;
    let left_p = label_w;
    // The p legend needs about 200 units for its tick labels, even under one column.
    let left_d = left_p + panel_w.max(P_LEGEND_W) + GAP;
    let grid_bottom = top + n_tests as f64 * ROW_H;
    let right = if labels.effect_sizes {
        left_d + panel_w
    } else {
        left_p + panel_w
    };
    let width = right + 16.0 + (header_len * 0.766 - COL_W / 2.0).max(0.0);
    let missing = grid.cells.iter().any(Option::is_none);
    // The key of a grey cell, when there is one, needs about 330 units beside the d legend,
    // or below the p legend.
    let (key_x, key_y) = if labels.effect_sizes {
        (left_d, grid_bottom + 18.0 + LEGEND_H + 21.0)
    } else {
        (left_p, grid_bottom + 18.0 + LEGEND_H + 51.0)
    };
    let (width, height) = match (frame.legend, missing) {
        (false, _) => (width, grid_bottom + 12.0),
        (true, false) => (width.max(left_p + P_LEGEND_W + 16.0), grid_bottom + 96.0),
        (true, true) => (
            width.max(key_x + 350.0),
            grid_bottom + 96.0 + 15.0 * f64::from(!labels.effect_sizes),
        ),
    };
    let mut svg = Svg::new(
        width.max(if labels.effect_sizes { 460.0 } else { 0.0 }),
        height,
    );

    // The title, and the panels' headings under it, once a figure.
    if frame.title {
        let title = TextStyle {
            size: 14.0,
            bold: true,
            ..TextStyle::default()
        };
        svg.text(8.0, 22.0, &labels.title, title);
        let panel_title = TextStyle {
            size: 12.0,
            bold: true,
            anchor: Anchor::Middle,
            ..TextStyle::default()
        };
        svg.text(left_p + panel_w / 2.0, 44.0, &labels.p_label, panel_title);
        if labels.effect_sizes {
            svg.text(left_d + panel_w / 2.0, 44.0, "effect size d", panel_title);
        }
    }

    let header = TextStyle {
        size: 10.0,
        rotate: -40.0,
        ..TextStyle::default()
    };
    for (m, model) in grid.models.iter().enumerate() {
        for left in [left_p, left_d]
            .into_iter()
            .take(1 + usize::from(labels.effect_sizes))
        {
            svg.text(
                left + (m as f64 + 0.5) * COL_W - 4.0,
                top - 6.0,
                model,
                header,
            );
        }
    }
    let row_label = TextStyle {
        size: 11.0,
        anchor: Anchor::End,
        ..TextStyle::default()
    };
    for (t, test) in grid.tests.iter().enumerate() {
        let y = top + t as f64 * ROW_H;
        svg.text(label_w - 8.0, y + ROW_H * 0.68, test, row_label);
        for m in 0..n_models {
            let cell = grid.cell(t, m);
            let (xp, xd) = (left_p + m as f64 * COL_W, left_d + m as f64 * COL_W);
            let (p_fill, p_text, d_fill, d_text) = match cell {
                Some(c) => (
                    p_colour(c.p_value),
                    format!("{}{}", format_p(c.p_value), labels.marks.mark(c.p_value)),
                    d_colour(c.effect_size),
                    format!("{:.2}", c.effect_size),
                ),
                None => (MISSING, "–".into(), MISSING, "–".into()),
            };
            let panels = [(xp, p_fill, p_text), (xd, d_fill, d_text)];
            let drawn = 1 + usize::from(labels.effect_sizes);
            for (x, fill, text) in panels.into_iter().take(drawn) {
                svg.rect(x, y, COL_W, ROW_H, fill, Some(Rgb::WHITE));
                let style = TextStyle {
                    size: 10.5,
                    anchor: Anchor::Middle,
                    fill: fill.contrasting_text(),
                    ..TextStyle::default()
                };
                svg.text(x + COL_W / 2.0, y + ROW_H * 0.68, &text, style);
            }
        }
    }

    if !frame.legend {
        return svg.finish();
    }
    draw_p_legend(
        &mut svg,
        left_p,
        grid_bottom + 18.0,
        panel_w.max(P_LEGEND_W),
        labels,
    );
    if labels.effect_sizes {
        draw_d_legend(&mut svg, left_d, grid_bottom + 18.0, panel_w.max(160.0));
    }
    // A grey cell is no result; the key says so wherever one is drawn.
    if missing {
        svg.rect(key_x, key_y, 12.0, 12.0, MISSING, Some(Rgb::BLACK));
        let key = TextStyle {
            size: 10.0,
            ..TextStyle::default()
        };
        svg.text(
            key_x + 17.0,
            key_y + 10.0,
            "– no result: the model did not run this test, or refused it",
            key,
        );
    }
    svg.finish()
}

const LEGEND_H: f64 = 10.0;
const LEGEND_STEPS: usize = 60;

fn draw_p_legend(svg: &mut Svg, x: f64, y: f64, w: f64, labels: &HeatmapLabels) {
    let step = w / LEGEND_STEPS as f64;
    for i in 0..LEGEND_STEPS {
        let t = (i as f64 + 0.5) / LEGEND_STEPS as f64;
        // Left end p = 1, right end p = 1e-4, uniform in log p.
        let p = 10f64.powf(t * P_FLOOR.log10());
        svg.rect(
            x + i as f64 * step,
            y,
            step + 0.3,
            LEGEND_H,
            p_colour(p),
            None,
        );
    }
    let tick = TextStyle {
        size: 9.0,
        anchor: Anchor::Middle,
        ..TextStyle::default()
    };
    for (p, label) in [
        (1.0, "1"),
        (0.1, "0.1"),
        (0.01, "0.01"),
        (0.001, "0.001"),
        (P_FLOOR, "≤1e-4"),
    ] {
        let tx = x + p_position(p) * w;
        svg.line(tx, y + LEGEND_H, tx, y + LEGEND_H + 3.0, Rgb::BLACK, 1.0);
        svg.text(tx, y + LEGEND_H + 13.0, label, tick);
    }
    let key = TextStyle {
        size: 10.0,
        ..TextStyle::default()
    };
    svg.text(
        x,
        y + LEGEND_H + 30.0,
        &format!("{} (log scale)", labels.p_label),
        key,
    );
    svg.text(x, y + LEGEND_H + 45.0, labels.marks.key(), key);
}

fn draw_d_legend(svg: &mut Svg, x: f64, y: f64, w: f64) {
    let step = w / LEGEND_STEPS as f64;
    for i in 0..LEGEND_STEPS {
        let d = -D_LIMIT + 2.0 * D_LIMIT * (i as f64 + 0.5) / LEGEND_STEPS as f64;
        svg.rect(
            x + i as f64 * step,
            y,
            step + 0.3,
            LEGEND_H,
            d_colour(d),
            None,
        );
    }
    let tick = TextStyle {
        size: 9.0,
        anchor: Anchor::Middle,
        ..TextStyle::default()
    };
    for d in [-2.0, -1.0, 0.0, 1.0, 2.0] {
        let tx = x + (d + D_LIMIT) / (2.0 * D_LIMIT) * w;
        svg.line(tx, y + LEGEND_H, tx, y + LEGEND_H + 3.0, Rgb::BLACK, 1.0);
        svg.text(tx, y + LEGEND_H + 13.0, &format!("{d}"), tick);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_grid_puts_models_in_rows() {
        let c = |p| SeatCell {
            p_value: p,
            effect_size: 0.5,
        };
        let grid = SeatGrid::from_results([
            ("m1", "t1", c(0.01)),
            ("m1", "t2", c(0.2)),
            ("m2", "t2", c(0.3)),
        ])
        .transposed();
        assert_eq!(grid.models, ["t1", "t2"]);
        assert_eq!(grid.tests, ["m1", "m2"]);
        assert_eq!(grid.cell(0, 1), Some(c(0.2)));
        assert_eq!(grid.cell(1, 0), None);
        assert_eq!(grid.cell(1, 1), Some(c(0.3)));
        // Issue #49, item 6: a grey cell has a key; a full grid draws none.
        let labels = HeatmapLabels {
            title: "t".to_owned(),
            p_label: "p".to_owned(),
            marks: lmbias_papers::Marks::Stars,
            effect_sizes: true,
        };
        let key = "no result: the model did not run this test, or refused it";
        assert!(render_seat_heatmap(&grid, &labels, Frame::WHOLE).contains(key));
        let full = SeatGrid::from_results([("m1", "weat6", c(0.01))]);
        assert!(!render_seat_heatmap(&full, &labels, Frame::WHOLE).contains(key));
    }

    #[test]
    fn p_colour_darkens_as_p_falls() {
        let ps = [1.0, 0.5, 0.1, 0.05, 0.01, 0.001, 1e-4];
        let lum: Vec<f64> = ps.iter().map(|&p| p_colour(p).luminance()).collect();
        assert!(lum.windows(2).all(|w| w[0] > w[1]), "{lum:?}");
        assert_eq!(p_colour(1.0), VIRIDIS[4]);
        assert_eq!(p_colour(1e-4), VIRIDIS[0]);
        assert_eq!(p_colour(1e-9), VIRIDIS[0]);
        // Halfway on the log scale (p = 0.01) is viridis' middle stop.
        assert_eq!(p_colour(0.01), VIRIDIS[2]);
    }

    #[test]
    fn d_colour_is_diverging() {
        assert_eq!(d_colour(0.0), MID);
        assert_eq!(d_colour(2.0), RED);
        assert_eq!(d_colour(-5.0), BLUE);
        assert!(d_colour(1.0).0 > d_colour(1.0).2, "positive is red");
        assert!(d_colour(-1.0).2 > d_colour(-1.0).0, "negative is blue");
    }

    #[test]
    fn grid_keeps_first_seen_order_and_marks_missing_cells() {
        let c = |p| SeatCell {
            p_value: p,
            effect_size: 0.5,
        };
        let grid = SeatGrid::from_results([
            ("m1", "weat6", c(0.01)),
            ("m1", "weat8", c(0.2)),
            ("m2", "weat8", c(0.3)),
        ]);
        assert_eq!(grid.models, ["m1", "m2"]);
        assert_eq!(grid.tests, ["weat6", "weat8"]);
        assert_eq!(grid.cell(0, 0), Some(c(0.01)));
        assert_eq!(grid.cell(0, 1), None);
        assert_eq!(grid.cell(1, 1), Some(c(0.3)));
    }

    #[test]
    fn figure_shows_every_value_with_its_stars() {
        let grid = SeatGrid::from_results([
            (
                "bert",
                "weat6",
                SeatCell {
                    p_value: 0.0004,
                    effect_size: 1.234,
                },
            ),
            (
                "bert",
                "c4 <tr>",
                SeatCell {
                    p_value: 0.3,
                    effect_size: -0.25,
                },
            ),
        ]);
        let labels = HeatmapLabels {
            title: "SEAT".into(),
            p_label: "p".into(),
            marks: Marks::Stars,
            effect_sizes: true,
        };
        let svg = render_seat_heatmap(&grid, &labels, Frame::WHOLE);
        assert!(svg.contains(">0.0004***</text>"), "{svg}");
        let paper = render_seat_heatmap(
            &grid,
            &HeatmapLabels {
                marks: Marks::Caglidil,
                ..labels.clone()
            },
            Frame::WHOLE,
        );
        assert!(paper.contains(">0.0004**</text>"), "{paper}");
        assert!(paper.contains("† p&lt;0.1 (marginal)"), "{paper}");
        assert!(svg.contains(">0.300</text>"));
        assert!(svg.contains(">1.23</text>"));
        assert!(svg.contains(">-0.25</text>"));
        assert!(
            svg.contains(">c4 &lt;tr&gt;</text>"),
            "test names are escaped"
        );
        // p alone, as Caglidil et al.'s Figure 1: no d panel, no d legend, narrower; a part
        // framed by neither title nor legend draws neither.
        let p_only = HeatmapLabels {
            effect_sizes: false,
            ..labels
        };
        let narrow = render_seat_heatmap(&grid, &p_only, Frame::WHOLE);
        assert!(narrow.contains(">0.0004***</text>") && narrow.contains(">SEAT</text>"));
        assert!(!narrow.contains("effect size d") && !narrow.contains(">1.23</text>"));
        let width = |svg: &str| -> f64 {
            svg.split(" width=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(
            width(&narrow) < width(&svg),
            "{} ≥ {}",
            width(&narrow),
            width(&svg)
        );
        let bare = render_seat_heatmap(
            &grid,
            &p_only,
            Frame {
                title: false,
                legend: false,
            },
        );
        assert!(bare.contains(">0.0004***</text>"));
        assert!(
            !bare.contains(">SEAT</text>") && !bare.contains("(log scale)"),
            "{bare}"
        );
    }
}
