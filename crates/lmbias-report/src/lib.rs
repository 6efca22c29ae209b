//! Tables (Markdown, CSV, JSON) and SVG figures for lmbias's results.

pub mod boxplot;
pub mod caglidil;
pub mod heatmap;
pub mod probe;
pub mod pvalue_curve;
pub mod seat;
pub mod svg;
pub mod table;
pub mod valence;

/// A model name (a hub id or a path) reduced to characters safe in file names.
pub fn file_stem(model: &str) -> String {
    model
        .trim_matches(|c| c == '/' || c == '.')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
