//! `chessmerge uci`: the engine's UCI loop ([`chessmerge_engine::uci`])
//! on standard input and output.

use chessmerge_rules::Variant;

/// Arguments of `chessmerge uci`.
#[derive(Debug, Clone, clap::Args)]
pub struct UciArgs {
    /// Variant before any `setoption name UCI_Variant` (use `standard` for
    /// ordinary chess GUIs that do not set it).
    #[arg(long, default_value = "chessmerge")]
    pub variant: Variant,
}

/// Runs the loop until `quit` or the end of input.
pub fn run(args: UciArgs) {
    let stdin = std::io::stdin();
    chessmerge_engine::uci::run_loop(stdin.lock(), std::io::stdout(), args.variant);
}
