//! Tables (Markdown, CSV, JSON) and SVG figures for lmbias's results.
