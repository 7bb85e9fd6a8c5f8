//! The `chessmerge` command line: a thin layer over the workspace crates.

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod loadtest;
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
    /// Speak UCI on standard input and output (the engine).
    Uci(chessmerge_engine::uci::UciArgs),
    /// Play a game against the engine in the terminal.
    Play(chessmerge_engine::play::PlayArgs),
    /// Play two engine configurations against each other.
    Match(chessmerge_engine::matches::MatchArgs),
    /// Search fixed positions to a fixed depth; print nodes and nps.
    Bench(chessmerge_engine::bench::BenchArgs),
    /// Run the ChessMerge server (HTTP API, live streams, web page).
    Serve(chessmerge_server::ServeArgs),
    /// Load a running server: simulated players playing random games.
    Loadtest(loadtest::LoadtestArgs),
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
        Command::Uci(args) => chessmerge_engine::uci::run_uci(args).map(|()| ExitCode::SUCCESS),
        Command::Play(args) => chessmerge_engine::play::run_play(args).map(|()| ExitCode::SUCCESS),
        Command::Match(args) => {
            chessmerge_engine::matches::run_match(args).map(|()| ExitCode::SUCCESS)
        }
        Command::Bench(args) => {
            chessmerge_engine::bench::run_bench(args).map(|()| ExitCode::SUCCESS)
        }
        Command::Serve(args) => chessmerge_server::run(args).map(|()| ExitCode::SUCCESS),
        Command::Loadtest(args) => loadtest::run(args),
    }
}
