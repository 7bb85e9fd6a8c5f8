//! `chessmerge perft`: the binding output format of spec section 1.3.

use anyhow::{Context, Result};
use chessmerge_rules::{Position, START_FEN, Variant, perft, perft_divide};
use clap::Args;
use std::io::{self, Write};
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
    match write_counts(&mut io::stdout().lock(), &pos, args.depth, args.divide) {
        // A reader that stopped early (`perft --divide | head -1`) is a
        // normal end for a command line tool, not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        written => {
            written.context("writing output")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Counts to `depth` and writes the rows (with `divide`) and the total.
fn write_counts(out: &mut impl Write, pos: &Position, depth: u32, divide: bool) -> io::Result<()> {
    let total = if divide {
        let rows = perft_divide(pos, depth);
        for (m, n) in &rows {
            writeln!(out, "{m}: {n}")?;
        }
        writeln!(out)?;
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft(pos, depth)
    };
    writeln!(out, "Nodes searched: {total}")
}
