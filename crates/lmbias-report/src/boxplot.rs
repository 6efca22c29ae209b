//! Box plots with every observation drawn as a jittered point, as in Cuscito,
//! Ferrara and Ruskov's Figures 1 and 2 (distributions of B and A per group).
//!
//! The caller supplies the quartiles (so the one quantile definition of the
//! study is the one drawn); whiskers follow Tukey (matplotlib's default
//! `whis=1.5`): they reach the most extreme observations within 1.5 IQR of
//! the box. Points are jittered horizontally by a low-discrepancy sequence of
//! their index, so the same data always gives the same figure.

use crate::svg::{Anchor, Rgb, Svg, TextStyle};

/// One box: its observations and their quartiles.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoxSeries {
    /// The label under the box; the figure appends "(n=…)".
    pub label: String,
    /// Every observation, each drawn as a point.
    pub values: Vec<f64>,
    /// The box's lower edge.
    pub q1: f64,
    /// The thick line inside the box.
    pub median: f64,
    /// The box's upper edge.
    pub q3: f64,
    /// The points' colour; the box is a light tint of it.
    pub colour: Rgb,
}

/// A figure of boxes side by side on one value axis.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoxPlot {
    /// The heading above the plot.
    pub title: String,
    /// The label under the boxes.
    pub x_label: String,
    /// The label beside the value axis.
    pub y_label: String,
    /// The value axis, low to high; observations outside are clamped to it.
    pub y_range: (f64, f64),
    /// Dashed horizontal guides (e.g. B = 0).
    pub guides: Vec<f64>,
    /// The boxes, left to right.
    pub series: Vec<BoxSeries>,
    /// Labels under consecutive runs of boxes, each with how many boxes it spans (the paper's
    /// groups, models side by side within each); empty for none.
    pub clusters: Vec<(String, usize)>,
    /// What each colour stands for, drawn under the title; empty for none.
    pub legend: Vec<(String, Rgb)>,
}

const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 400.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 48.0;
const BOTTOM: f64 = 64.0;
const GRID: Rgb = Rgb(225, 225, 225);
const INK: Rgb = Rgb(40, 40, 40);

/// The figure's size and where values fall: it grows wider for many boxes or a long legend,
/// and taller for a legend and cluster labels.
struct Frame {
    width: f64,
    height: f64,
    top: f64,
    plot_w: f64,
    plot_h: f64,
    lo: f64,
    hi: f64,
}

impl Frame {
    fn y(&self, v: f64) -> f64 {
        self.top + (self.hi - v.clamp(self.lo, self.hi)) / (self.hi - self.lo) * self.plot_h
    }
}

impl BoxPlot {
    /// The figure as SVG text.
    pub(crate) fn to_svg(&self) -> String {
        let frame = self.frame();
        let mut svg = Svg::new(frame.width, frame.height);
        self.axes(&mut svg, &frame);
        let slot = frame.plot_w / self.series.len().max(1) as f64;
        self.boxes(&mut svg, &frame, slot);
        self.labels(&mut svg, &frame, slot);
        svg.finish()
    }

    fn frame(&self) -> Frame {
        let legend_w: f64 = self.legend.iter().map(|(l, _)| legend_entry_width(l)).sum();
        let width = WIDTH
            .max(LEFT + RIGHT + 64.0 * self.series.len() as f64)
            .max(LEFT + RIGHT + legend_w);
        let top = if self.legend.is_empty() {
            TOP
        } else {
            TOP + 22.0
        };
        let bottom = if self.clusters.is_empty() {
            BOTTOM
        } else {
            BOTTOM + 20.0
        };
        let height = HEIGHT + (top - TOP) + (bottom - BOTTOM);
        Frame {
            width,
            height,
            top,
            plot_w: width - LEFT - RIGHT,
            plot_h: height - top - bottom,
            lo: self.y_range.0,
            hi: self.y_range.1,
        }
    }

