//! Every figure as SVG, PNG and PDF: the SVG is what the renderers draw; resvg rasterises it
//! (twice its size in pixels, on white) and svg2pdf writes it as vector PDF (a page of one
//! point per SVG unit: a 460-unit figure is 460 pt, 6.4 in, wide; text as outlines), both
//! from one
//! parsed tree with the DejaVu Sans shipped in `fonts/` as the only fonts, so that a figure
//! looks the same on every machine (system fonts are never read).

use std::sync::Arc;

use resvg::{tiny_skia, usvg};

/// How many pixels a PNG gives each SVG unit: 2, about 192 dpi for a figure drawn at 96.
pub const PNG_SCALE: f32 = 2.0;

/// Why a figure could not be turned into PNG or PDF.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
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

/// The figure `svg` as the bytes of each of [`FORMATS`].
pub fn formats(svg: &str) -> Result<[Vec<u8>; 3], ExportError> {
    let tree = tree(svg)?;
    Ok([svg.as_bytes().to_vec(), png(&tree)?, pdf(&tree)?])
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
    let pixels = size.to_int_size().scale_by(PNG_SCALE).ok_or(too_large)?;
    let mut pixmap =
        tiny_skia::Pixmap::new(pixels.width(), pixels.height()).ok_or(ExportError::Size {
            width: size.width(),
            height: size.height(),
        })?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        tree,
        tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| ExportError::Write {
        format: "PNG",
        message: e.to_string(),
    })
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
        svg2pdf::PageOptions::default(),
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

    /// A figure's PNG is its size twice over, white where nothing is drawn, and shows its text
    /// (glyphs drawn: dark pixels where a label is); its PDF is one page of the figure's size,
    /// one point per SVG unit, its text drawn as outlines (no font listed).
    #[test]
    fn a_figure_becomes_a_png_and_a_pdf() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50" viewBox="0 0 200 50"><text x="10" y="30" font-family="DejaVu Sans" font-size="20">weat6</text></svg>"#;
        let [same, png, pdf] = formats(svg).unwrap();
        assert_eq!(same, svg.as_bytes());
        let pixmap = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (400, 100));
        let dark = pixmap.pixels().iter().filter(|p| p.red() < 128).count();
        assert!(dark > 200, "{dark} dark pixels: the text was not drawn");
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
        assert!(matches!(formats("<svg"), Err(ExportError::Parse(_))));
    }
}
