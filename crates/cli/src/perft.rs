//! `chessmerge perft`: the binding output format of spec section 1.3.

use anyhow::{Context, Result};
use chessmerge_rules::{Position, START_FEN, Variant, perft, perft_divide};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

#[derive(Args)]
pub struct PerftArgs {
    /// The rule set: chessmerge, chessplus, fusion or standard.
    #[arg(long, default_value = "chessmerge")]
    variant: String,
    /// The position, as Merge-FEN (default: the start position).
    #[arg(long, default_value = START_FEN)]
    fen: String,
    /// How many plies deep to count.
    #[arg(long)]
    depth: u32,
    /// Print the count below each legal root move.
    #[arg(long)]
    divide: bool,
}

pub fn run(args: PerftArgs) -> Result<ExitCode> {
    let variant: Variant = args.variant.parse()?;
    let pos = Position::from_fen(variant, &args.fen)?;
    let mut out = std::io::stdout().lock();
    let total = if args.divide {
        let rows = perft_divide(&pos, args.depth);
        for (m, n) in &rows {
            writeln!(out, "{m}: {n}").context("writing output")?;
        }
        writeln!(out).context("writing output")?;
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft(&pos, args.depth)
    };
    writeln!(out, "Nodes searched: {total}").context("writing output")?;
    Ok(ExitCode::SUCCESS)
}
