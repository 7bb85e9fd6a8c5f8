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
    /// Evaluation weights written by `chessmerge tune` (for the file's
    /// variant; the other variants keep the built-in values).
    #[arg(long)]
    pub params: Option<std::path::PathBuf>,
    /// A network written by `chessmerge train-net`, used in its variant
    /// (UCI `UseNNUE false` turns it off).
    #[arg(long)]
    pub net: Option<std::path::PathBuf>,
}

/// Runs the loop until `quit` or the end of input.
pub fn run(args: UciArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.params {
        crate::tune::install_file(path)?;
    }
    if let Some(path) = &args.net {
        let net = chessmerge_engine::nnue::Network::load(path).map_err(|e| anyhow::anyhow!(e))?;
        chessmerge_engine::nnue::install(net).map_err(|e| anyhow::anyhow!(e))?;
    }
    let stdin = std::io::stdin();
    chessmerge_engine::uci::run_loop(stdin.lock(), std::io::stdout(), args.variant);
    Ok(())
}
