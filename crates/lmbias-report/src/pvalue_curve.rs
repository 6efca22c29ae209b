//! The categorical-association probe's figure (like Dusi 2024, Figure 1): the
//! χ² p-value, on a log scale, against n, the number of most relevant
//! dimensions kept; one line per pair of properties, with the 0.05 level dashed and labelled
//! uncorrected, and beside it 0.05 / m, the level below which a p stands after Holm's
//! correction over the m sizes tested (its first step; Bonferroni's for every p).
//!
//! A size whose table is not testable (a protected class never predicted) has
//! no p-value: its line is broken there, and the legend counts such sizes.
//! A p-value that underflows to 0 is drawn on the bottom edge.

use crate::svg::{Anchor, PALETTE, Rgb, Svg, TextStyle};

/// One line of the figure: `(n, p)` pairs, `None` where not testable.
#[derive(Debug, Clone, PartialEq)]
pub struct PValueSeries {
    /// The legend entry, e.g. the pair of properties.
    pub label: String,
    /// `(n, p)` in increasing n.
    pub points: Vec<(usize, Option<f64>)>,
}

const SIGNIFICANCE: f64 = 0.05;
const GRID: Rgb = Rgb(225, 225, 225);
const RED: Rgb = Rgb(200, 30, 30);
const HOLM: Rgb = Rgb(60, 60, 60);
/// Lines with at most this many points also get a dot per point.
const MARKERS_UP_TO: usize = 40;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 58.0;

/// The figure as SVG text; `title` may hold a subtitle after a newline.
pub fn pvalue_curve(title: &str, series: &[PValueSeries]) -> String {
    let axes = Axes::of(series);
    let mut svg = Svg::new(WIDTH, HEIGHT);
    titles(&mut svg, title);
    grid(&mut svg, &axes);
    let levels = significance(&mut svg, &axes, tested(series));
    lines_and_legend(&mut svg, &axes, series, &levels);
    frame(&mut svg, &axes);
    svg.finish()
}

/// Where n and p fall: n over the series' range, p over whole decades from the smallest p up
/// to 1 (at least two).
struct Axes {
    n_min: usize,
    n_max: usize,
    bottom_decade: i32,
    plot_w: f64,
    plot_h: f64,
}

impl Axes {
    fn of(series: &[PValueSeries]) -> Axes {
        let ns = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
        let (n_min, n_max) = ns.fold((usize::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
        let (n_min, n_max) = if n_min > n_max {
            (0, 1)
        } else {
            (n_min, n_max.max(n_min + 1))
        };
        let smallest = series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|p| p.1))
            .filter(|p| *p > 0.0)
            .fold(SIGNIFICANCE / tested(series).max(1) as f64, f64::min);
        Axes {
            n_min,
            n_max,
            bottom_decade: (smallest.log10().floor() as i32).min(-2),
            plot_w: WIDTH - LEFT - RIGHT,
            plot_h: HEIGHT - TOP - BOTTOM,
        }
    }

    fn x(&self, n: usize) -> f64 {
        LEFT + (n - self.n_min) as f64 / (self.n_max - self.n_min) as f64 * self.plot_w
    }

    /// A p of 0 (underflow) on the bottom edge.
    fn y(&self, p: f64) -> f64 {
        let bottom = f64::from(self.bottom_decade);
        let decades = if p > 0.0 {
            p.log10().clamp(bottom, 0.0)
        } else {
            bottom
        };
        TOP + decades / bottom * self.plot_h
    }
}

/// Centred on the whole figure so that a long title keeps inside it; a second line (after a
/// newline) is a smaller subtitle.
fn titles(svg: &mut Svg, title: &str) {
    for (i, line) in title.lines().take(2).enumerate() {
        svg.text(
            WIDTH / 2.0,
            if i == 0 { 20.0 } else { 36.0 },
            line,
            TextStyle {
                size: if i == 0 { 14.0 } else { 11.0 },
                anchor: Anchor::Middle,
                bold: i == 0,
                ..TextStyle::default()
            },
        );
    }
}

/// Decade grid and labels (every k-th decade when there are many), then n's ticks.
fn grid(svg: &mut Svg, axes: &Axes) {
    let decades = -axes.bottom_decade;
    let every = (decades + 7) / 8;
    for d in (0..=decades).step_by(every as usize) {
        let y = axes.y(10f64.powi(-d));
        svg.line(LEFT, y, LEFT + axes.plot_w, y, GRID, 1.0);
        let label = if d == 0 {
            "1".to_string()
        } else {
            format!("1e-{d}")
        };
        svg.text(
            LEFT - 6.0,
            y + 4.0,
            &label,
            TextStyle {
                anchor: Anchor::End,
                ..TextStyle::default()
            },
        );
    }
    for n in x_ticks(axes.n_min, axes.n_max) {
        let x = axes.x(n);
        svg.line(x, TOP, x, TOP + axes.plot_h, GRID, 1.0);
        svg.text(
            x,
            TOP + axes.plot_h + 16.0,
            &n.to_string(),
            TextStyle {
                anchor: Anchor::Middle,
                ..TextStyle::default()
            },
        );
    }
}

