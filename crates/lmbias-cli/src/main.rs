//! `lmbias`: measure social and historical bias in masked language models.
//! Each subcommand lives in its own module and only parses, calls a library crate, and prints.

use clap::{Parser, Subcommand};

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
enum Command {}

fn main() {
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {};
    if let Err(err) = result {
        // One line: the chain joined, so every error names its file and field.
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
