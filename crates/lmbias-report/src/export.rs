//! Every figure as SVG, PNG and PDF, sized in points for print. The renderers draw in units
//! laid out around their text (body text 11 units, titles 14, ticks 9); [`FontSize`] says
//! how large the body text is printed, and the whole drawing scales with it, so a figure keeps
//! its proportions and its text the size asked for: at the default 11 pt a unit is a point
//! (a 460-unit figure is 460 pt, 6.4 in, wide), at 9 pt the same figure is 376 pt wide. The SVG
//! states its size in points; resvg rasterises it at [`PNG_DPI`] on white and svg2pdf writes
//! it as one vector PDF page of that size (text as outlines), both from one parsed tree with
//! the DejaVu Sans shipped in `fonts/` as the only fonts, so that a figure looks the same on
//! every machine (system fonts are never read).

use std::sync::Arc;

use resvg::{tiny_skia, usvg};

use crate::svg::{BODY_TEXT, num, size_attributes};

/// A PNG's resolution: 300 dots per inch of the printed size, what journals ask of figures.
pub const PNG_DPI: f32 = 300.0;

/// How large a figure's body text (row and axis labels) is printed, in points; titles, ticks
/// and cell text keep their proportions to it, and the drawing scales with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FontSize(f64);

impl FontSize {
    /// The size the renderers draw at: one unit a point.
    pub const DEFAULT: FontSize = FontSize(BODY_TEXT);
    /// The sizes accepted: a figure's smallest text (ticks) stays above 4 pt, which print
    /// still shows, and its largest below 50 pt.
    pub const RANGE: std::ops::RangeInclusive<f64> = 5.0..=36.0;

    /// Body text of `points`, if within [`FontSize::RANGE`].
    pub fn points(points: f64) -> Result<FontSize, ExportError> {
        if Self::RANGE.contains(&points) {
            Ok(FontSize(points))
        } else {
            Err(ExportError::FontSize(points))
        }
    }

    /// How many points a unit of the drawing is.
    fn scale(self) -> f64 {
        self.0 / BODY_TEXT
    }
}

impl Default for FontSize {
    fn default() -> Self {
        FontSize::DEFAULT
    }
}

impl std::fmt::Display for FontSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} pt", self.0)
    }
}

/// One figure in every format, and the size it prints at.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The bytes of each of [`FORMATS`], in order.
    pub files: [Vec<u8>; 3],
    /// Its printed width in points (the SVG's and the PDF page's).
    pub width_pt: f64,
    /// Its printed height in points.
    pub height_pt: f64,
}

/// Why a figure could not be turned into PNG or PDF.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A font size outside [`FontSize::RANGE`].
    #[error("a font size of {0} pt: give 5 to 36 pt")]
    FontSize(f64),
    /// Our SVG did not parse: a renderer's bug.
    #[error("the figure's SVG does not parse: {0}")]
    Parse(String),
    /// A figure too large for a pixmap (or of no size).
    #[error("the figure of {width} × {height} is too large or empty to rasterise")]
    Size {
        /// Its width in SVG units.
        width: f32,
        /// Its height.
        height: f32,
    },
    /// The PNG or PDF writer failed.
    #[error("writing the figure as {format}: {message}")]
    Write {
        /// "PNG" or "PDF".
        format: &'static str,
        /// The writer's reason.
        message: String,
    },
}

/// The file extensions written beside each other for one figure, in order.
pub const FORMATS: [&str; 3] = ["svg", "png", "pdf"];

/// The figure `svg`, as a renderer drew it, in each of [`FORMATS`] with its body text at
/// `font`.
pub fn formats(svg: &str, font: FontSize) -> Result<Figure, ExportError> {
    let (svg, width_pt, height_pt) = in_points(svg, font.scale())?;
    let tree = tree(&svg)?;
    let (png, pdf) = (png(&tree)?, pdf(&tree)?);
    Ok(Figure {
        files: [svg.into_bytes(), png, pdf],
        width_pt,
        height_pt,
    })
}

/// `svg` with the size in its opening tag (`width="460" height="300"`, in units) stated in
/// points, `scale` points a unit; its viewBox keeps the units, so nothing inside changes.
fn in_points(svg: &str, scale: f64) -> Result<(String, f64, f64), ExportError> {
    let [(width_at, width), (height_at, height)] = size_attributes(svg).ok_or_else(|| {
        ExportError::Parse("the opening <svg> tag gives no width and height".into())
    })?;
    let (width, height) = (width * scale, height * scale);
    let out = format!(
        "{}{}pt{}{}pt{}",
        &svg[..width_at.start],
        num(width),
        &svg[width_at.end..height_at.start],
        num(height),
        &svg[height_at.end..]
    );
    Ok((out, width, height))
}