/// The p-values the figure shows: the tests Holm's correction counts.
fn tested(series: &[PValueSeries]) -> usize {
    series
        .iter()
        .map(|s| s.points.iter().filter(|p| p.1.is_some()).count())
        .sum()
}

/// The dashed 0.05 level, "uncorrected", and with more than one test the level 0.05 / m
/// under which a p stands after Holm's correction over all m: each labelled in the right
/// margin beside its line's end, where no curve runs; returns their heights.
fn significance(svg: &mut Svg, axes: &Axes, m: usize) -> Vec<f64> {
    let label = |svg: &mut Svg, y: f64, lines: [&str; 2], fill: Rgb| {
        for (i, line) in lines.iter().enumerate() {
            svg.text(
                LEFT + axes.plot_w + 6.0,
                y + 3.5 + 11.0 * i as f64,
                line,
                TextStyle {
                    size: 10.0,
                    anchor: Anchor::Start,
                    fill,
                    ..TextStyle::default()
                },
            );
        }
    };
    let y05 = axes.y(SIGNIFICANCE);
    svg.dashed_line(LEFT, y05, LEFT + axes.plot_w, y05, RED, 1.5);
    label(svg, y05, ["p = 0.05", "(uncorrected)"], RED);
    if m < 2 {
        return vec![y05];
    }
    let y_holm = axes.y(SIGNIFICANCE / m as f64);
    svg.dashed_line(LEFT, y_holm, LEFT + axes.plot_w, y_holm, HOLM, 1.5);
    label(
        svg,
        y_holm,
        [
            &format!("p = 0.05 / {m} tests"),
            "(below: holds after Holm)",
        ],
        HOLM,
    );
    vec![y05, y_holm]
}

/// Each series' line (broken where not testable, dotted when short) and its legend entry in
/// the right margin, moved below a level's label where they would meet.
fn lines_and_legend(svg: &mut Svg, axes: &Axes, series: &[PValueSeries], levels: &[f64]) {
    let mut legend_y = TOP + 12.0;
    for (k, s) in series.iter().enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        for pair in s.points.windows(2) {
            if let [(n0, Some(p0)), (n1, Some(p1))] = pair {
                svg.line(
                    axes.x(*n0),
                    axes.y(*p0),
                    axes.x(*n1),
                    axes.y(*p1),
                    colour,
                    1.6,
                );
            }
        }
        if s.points.len() <= MARKERS_UP_TO {
            for (n, p) in &s.points {
                if let Some(p) = p {
                    svg.circle(axes.x(*n), axes.y(*p), 2.8, colour, 1.0);
                }
            }
        }
        let mut ly = legend_y;
        // A level's label takes two lines; an entry that would meet one goes below it.
        while let Some(y) = levels
            .iter()
            .find(|y| ly - 10.0 < **y + 19.0 && ly + 22.0 > **y - 10.0)
        {
            ly = y + 33.0;
        }
        legend_y = ly + 34.0;
        let lx = LEFT + axes.plot_w + 16.0;
        svg.line(lx, ly, lx + 22.0, ly, colour, 2.5);
        svg.text(lx + 28.0, ly + 4.0, &s.label, TextStyle::default());
        let untestable = s.points.iter().filter(|p| p.1.is_none()).count();
        if untestable > 0 {
            svg.text(
                lx + 28.0,
                ly + 18.0,
                &format!("{untestable} size(s) not testable"),
                TextStyle {
                    size: 9.0,
                    fill: Rgb(90, 90, 90),
                    ..TextStyle::default()
                },
            );
        }
    }
}

/// The frame's two axes and their titles.
fn frame(svg: &mut Svg, axes: &Axes) {
    let (plot_w, plot_h) = (axes.plot_w, axes.plot_h);
    svg.line(
        LEFT,
        TOP + plot_h,
        LEFT + plot_w,
        TOP + plot_h,
        Rgb::BLACK,
        1.0,
    );
    svg.line(LEFT, TOP, LEFT, TOP + plot_h, Rgb::BLACK, 1.0);
    svg.text(
        LEFT + plot_w / 2.0,
        HEIGHT - 14.0,
        "n (most relevant dimensions kept)",
        TextStyle {
            size: 12.0,
            anchor: Anchor::Middle,
            ..TextStyle::default()
        },
    );
    svg.text(
        20.0,
        TOP + plot_h / 2.0,
        "p-value of χ² test (log scale)",
        TextStyle {
            size: 12.0,
            anchor: Anchor::Middle,
            rotate: -90.0,
            ..TextStyle::default()
        },
    );
}

