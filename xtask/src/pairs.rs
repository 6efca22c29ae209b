//! The period minimal pairs (issue #37, item 5): `datasets/period-pairs/kjv-web.csv`, the
//! verses held out of the period models' training ([`crate::corpora::held_out_lines`]) whose
//! King James and World English wordings differ in at most [`MAX_WORDS`] words, in
//! CrowS-Pairs' CSV layout so that `lmbias crows` scores them as it scores CrowS-Pairs:
//! `sent_more` is the Early Modern wording, `sent_less` the Modern one, every pair `stereo`,
//! `bias_type` `period`. A model's "stereotypical" share is then the share of verses where it
//! prefers the Early Modern wording. `cargo xtask draw-pairs` writes it.

use std::path::Path;

use anyhow::{Context, Result};
use lmbias_runs::data::corpus::Corpus;
use lmbias_runs::studies::drawn_sentences::{VersePair, period_pairs};

/// Where the pairs live, under `datasets/`.
pub const FILE: &str = "period-pairs/kjv-web.csv";

/// The most words a pair's wordings may differ in, on each side (ours: "a few words").
pub const MAX_WORDS: usize = 3;

/// A CSV field, always quoted (RFC 4180).
fn field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// The pairs' CSV as a fresh construction writes it.
pub fn pairs_csv() -> Result<String> {
    let [kjv, web] = crate::corpora::period_corpora()?;
    let verses = crate::drawn::held_out_verses(&kjv, &web)?;
    let verses: Vec<VersePair<'_>> = verses
        .iter()
        .map(|(line, e, m)| VersePair {
            line: *line,
            early_modern: e,
            modern: m,
        })
        .collect();
    let (train_kjv, train_web) = (Corpus::read(&kjv.path)?, Corpus::read(&web.path)?);
    let pairs = period_pairs(
        &verses,
        [train_kjv.passages(), train_web.passages()],
        MAX_WORDS,
    )?;
    let mut out = String::from(
        ",sent_more,sent_less,stereo_antistereo,bias_type,changed_early_modern,changed_modern\n",
    );
    for p in &pairs {
        out.push_str(&format!(
            "{},{},{},stereo,period,{},{}\n",
            p.line,
            field(p.early_modern),
            field(p.modern),
            field(&p.early_words.join(" ")),
            field(&p.modern_words.join(" ")),
        ));
    }
    Ok(out)
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
