//! `lmbias draw-sentences` and `lmbias draw-pairs`: valence sentences and period minimal
//! pairs drawn from one's own parallel corpora (lmbias-runs' `draw`), as `reproduce-paper`
//! draws them from the two Bibles.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use anyhow::{Context, Result};
use lmbias_runs::draw::{self, Parallel, SentenceSettings};

use crate::output::{self, outln};

/// The corpora both commands read.
#[derive(clap::Args)]
pub struct CorporaArgs {
    /// The held-out passages in their Early Modern and their Modern wording: line i of one is
    /// passage i of the other (text, or JSON lines with "text" and optionally "line", the
    /// passage's line in the whole corpus).
    #[arg(long, num_args = 2, value_names = ["EARLY_MODERN", "MODERN"], required = true)]
    held_out: Vec<PathBuf>,
    /// The two corpora the period models trained on (text or JSON lines): they rate words,
    /// and no held-out passage may be in them.
    #[arg(long, num_args = 2, value_names = ["EARLY_MODERN", "MODERN"], required = true)]
    training: Vec<PathBuf>,
    /// Where to write (replaced whole; never one of the corpora).
    #[arg(long)]
    out: PathBuf,
}

impl CorporaArgs {
    fn load(&self) -> Result<Parallel> {
        let inputs: Vec<(&str, &std::path::Path)> =
            (self.held_out.iter().map(|p| ("--held-out", p.as_path())))
                .chain(self.training.iter().map(|p| ("--training", p.as_path())))
                .collect();
        output::check_file("--out", &self.out, &inputs)?;
        Ok(Parallel::load(
            [&self.held_out[0], &self.held_out[1]],
            [&self.training[0], &self.training[1]],
        )?)
    }
}

#[derive(clap::Args)]
pub struct DrawSentencesArgs {
    #[command(flatten)]
    corpora: CorporaArgs,
    /// Early Modern sentences, and as many Modern ones.
    #[arg(long, default_value_t = SentenceSettings::default().per_group)]
    per_group: NonZeroUsize,
    /// The seed of the draw.
    #[arg(long, default_value_t = SentenceSettings::default().seed)]
    seed: u64,
    /// The mask token written into the sentences (the models' own: `[MASK]`, `<mask>`).
    #[arg(long, default_value = "[MASK]")]
    mask: String,
    /// The dataset's name.
    #[arg(long, default_value = "drawn")]
    name: String,
    /// The dataset's description (the counts follow it).
    #[arg(long)]
    description: Option<String>,
}

/// Draws the sentences and writes the valence dataset.
pub fn sentences(args: DrawSentencesArgs) -> Result<()> {
    let parallel = args.corpora.load()?;
    let defaults = SentenceSettings::default();
    let settings = SentenceSettings {
        per_group: args.per_group,
        seed: args.seed,
        mask: args.mask,
        name: args.name,
        description: args.description.unwrap_or(defaults.description.clone()),
        ..defaults
    };
    let json = draw::sentences(&parallel, &settings)?;
    lmbias_runs::write_atomically(&args.corpora.out, json).with_context(|| "--out".to_owned())?;
    Ok(())
}

#[derive(clap::Args)]
pub struct DrawPairsArgs {
    #[command(flatten)]
    corpora: CorporaArgs,
    /// The most words a pair's two wordings may differ in, on each side.
    #[arg(long, default_value_t = NonZeroUsize::new(3).expect("3 is not 0"))]
    max_words: NonZeroUsize,
}

/// Finds the minimal pairs and writes them as CrowS-Pairs' CSV.
pub fn pairs(args: DrawPairsArgs) -> Result<()> {
    let parallel = args.corpora.load()?;
    let csv = draw::pairs_csv(&draw::pairs(&parallel, args.max_words)?);
    lmbias_runs::write_atomically(&args.corpora.out, csv).with_context(|| "--out".to_owned())?;
    Ok(())
}

#[derive(clap::Args)]
pub struct HoldOutArgs {
    /// The whole corpora, Early Modern and Modern wording: passage i of one is passage i of the
    /// other (text, or JSON lines with "text").
    #[arg(long, num_args = 2, value_names = ["EARLY_MODERN", "MODERN"], required = true)]
    corpora: Vec<PathBuf>,
    /// The share of passages drawn (then every passage whose two wordings have the same words,
    /// and every one sharing a wording with a held-out one, are held out too).
    #[arg(long, default_value_t = 0.06)]
    share: f64,
    /// The seed of the draw.
    #[arg(long, default_value_t = 34)]
    seed: u64,
    /// The folder to write early-training.txt, modern-training.txt, early-held-out.jsonl and
    /// modern-held-out.jsonl into (each replaced whole).
    #[arg(long)]
    out: PathBuf,
}

/// Splits the corpora and writes the four files.
pub fn hold_out(args: HoldOutArgs) -> Result<()> {
    output::check_dir("--out", &args.out)?;
    let inputs: Vec<(&str, &std::path::Path)> = args
        .corpora
        .iter()
        .map(|p| ("--corpora", p.as_path()))
        .collect();
    let paths = draw::SPLIT_FILES.map(|name| args.out.join(name));
    for path in &paths {
        output::check_file("--out", path, &inputs)?;
    }
    let split = draw::split([&args.corpora[0], &args.corpora[1]], args.share, args.seed)?;
    for (path, text) in paths.iter().zip(split.texts()) {
        lmbias_runs::write_atomically(path, text).with_context(|| "--out".to_owned())?;
    }
    outln!(
        "held out {} of {} passages: {}",
        split.held,
        split.passages,
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    Ok(())
}