/// Tick positions on a 1-2-5 step giving at most about 8 ticks, plus both ends.
fn x_ticks(n_min: usize, n_max: usize) -> Vec<usize> {
    let span = (n_max - n_min).max(1);
    let step = [
        1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000,
    ]
    .into_iter()
    .find(|s| span / s <= 8)
    .unwrap_or(span);
    let mut ticks = vec![n_min];
    let mut t = (n_min / step + 1) * step;
    while t < n_max {
        // Skip a tick crowding an end.
        if t - n_min >= step / 2 && n_max - t >= step / 2 {
            ticks.push(t);
        }
        t += step;
    }
    ticks.push(n_max);
    ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Vec<PValueSeries> {
        vec![
            PValueSeries {
                label: "religion × quality".into(),
                points: vec![
                    (2, Some(0.2)),
                    (3, Some(0.01)),
                    (4, Some(1.2e-7)),
                    (5, None),
                    (6, Some(3e-4)),
                ],
            },
            PValueSeries {
                label: "gender × profession".into(),
                points: vec![
                    (2, Some(0.9)),
                    (3, Some(0.5)),
                    (4, Some(0.04)),
                    (5, Some(0.3)),
                    (6, Some(0.0)),
                ],
            },
        ]
    }

    /// The number in attribute `name` of an SVG element's line.
    fn attr(line: &str, name: &str) -> f64 {
        line.split(&format!("{name}=\""))
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| panic!("no number in {name} of {line}"))
    }

    #[test]
    fn figure_snapshot() {
        insta::assert_snapshot!(pvalue_curve("Categorical association", &demo()));
    }

    #[test]
    fn axes_are_log_decades_and_the_line_breaks_at_untestable_sizes() {
        let svg = pvalue_curve("t", &demo());
        // Smallest positive p is 1.2e-7: decades 1 … 1e-7.
        assert!(
            svg.contains(">1e-7</text>") && !svg.contains(">1e-8</text>"),
            "{svg}"
        );
        // Plot height 338 over 7 decades: 0.05 sits 1.30103 decades below the top.
        let y05 = TOP + 0.05f64.log10() / -7.0 * (HEIGHT - TOP - BOTTOM);
        let dashed = svg
            .lines()
            .find(|l| l.contains("stroke-dasharray"))
            .unwrap();
        let y1 = attr(dashed, "y1");
        assert!((y1 - y05).abs() < 0.01, "{dashed} vs {y05}");
        assert!(svg.contains("1 size(s) not testable"));
        // Issue #49, item 6: 0.05 is said to be uncorrected, and 0.05 / m is drawn for the 9
        // sizes tested, at its place on the log scale.
        assert!(
            svg.contains(">(uncorrected)<") && svg.contains(">p = 0.05 / 9 tests<"),
            "{svg}"
        );
        let y_holm = TOP + (0.05f64 / 9.0).log10() / -7.0 * (HEIGHT - TOP - BOTTOM);
        let holm = svg
            .lines()
            .filter(|l| l.contains("stroke-dasharray"))
            .nth(1)
            .unwrap();
        assert!(
            (attr(holm, "y1") - y_holm).abs() < 0.01,
            "{holm} vs {y_holm}"
        );
        // First series: segments 2-3 and 3-4 only (5 is untestable, so 4-5 and 5-6 are missing).
        let blue = svg
            .matches("stroke=\"#0072b2\" stroke-width=\"1.6\"")
            .count();
        assert_eq!(blue, 2);
    }

    /// The 0.05 label is drawn right of the plot area, where no curve can run, and no
    /// legend entry shares its height.
    #[test]
    fn the_significance_label_is_clear_of_every_curve() {
        let svg = pvalue_curve("t", &demo());
        let label = svg
            .lines()
            .find(|l| l.ends_with(">p = 0.05</text>"))
            .unwrap();
        assert!(attr(label, "x") > WIDTH - RIGHT, "{label}");
        let y = attr(label, "y");
        for legend in svg.lines().filter(|l| l.contains("stroke-width=\"2.5\"")) {
            assert!((attr(legend, "y1") - y).abs() > 12.0, "{legend} vs {label}");
        }
    }

    #[test]
    fn ticks_cover_two_to_hidden_size() {
        assert_eq!(
            x_ticks(2, 384),
            vec![2, 50, 100, 150, 200, 250, 300, 350, 384]
        );
        assert_eq!(x_ticks(2, 6), vec![2, 3, 4, 5, 6]);
    }
}