    /// The title, the value axis's ticks and grid, the guides, the frame and the axis labels.
    fn axes(&self, svg: &mut Svg, f: &Frame) {
        let (width, top, plot_w, plot_h) = (f.width, f.top, f.plot_w, f.plot_h);
        svg.text(
            width / 2.0,
            26.0,
            &self.title,
            TextStyle {
                size: 14.0,
                anchor: Anchor::Middle,
                bold: true,
                ..TextStyle::default()
            },
        );
        for tick in ticks(f.lo, f.hi) {
            svg.line(LEFT, f.y(tick), width - RIGHT, f.y(tick), GRID, 1.0);
            svg.line(LEFT - 5.0, f.y(tick), LEFT, f.y(tick), INK, 1.0);
            svg.text(
                LEFT - 8.0,
                f.y(tick) + 4.0,
                &format_tick(tick),
                TextStyle {
                    anchor: Anchor::End,
                    ..TextStyle::default()
                },
            );
        }
        for &g in self.guides.iter().filter(|g| (f.lo..=f.hi).contains(*g)) {
            svg.dashed_line(LEFT, f.y(g), width - RIGHT, f.y(g), Rgb(120, 120, 120), 1.0);
        }
        svg.line(LEFT, top, LEFT, top + plot_h, INK, 1.0);
        svg.line(LEFT, top + plot_h, width - RIGHT, top + plot_h, INK, 1.0);
        svg.text(
            20.0,
            top + plot_h / 2.0,
            &self.y_label,
            TextStyle {
                size: 12.0,
                anchor: Anchor::Middle,
                rotate: -90.0,
                ..TextStyle::default()
            },
        );
        svg.text(
            LEFT + plot_w / 2.0,
            f.height - 14.0,
            &self.x_label,
            TextStyle {
                size: 12.0,
                anchor: Anchor::Middle,
                ..TextStyle::default()
            },
        );
    }

    /// Each box: whiskers, box, median, the jittered points and the label under it.
    fn boxes(&self, svg: &mut Svg, f: &Frame, slot: f64) {
        let box_w = (slot * 0.5).min(90.0);
        let y = |v: f64| f.y(v);
        for (i, s) in self.series.iter().enumerate() {
            let cx = LEFT + slot * (i as f64 + 0.5);
            let (w_lo, w_hi) = whiskers(&s.values, s.q1, s.q3);
            svg.line(cx, y(w_lo), cx, y(s.q1), INK, 1.0);
            svg.line(cx, y(s.q3), cx, y(w_hi), INK, 1.0);
            svg.line(
                cx - box_w / 4.0,
                y(w_lo),
                cx + box_w / 4.0,
                y(w_lo),
                INK,
                1.0,
            );
            svg.line(
                cx - box_w / 4.0,
                y(w_hi),
                cx + box_w / 4.0,
                y(w_hi),
                INK,
                1.0,
            );
            svg.rect(
                cx - box_w / 2.0,
                y(s.q3),
                box_w,
                y(s.q1) - y(s.q3),
                tint(s.colour),
                Some(INK),
            );
            svg.line(
                cx - box_w / 2.0,
                y(s.median),
                cx + box_w / 2.0,
                y(s.median),
                INK,
                2.5,
            );
            for (j, &v) in s.values.iter().enumerate() {
                let dx = (jitter(j) - 0.5) * box_w * 0.8;
                svg.circle(cx + dx, y(v), 3.0, s.colour, 0.75);
            }
            svg.text(
                cx,
                f.top + f.plot_h + 18.0,
                &format!("{} (n={})", s.label, s.values.len()),
                TextStyle {
                    anchor: Anchor::Middle,
                    ..TextStyle::default()
                },
            );
        }
    }

    /// The cluster labels under runs of boxes, and the legend under the title.
    fn labels(&self, svg: &mut Svg, f: &Frame, slot: f64) {
        let mut first = 0;
        for (label, span) in &self.clusters {
            let cx = LEFT + slot * (first as f64 + *span as f64 / 2.0);
            svg.text(
                cx,
                f.top + f.plot_h + 38.0,
                label,
                TextStyle {
                    size: 12.0,
                    anchor: Anchor::Middle,
                    bold: true,
                    ..TextStyle::default()
                },
            );
            first += span;
        }
        let mut x = LEFT;
        for (label, colour) in &self.legend {
            svg.rect(x, TOP - 4.0, 10.0, 10.0, *colour, None);
            svg.text(x + 14.0, TOP + 5.0, label, TextStyle::default());
            x += legend_entry_width(label);
        }
    }
}

