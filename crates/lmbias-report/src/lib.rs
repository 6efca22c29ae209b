//! Tables (Markdown, CSV, JSON) and SVG figures for lmbias's results: rendering only. What a
//! paper says, and the checks of its findings, are lmbias-papers'; [`papers`] lays them out
//! in the papers' own tables beside our runs.

mod boxplot;
pub mod crows;
pub mod export;
pub mod heatmap;
pub mod papers;
pub mod probe;
pub mod pvalue_curve;
pub mod seat;
mod svg;
pub mod table;
pub mod valence;
pub mod wefe;

/// A model name (a hub id or a path) reduced to characters safe in file names.
pub fn file_stem(model: &str) -> String {
    let mut stem = String::with_capacity(model.len());
    for c in model.trim_matches(|c| c == '/' || c == '.').chars() {
        let c = if c.is_ascii_alphanumeric() || "-_.".contains(c) {
            c
        } else {
            '_'
        };
        // "MiniLM + KJV (trained here)" is MiniLM_KJV_trained_here, not MiniLM___KJV__….
        if !(c == '_' && stem.ends_with('_')) {
            stem.push(c);
        }
    }
    stem.trim_end_matches('_').to_owned()
}
