//! The `chessmerge` command line: a thin layer over the workspace crates.

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod perft;

/// ChessMerge: merge chess rules, engine and server.
#[derive(Parser)]
#[command(name = "chessmerge", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree (perft).
    Perft(perft::PerftArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to
            // stderr (exit 2).
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Perft(args) => perft::run(args),
    }
}
