//! The `chessmerge` command line: a thin layer over the workspace crates.
// mimalloc instead of glibc's malloc: malloc and free were about 16% of a
// loaded server's CPU samples, and the server's CPU per move fell by 8-10%
// with it (docs/log/benchmarks-server-2026-11-30-to-12-05.md, "Paced
// players: mimalloc, ...").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bench;
mod bot;
mod chances;
mod datagen;
mod loadtest;
mod matches;
mod perft;
mod play;
mod players;
mod train_net;
mod tune;
mod uci;

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
    Uci(uci::UciArgs),
    /// Play a game against the engine in the terminal.
    Play(play::PlayArgs),
    /// Play two engine configurations against each other.
    Match(matches::MatchArgs),
    /// Search fixed positions to a fixed depth; print nodes and nps.
    Bench(bench::BenchArgs),
    /// Run the ChessMerge server (HTTP API, live streams, web page).
    Serve(chessmerge_server::ServeArgs),
    /// Accounts, for the server's operator: reset a password.
    User(chessmerge_server::UserArgs),
    /// Load a running server: simulated players playing random games.
    Loadtest(loadtest::LoadtestArgs),
    /// Play on a ChessMerge server as a bot account with a UCI engine.
    Bot(bot::BotArgs),
    /// Self-play games at a fixed node budget, recorded for tuning.
    Datagen(datagen::DatagenArgs),
    /// Fit evaluation weights to self-play data (Texel's method).
    Tune(tune::TuneArgs),
    /// Train the engine's network on self-play data.
    TrainNet(train_net::TrainNetArgs),
    /// Fit the analysis's winning-chances curve to self-play results.
    FitChances(chances::FitChancesArgs),
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
        Command::Perft(args) => return perft::run(args),
        Command::Uci(args) => uci::run(args)?,
        Command::Play(args) => play::run_play(args)?,
        Command::Match(args) => matches::run_match(args)?,
        Command::Bench(args) => bench::run(args)?,
        Command::Serve(args) => chessmerge_server::run(args)?,
        Command::User(args) => chessmerge_server::run_user(args)?,
        Command::Loadtest(args) => return loadtest::run(args),
        Command::Bot(args) => bot::run(args)?,
        Command::Datagen(args) => datagen::run(args)?,
        Command::Tune(args) => tune::run(args)?,
        Command::TrainNet(args) => train_net::run(args)?,
        Command::FitChances(args) => chances::run(args)?,
    }
    Ok(ExitCode::SUCCESS)
}
