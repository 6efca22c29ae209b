//! The period minimal pairs (issue #37, item 5): `datasets/period-pairs/kjv-web.csv`, made by
//! lmbias-runs' `draw` (as `lmbias draw-pairs` makes them from any parallel corpora) from the
//! verses held out of the period models' training (lmbias-studies' `drawn_sentences::held_out`) whose
//! King James and World English wordings differ in at most [`MAX_WORDS`] words, in
//! CrowS-Pairs' CSV layout so that `lmbias crows` scores them as it scores CrowS-Pairs:
//! `sent_more` is the Early Modern wording, `sent_less` the Modern one, every pair `stereo`,
//! `bias_type` `period`. A model's "stereotypical" share is then the share of verses where it
//! prefers the Early Modern wording. `cargo xtask draw-pairs` writes it.

use std::num::NonZeroUsize;
use std::path::Path;

use anyhow::{Context, Result};
use lmbias_runs::draw;

/// Where the pairs live, under `datasets/`.
pub const FILE: &str = "period-pairs/kjv-web.csv";

/// The most words a pair's wordings may differ in, on each side (ours: "a few words").
pub const MAX_WORDS: NonZeroUsize = NonZeroUsize::new(3).unwrap();

/// The pairs' CSV as a fresh construction writes it.
pub fn pairs_csv() -> Result<String> {
    let [kjv, web] = crate::corpora::period_corpora()?;
    let rows = draw::pairs(&crate::drawn::parallel(&kjv, &web)?, MAX_WORDS)?;
    Ok(draw::pairs_csv(&rows))
}

/// Writes a fresh construction to `out`.
pub fn write(out: &Path) -> Result<()> {
    let csv = pairs_csv()?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create", dir.display()))?;
    }
    lmbias_runs::write_atomically(out, csv.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_runs::data::crows::PairSet;

    /// The committed pairs are what the held-out verses give: byte for byte; every pair reads
    /// as CrowS-Pairs' CSV, none identical.
    #[test]
    fn the_period_pairs_are_reproducible() {
        let committed = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../datasets")
            .join(FILE);
        let fresh = pairs_csv().unwrap_or_else(|e| panic!("{e:#}"));
        let file = std::fs::read_to_string(&committed).unwrap();
        assert!(
            fresh == file,
            "datasets/{FILE} is not fresh: run `cargo xtask draw-pairs`"
        );
        let set = PairSet::read(&committed).unwrap();
        assert!(set.pairs().len() > 100, "{}", set.pairs().len());
        assert!(set.identical().is_empty());
        assert!(set.pairs().iter().all(|p| p.bias_type == "period"));
    }
}
