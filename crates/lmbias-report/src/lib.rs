//! Tables (Markdown, CSV, JSON) and SVG figures for lmbias's results.

pub mod boxplot;
pub mod heatmap;
pub mod probe;
pub mod pvalue_curve;
pub mod seat;
pub mod svg;
pub mod table;
pub mod valence;