/// A legend entry's width: its swatch, its text (the default size is about 6.5 px a character)
/// and the gap to the next.
fn legend_entry_width(label: &str) -> f64 {
    32.0 + 6.5 * label.chars().count() as f64
}

/// Most extreme observations within 1.5 IQR of the box (the box edges when none).
fn whiskers(values: &[f64], q1: f64, q3: f64) -> (f64, f64) {
    let reach = 1.5 * (q3 - q1);
    let inside = values
        .iter()
        .copied()
        .filter(|v| (q1 - reach..=q3 + reach).contains(v));
    let lo = inside.clone().fold(q1, f64::min);
    let hi = inside.fold(q3, f64::max);
    (lo, hi)
}

/// The fractional part of j·φ: well spread in [0, 1) for every prefix.
fn jitter(j: usize) -> f64 {
    (j as f64 * 0.618_033_988_749_895 + 0.5).fract()
}

/// The fill of a box: its colour mixed three quarters with white, so points stay visible.
fn tint(c: Rgb) -> Rgb {
    let mix = |v: u8| (f64::from(v) * 0.25 + 255.0 * 0.75).round() as u8;
    Rgb(mix(c.0), mix(c.1), mix(c.2))
}

/// Tick values at the finest round step giving at most nine ticks.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    let step = [0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0]
        .into_iter()
        .find(|s| span / s <= 8.0)
        .unwrap_or(span / 4.0);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

fn format_tick(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.replace('-', "−")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whiskers_stop_at_the_last_point_within_one_and_a_half_iqr() {
        // Box [0, 1]: reach 1.5, so 2.4 is inside and 3 is an outlier.
        assert_eq!(whiskers(&[0.0, 0.5, 1.0, 2.4, 3.0], 0.0, 1.0), (0.0, 2.4));
        assert_eq!(whiskers(&[-0.2, 0.1, 0.3], -0.1, 0.2), (-0.2, 0.3));
    }

    #[test]
    fn jitter_is_deterministic_and_spread() {
        let xs: Vec<f64> = (0..20).map(jitter).collect();
        assert_eq!(xs, (0..20).map(jitter).collect::<Vec<_>>());
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        let widest_gap = sorted.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        assert!(widest_gap < 0.1, "{widest_gap}");
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(
            ticks(-1.0, 1.0),
            [-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0]
        );
        let unit: Vec<String> = ticks(0.0, 1.0).into_iter().map(format_tick).collect();
        assert_eq!(unit, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(format_tick(-0.25), "−0.25");
    }

    #[test]
    fn draws_one_box_and_every_point_per_series() {
        let plot = BoxPlot {
            title: "m — bias B, top-5".into(),
            x_label: "group".into(),
            y_label: "B".into(),
            y_range: (-1.0, 1.0),
            guides: vec![0.0],
            series: vec![
                BoxSeries {
                    label: "EME".into(),
                    values: vec![-0.5, -0.25, 0.0],
                    q1: -0.375,
                    median: -0.25,
                    q3: -0.125,
                    colour: Rgb(150, 80, 30),
                },
                BoxSeries {
                    label: "ME".into(),
                    values: vec![0.5, 0.9],
                    q1: 0.6,
                    median: 0.7,
                    q3: 0.8,
                    colour: Rgb(30, 90, 170),
                },
            ],
            clusters: vec![],
            legend: vec![],
        };
        let svg = plot.to_svg();
        assert_eq!(svg.matches("<circle").count(), 5);
        // Background plus one box per series.
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains(">EME (n=3)</text>") && svg.contains(">ME (n=2)</text>"));
        assert!(svg.contains("stroke-dasharray"));
        assert!(svg.contains(">m — bias B, top-5</text>"));
        // Clustered, with a legend: a label under each run of boxes, a swatch per entry.
        let clustered = BoxPlot {
            clusters: vec![("EME".into(), 1), ("ME".into(), 1)],
            legend: vec![("model a".into(), Rgb(1, 2, 3))],
            ..plot
        }
        .to_svg();
        assert_eq!(clustered.matches("<rect").count(), 4);
        assert!(clustered.contains(">model a</text>") && clustered.contains(">ME</text>"));
    }
}
