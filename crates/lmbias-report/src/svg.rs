//! A tiny SVG builder shared by every lmbias figure.
//!
//! Figures are plain SVG 1.1 with inline attributes (no CSS, no scripts) so
//! they render the same in browsers, `rsvg-convert`, and LaTeX's svg package.

use std::fmt::Write as _;

/// Okabe–Ito colours, for series told apart by colour (models, curves): distinguishable with
/// the common colour-vision deficiencies.
pub(crate) const PALETTE: [Rgb; 7] = [
    Rgb(0, 114, 178),
    Rgb(213, 94, 0),
    Rgb(0, 158, 115),
    Rgb(204, 121, 167),
    Rgb(230, 159, 0),
    Rgb(86, 180, 233),
    Rgb(0, 0, 0),
];

/// Horizontal alignment of a text's anchor point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// The text starts at the point (left-aligned).
    Start,
    /// The text is centred on the point.
    Middle,
    /// The text ends at the point (right-aligned).
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// The size of body text (row and axis labels) in units; layouts are built around it, and
/// `export::FontSize` prints it at the size asked for.
pub(crate) const BODY_TEXT: f64 = 11.0;

/// How a text is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TextStyle {
    /// Font size in units ([`BODY_TEXT`] for body text).
    pub size: f64,
    /// Which point of the text sits at the given coordinates.
    pub anchor: Anchor,
    /// Bold weight, for titles.
    pub bold: bool,
    /// Clockwise rotation in degrees about the anchor point.
    pub rotate: f64,
    /// The text's colour.
    pub fill: Rgb,
}

impl Default for TextStyle {
    fn default() -> Self {
        TextStyle {
            size: BODY_TEXT,
            anchor: Anchor::Start,
            bold: false,
            rotate: 0.0,
            fill: Rgb::BLACK,
        }
    }
}

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Text and axes.
    pub(crate) const BLACK: Rgb = Rgb(0, 0, 0);
    /// Backgrounds, and text on dark fills.
    pub(crate) const WHITE: Rgb = Rgb(255, 255, 255);

    /// `#rrggbb`.
    pub(crate) fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// Relative luminance (WCAG), to pick a readable text colour on this fill.
    pub(crate) fn luminance(self) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(self.0) + 0.7152 * lin(self.1) + 0.0722 * lin(self.2)
    }

    /// Black or white, whichever reads better on `self`.
    pub(crate) fn contrasting_text(self) -> Rgb {
        if self.luminance() > 0.35 {
            Rgb::BLACK
        } else {
            Rgb::WHITE
        }
    }
}

/// An SVG document being built; `finish` returns its text.
#[derive(Debug)]
pub(crate) struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// An empty white canvas of `width` × `height` units (points at the default font size).
    pub(crate) fn new(width: f64, height: f64) -> Svg {
        Svg {
            width,
            height,
            body: String::new(),
        }
    }

    /// A filled rectangle; `stroke` draws a 1-unit outline.
    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: Rgb, stroke: Option<Rgb>) {
        let _ = write!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}""#,
            num(x),
            num(y),
            num(w),
            num(h),
            fill.hex()
        );
        if let Some(s) = stroke {
            let _ = write!(self.body, r#" stroke="{}" stroke-width="1""#, s.hex());
        }
        self.body.push_str("/>\n");
    }

    /// A solid line.
    pub(crate) fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: Rgb, width: f64) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            stroke.hex(),
            num(width)
        );
    }

    /// A line drawn in 4-unit dashes (reference levels such as zero).
    pub(crate) fn dashed_line(
        &mut self,
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        stroke: Rgb,
        width: f64,
    ) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}" stroke-dasharray="4 3"/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            stroke.hex(),
            num(width)
        );
    }

    /// A filled dot; `opacity` below 1 lets overlapping observations show.
    pub(crate) fn circle(&mut self, cx: f64, cy: f64, r: f64, fill: Rgb, opacity: f64) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="{}"/>"#,
            num(cx),
            num(cy),
            num(r),
            fill.hex(),
            num(opacity)
        );
    }

    /// Text whose baseline starts (or centres, or ends) at `(x, y)`.
    pub(crate) fn text(&mut self, x: f64, y: f64, content: &str, style: TextStyle) {
        let _ = write!(
            self.body,
            r#"<text x="{}" y="{}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{}" text-anchor="{}" fill="{}""#,
            num(x),
            num(y),
            num(style.size),
            style.anchor.as_str(),
            style.fill.hex()
        );
        if style.bold {
            self.body.push_str(r#" font-weight="bold""#);
        }
        if style.rotate != 0.0 {
            let _ = write!(
                self.body,
                r#" transform="rotate({} {} {})""#,
                num(style.rotate),
                num(x),
                num(y)
            );
        }
        let _ = writeln!(self.body, ">{}</text>", escape(content));
    }

    /// The document's text, with its size, viewBox and white background.
    pub(crate) fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n{body}</svg>\n",
            w = num(self.width),
            h = num(self.height),
            body = self.body
        )
    }
}

/// Figures made by [`Svg::finish`], one below the other in one figure as wide as the widest:
/// a figure too wide for a page, split into parts, reads at one page width.
pub(crate) fn stack(parts: &[String]) -> String {
    let size = |svg: &str, i: usize| -> f64 {
        size_attributes(svg).expect("a figure of Svg::finish names its size")[i].1
    };
    let width = parts.iter().map(|p| size(p, 0)).fold(0.0, f64::max);
    let mut body = String::new();
    let mut top = 0.0;
    for part in parts {
        // Svg::finish writes the opening tag, then the background, on lines of their own.
        let inner: Vec<&str> = part
            .lines()
            .skip(2)
            .take_while(|l| *l != "</svg>")
            .collect();
        let _ = writeln!(body, r#"<g transform="translate(0 {})">"#, num(top));
        body.push_str(&inner.join("\n"));
        body.push_str("\n</g>\n");
        top += size(part, 1);
    }
    let mut svg = Svg::new(width, top);
    svg.body = body;
    svg.finish()
}

/// The `width` and `height` of `svg`'s opening tag, each as where its value lies in `svg` and
/// the number there; `None` when the tag gives no number for either.
pub(crate) fn size_attributes(svg: &str) -> Option<[(std::ops::Range<usize>, f64); 2]> {
    let tag = &svg[..svg.find('>')?];
    let read = |name: &str| -> Option<(std::ops::Range<usize>, f64)> {
        let start = tag.find(name)? + name.len();
        let end = start + tag[start..].find('"')?;
        Some((start..end, tag[start..end].parse().ok()?))
    };
    Some([read(" width=\"")?, read(" height=\"")?])
}

/// Coordinates with at most two decimals: stable snapshots, small files.
pub(crate) fn num(v: f64) -> String {
    let s = format!("{:.2}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// XML-escape text content (test names and labels come from user files).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_in_text() {
        let mut svg = Svg::new(10.0, 10.0);
        svg.text(1.0, 2.0, "a<b & \"c\"", TextStyle::default());
        let out = svg.finish();
        assert!(out.contains(">a&lt;b &amp; &quot;c&quot;</text>"), "{out}");
    }

    #[test]
    fn numbers_are_compact() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!(num(-0.001), "0");
    }

    #[test]
    fn text_colour_contrasts_with_fill() {
        assert_eq!(Rgb(20, 20, 60).contrasting_text(), Rgb::WHITE);
        assert_eq!(Rgb(250, 240, 180).contrasting_text(), Rgb::BLACK);
    }
}