fn tree(svg: &str) -> Result<usvg::Tree, ExportError> {
    let mut fonts = usvg::fontdb::Database::new();
    fonts.load_font_data(include_bytes!("../fonts/DejaVuSans.ttf").to_vec());
    fonts.load_font_data(include_bytes!("../fonts/DejaVuSans-Bold.ttf").to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    let options = usvg::Options {
        font_family: "DejaVu Sans".to_owned(),
        fontdb: Arc::new(fonts),
        ..usvg::Options::default()
    };
    usvg::Tree::from_str(svg, &options).map_err(|e| ExportError::Parse(e.to_string()))
}

fn png(tree: &usvg::Tree) -> Result<Vec<u8>, ExportError> {
    let size = tree.size();
    let too_large = ExportError::Size {
        width: size.width(),
        height: size.height(),
    };
    // usvg gives the size in CSS pixels, 96 an inch.
    let scale = PNG_DPI / 96.0;
    let pixels = size.to_int_size().scale_by(scale).ok_or(too_large)?;
    let mut pixmap =
        tiny_skia::Pixmap::new(pixels.width(), pixels.height()).ok_or(ExportError::Size {
            width: size.width(),
            height: size.height(),
        })?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    // Drawn on white, every pixel is opaque: premultiplied RGBA is plain RGB, and its alpha
    // only weighs.
    let rgb: Vec<u8> = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let failed = |e: png::EncodingError| ExportError::Write {
        format: "PNG",
        message: e.to_string(),
    };
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.write_image_data(&rgb).map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(bytes)
}

/// The PDF, its text drawn as outlines: svg2pdf 0.13 numbers embedded fonts in a hash map's
/// order, which changes from one process to the next, and a figure must be the same bytes
/// each time it is made (docs/results is compared byte for byte). The glyphs are DejaVu
/// Sans's; the text cannot be selected.
fn pdf(tree: &usvg::Tree) -> Result<Vec<u8>, ExportError> {
    svg2pdf::to_pdf(
        tree,
        svg2pdf::ConversionOptions {
            embed_text: false,
            ..svg2pdf::ConversionOptions::default()
        },
        // usvg's pixels are 96 an inch: the page is the SVG's size in points.
        svg2pdf::PageOptions { dpi: 96.0 },
    )
    .map(in_order)
    .map_err(|e| ExportError::Write {
        format: "PDF",
        message: e.to_string(),
    })
}

/// `pdf` with the entries of each resources dictionary (`/gs0 5 0 R`, `/gs1 7 0 R`, one a line)
/// sorted: svg2pdf 0.13 writes them (a figure's graphics states) in a hash map's order, which changes from one process to
/// the next, and a figure must be the same bytes each time it is made (docs/results is
/// compared byte for byte). Sorting lines within a run keeps every byte offset after it, so
/// the cross-reference table stays right.
fn in_order(pdf: Vec<u8>) -> Vec<u8> {
    fn entry(line: &[u8]) -> bool {
        let text = line.trim_ascii_start();
        let Some(rest) = text.strip_prefix(b"/") else {
            return false;
        };
        let words: Vec<&[u8]> = rest.split(|b| *b == b' ').collect();
        matches!(words[..], [name, number, b"0", b"R"]
            if name.iter().all(u8::is_ascii_alphanumeric) && number.iter().all(u8::is_ascii_digit))
            && line.len() > text.len()
    }
    let mut lines: Vec<&[u8]> = pdf.split(|b| *b == b'\n').collect();
    let mut start = 0;
    while start < lines.len() {
        let end = start + lines[start..].iter().take_while(|l| entry(l)).count();
        lines[start..end].sort_unstable();
        start = end.max(start + 1);
    }
    lines.join(&b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGURE: &str = r#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50" viewBox="0 0 200 50"><text x="10" y="30" font-family="DejaVu Sans" font-size="20">weat6</text></svg>"#;

    /// At the default size a unit is a point: the SVG says 200 × 50 pt and keeps its units
    /// inside; the PNG is that size at 300 dpi (200 pt = 2.78 in = 833 px), white where nothing
    /// is drawn, and shows its text (glyphs drawn: dark pixels where a label is); the PDF is
    /// one page of 200 × 50 pt, its text drawn as outlines (no font listed).
    #[test]
    fn a_figure_becomes_a_png_and_a_pdf_of_its_size_in_points() {
        let figure = formats(FIGURE, FontSize::DEFAULT).unwrap();
        assert_eq!((figure.width_pt, figure.height_pt), (200.0, 50.0));
        let [svg, png, pdf] = figure.files;
        assert_eq!(
            String::from_utf8(svg).unwrap(),
            FIGURE.replace(
                r#"width="200" height="50""#,
                r#"width="200pt" height="50pt""#
            )
        );
        let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
        let inches = (200.0 / 72.0, 50.0 / 72.0);
        let expected = (inches.0 * 300.0, inches.1 * 300.0);
        assert!(
            (f64::from(pixmap.width()) - expected.0).abs() <= 1.5
                && (f64::from(pixmap.height()) - expected.1).abs() <= 1.5,
            "{} × {} px, not {expected:?}",
            pixmap.width(),
            pixmap.height()
        );
        let dark = pixmap.pixels().iter().filter(|p| p.red() < 128).count();
        assert!(dark > 500, "{dark} dark pixels: the text was not drawn");
        let corner = pixmap.pixel(0, 0).unwrap();
        assert_eq!(
            (corner.red(), corner.green(), corner.blue()),
            (255, 255, 255)
        );
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.starts_with("%PDF-"), "{}", &text[..20]);
        assert!(
            text.contains("/MediaBox [0 0 200 50]"),
            "no page of 200 × 50 pt"
        );
        assert!(!text.contains("/Font"), "a font is listed");
        assert!(pdf.len() > 1000, "{} bytes: no outlines drawn", pdf.len());
    }

    /// Body text at 5.5 pt, half the drawn 11 units: every format is half the size, and the
    /// text inside is untouched (its 20 units now print at 10 pt).
    #[test]
    fn a_font_size_scales_the_whole_figure() {
        let figure = formats(FIGURE, FontSize::points(5.5).unwrap()).unwrap();
        assert_eq!((figure.width_pt, figure.height_pt), (100.0, 25.0));
        let [svg, png, pdf] = figure.files;
        let svg = String::from_utf8(svg).unwrap();
        assert!(
            svg.contains(r#"width="100pt" height="25pt" viewBox="0 0 200 50""#),
            "{svg}"
        );
        assert!(svg.contains(r#"font-size="20""#), "{svg}");
        let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert!(
            (f64::from(pixmap.width()) - 100.0 / 72.0 * 300.0).abs() <= 1.5,
            "{} px",
            pixmap.width()
        );
        assert!(String::from_utf8_lossy(&pdf).contains("/MediaBox [0 0 100 25]"));
    }

    #[test]
    fn a_font_size_out_of_range_is_refused() {
        for points in [4.9, 36.5, f64::NAN, 0.0, -11.0] {
            let err = FontSize::points(points).unwrap_err();
            assert!(err.to_string().contains("give 5 to 36 pt"), "{err}");
        }
        assert_eq!(FontSize::points(11.0).unwrap(), FontSize::DEFAULT);
    }

    /// Resources dictionaries come out sorted, and nothing else moves.
    #[test]
    fn resource_entries_are_sorted_in_place() {
        let pdf =
            b"1 0 obj\n<<\n  /Font <<\n      /fo1 2 0 R\n      /fo0 1 0 R\n  >>\n/Type /Page\n>>\n"
                .to_vec();
        let sorted = in_order(pdf.clone());
        assert_eq!(sorted.len(), pdf.len());
        assert_eq!(
            String::from_utf8(sorted).unwrap(),
            "1 0 obj\n<<\n  /Font <<\n      /fo0 1 0 R\n      /fo1 2 0 R\n  >>\n/Type /Page\n>>\n"
        );
    }

    #[test]
    fn a_broken_svg_is_an_error() {
        assert!(matches!(
            formats("<svg", FontSize::DEFAULT),
            Err(ExportError::Parse(_))
        ));
        assert!(matches!(
            formats("<svg><text>no size</text></svg>", FontSize::DEFAULT),
            Err(ExportError::Parse(_))
        ));
    }
}
