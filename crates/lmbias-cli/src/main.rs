//! `lmbias`: measure social and historical bias in masked language models.
//! Each subcommand lives in its own module and only parses, calls a library crate, and prints.

use clap::{Parser, Subcommand};

mod embed;
mod fill_mask;
mod input;
mod model_args;
mod output;
mod probe;
mod seat;
mod train_mlm;
mod valence;
mod weat;

#[derive(Parser)]
#[command(
    name = "lmbias",
    version,
    about = "Measure social and historical bias in masked language models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Sentence vectors from a BERT or T5 checkpoint (cls, mean or first pooling, any layer), or from static word vectors (GloVe, word2vec).
    Embed(embed::EmbedArgs),
    /// The most probable tokens at the one mask of each text (masked language models only).
    FillMask(fill_mask::FillMaskArgs),
    /// Dusi 2024's categorical-association probe: χ² p against the n most relevant dimensions.
    Probe(probe::ProbeArgs),
    /// A battery of association tests (SEAT) on one or more models: effect sizes, p (Holm, BH), coverage, heatmaps.
    Seat(seat::SeatArgs),
    /// Train a masked LM: continue a BERT checkpoint on a corpus (domain adaptation) or start from scratch; writes a Hugging Face folder.
    TrainMlm(train_mlm::TrainMlmArgs),
    /// Temporal valence (Cuscito et al.): how Early Modern or Modern the proposals at a mask are.
    Valence(valence::ValenceArgs),
    /// One association test (WEAT/SEAT) on precomputed vectors: effect size and permutation p (sent-bias semantics).
    Weat(weat::WeatArgs),
}

fn main() {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Embed(args) => embed::run(args),
        Command::FillMask(args) => fill_mask::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Seat(args) => seat::run(args),
        Command::TrainMlm(args) => train_mlm::run(args),
        Command::Valence(args) => valence::run(args),
        Command::Weat(args) => weat::run(args),
    };
    if let Err(err) = result {
        // The reader of our output went away (`lmbias … | head -1`): end quietly and
        // successfully, as ripgrep does; what was asked for was delivered up to the close.
        if output::is_closed_stdout(&err) {
            std::process::exit(0);
        }
        // Each error names its own part and leaves its cause to the chain, so `{:#}`
        // prints every cause once, on one line.
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
