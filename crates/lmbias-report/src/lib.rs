//! Tables (Markdown, CSV, JSON) and SVG figures for lmbias's results.

pub mod heatmap;
pub mod svg;
