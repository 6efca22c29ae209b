//! lmbias-data's integration tests, one binary (as ripgrep does): each module
//! below was a test binary of its own, and each linked the whole dependency tree.

mod association;
mod bom;
mod corpus;
mod crows;
mod damaged_files;
mod embeddings;
mod never_panics;
mod valence_dataset;

/// The error and its causes as anyhow's `{:#}` prints them: each once, joined by ": ".
fn chain(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        assert!(
            !line.contains(&e.to_string()),
            "cause printed twice: {line} / {e}"
        );
        line = format!("{line}: {e}");
        cause = e.source();
    }
    line
}
