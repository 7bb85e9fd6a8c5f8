//! `chessmerge play`: a game against the engine in the terminal.
//!
//! The board is drawn with four characters per square, so that a pair
//! shows both its letters: `(RN)` is a white rook+knight pair, `(qb)` a
//! black queen+bishop pair, ` R  ` a single white rook, ` .  ` an empty
//! square. Moves are accepted in the readable notation or in Merge-UCI;
//! commands: `undo`, `hint`, `fen`, `pgn`, `board`, `moves`, `resign`,
//! `help`, `quit`.

use anyhow::Result;
use chessmerge_engine::levels::{level_config, search_level};
use chessmerge_engine::limits::Limits;
use chessmerge_engine::search::{Imprecision, Searcher, splitmix};
use chessmerge_rules::{Color, Game, Position, Square, Variant, pgn};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{SystemTime, UNIX_EPOCH};

/// Arguments of `chessmerge play`.
#[derive(Debug, Clone, clap::Args)]
pub struct PlayArgs {
    /// Variant.
    #[arg(long, default_value = "chessmerge")]
    pub variant: Variant,
    /// Engine level, 1 (beginner) to 8 (full strength).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub level: u8,
    /// Your colour.
    #[arg(long, default_value = "white", value_parser = ["white", "black"])]
    pub color: String,
    /// Start from this Merge-FEN instead of the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Seed for the engine's randomness (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
}

/// `chessmerge play` on the terminal.
pub fn run_play(args: PlayArgs) -> Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    play_session(&args, stdin.lock(), &mut out)
}

/// Draws the board from `view`'s side, pairs as `(XY)`.
pub fn draw_board(pos: &Position, view: Color) -> String {
    let mut s = String::new();
    let files: Vec<u8> = match view {
        Color::White => (0..8).collect(),
        Color::Black => (0..8).rev().collect(),
    };
    let ranks: Vec<u8> = match view {
        Color::White => (0..8).rev().collect(),
        Color::Black => (0..8).collect(),
    };
    let header: String = files
        .iter()
        .map(|&f| format!("  {} ", (b'a' + f) as char))
        .collect();
    s.push_str(&format!("   {header}\n"));
    for &r in &ranks {
        s.push_str(&format!(" {} ", r + 1));
        for &f in &files {
            let sq = Square::from_coords(f, r).expect("on the board");
            let cell = match pos.unit_at(sq) {
                None => {
                    if (f + r) % 2 == 0 {
                        " :  ".to_owned()
                    } else {
                        " .  ".to_owned()
                    }
                }
                Some(u) => {
                    let letter = |role: chessmerge_rules::Role| match u.color {
                        Color::White => role.upper(),
                        Color::Black => role.lower(),
                    };
                    match u.second {
                        None => format!(" {}  ", letter(u.first)),
                        Some(second) => format!("({}{})", letter(u.first), letter(second)),
                    }
                }
            };
            s.push_str(&cell);
        }
        s.push_str(&format!(" {}\n", r + 1));
    }
    s.push_str(&format!("   {header}\n"));
    s
}

const HELP: &str = "Enter a move (readable notation such as Nf3, or Merge-UCI such as g1f3, Nd2f3, e7e8q),\n\
or one of: undo (take back your last move), hint, fen, pgn, board, moves, resign, help, quit.";

/// The interactive loop over any input and output (tested with scripts).
pub fn play_session<R: BufRead, W: Write>(args: &PlayArgs, input: R, out: &mut W) -> Result<()> {
    let start = match &args.fen {
        Some(f) => Position::from_fen(args.variant, f)?,
        None => Position::new(args.variant),
    };
    let human = if args.color == "black" {
        Color::Black
    } else {
        Color::White
    };
    let mut game = Game::new(start);
    let cfg = level_config(args.level);
    let mut searcher = Searcher::new(32, Arc::new(AtomicBool::new(false)));
    let mut seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let result_tag = |game: &Game, resigned: Option<Color>| -> String {
        if let Some(c) = resigned {
            return if c == Color::White { "0-1" } else { "1-0" }.to_owned();
        }
        game.outcome().map_or("*", |o| o.result()).to_owned()
    };
    writeln!(
        out,
        "ChessMerge: {} against level {} ({} to move). Type help for commands.",
        args.variant.name(),
        args.level,
        game.position().turn()
    )?;
    writeln!(out, "{}", draw_board(game.position(), human))?;
    let mut lines = input.lines();
    let mut resigned = None;
    loop {
        if let Some(o) = game.outcome() {
            writeln!(out, "Game over: {} ({}).", o.result(), o.reason())?;
            break;
        }
        let pos = *game.position();
        if pos.turn() != human {
            seed = splitmix(seed);
            searcher.imprecision = Imprecision {
                eval_noise: cfg.noise,
                seed,
            };
            if cfg.noise > 0 {
                searcher.clear();
            }
            let Some(m) = search_level(&mut searcher, &game, &cfg, &cfg.limits(), seed) else {
                break;
            };
            let san = pos.san(m);
            game.play(m)?;
            writeln!(out, "Engine plays {san} ({m})")?;
            writeln!(out, "{}", draw_board(game.position(), human))?;
            continue;
        }
        write!(out, "{} to move> ", pos.turn())?;
        out.flush()?;
        let Some(line) = lines.next() else {
            writeln!(out)?;
            break;
        };
        let line = line?;
        let text = line.trim();
        match text {
            "" => {}
            "help" | "?" => writeln!(out, "{HELP}")?,
            "quit" | "exit" => break,
            "board" => writeln!(out, "{}", draw_board(&pos, human))?,
            "fen" => writeln!(out, "{}", pos.fen())?,
            "pgn" => {
                let tags = pgn_tags(args, human);
                writeln!(
                    out,
                    "{}",
                    pgn::write(&game, &tags, &result_tag(&game, None))
                )?;
            }
            "moves" => {
                let list: Vec<String> = pos
                    .legal_moves_with_san()
                    .into_iter()
                    .map(|(_, s)| s)
                    .collect();
                writeln!(out, "{}", list.join(" "))?;
            }
            "undo" => {
                // Take back the engine's reply and the player's move.
                let mut undone = 0;
                while game.undo().is_some() {
                    undone += 1;
                    if game.position().turn() == human {
                        break;
                    }
                }
                if undone == 0 || game.position().turn() != human {
                    writeln!(out, "Nothing to undo.")?;
                    // Let the engine move again if it is its turn.
                } else {
                    writeln!(out, "{}", draw_board(game.position(), human))?;
                }
            }
            "hint" => {
                let mut s = Searcher::new(16, Arc::new(AtomicBool::new(false)));
                let r = s.search(
                    &pos,
                    game.repetition_keys(),
                    &Limits::nodes(300_000),
                    &mut |_| {},
                );
                match r.best {
                    Some(m) => writeln!(out, "Hint: {} ({m})", pos.san(m))?,
                    None => writeln!(out, "No legal move.")?,
                }
            }
            "resign" => {
                writeln!(
                    out,
                    "You resign: {}.",
                    if human == Color::White { "0-1" } else { "1-0" }
                )?;
                resigned = Some(human);
                break;
            }
            _ => match pos.parse_move(text) {
                Ok(m) => {
                    let san = pos.san(m);
                    match game.play(m) {
                        Ok(()) => {
                            writeln!(out, "You play {san}")?;
                            writeln!(out, "{}", draw_board(game.position(), human))?;
                        }
                        Err(e) => writeln!(out, "Refused: {e}")?,
                    }
                }
                Err(e) => writeln!(out, "Refused: {e}")?,
            },
        }
    }
    let tags = pgn_tags(args, human);
    writeln!(
        out,
        "{}",
        pgn::write(&game, &tags, &result_tag(&game, resigned))
    )?;
    Ok(())
}

fn pgn_tags(args: &PlayArgs, human: Color) -> Vec<(String, String)> {
    let engine = format!("ChessMerge level {}", args.level);
    let (w, b) = if human == Color::White {
        ("You".to_owned(), engine)
    } else {
        (engine, "You".to_owned())
    };
    vec![("White".to_owned(), w), ("Black".to_owned(), b)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &PlayArgs, script: &str) -> String {
        let mut out = Vec::new();
        play_session(args, std::io::Cursor::new(script.to_owned()), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn args(color: &str) -> PlayArgs {
        PlayArgs {
            variant: Variant::ChessMerge,
            level: 1,
            color: color.to_owned(),
            fen: None,
            seed: Some(5),
        }
    }

    #[test]
    fn pairs_are_drawn_with_both_letters() {
        let pos = Position::from_fen(
            Variant::ChessMerge,
            "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1",
        )
        .unwrap();
        let b = draw_board(&pos, Color::White);
        assert!(b.contains("(NP)"), "{b}");
        let row2 = b.lines().find(|l| l.starts_with(" 2 ")).unwrap();
        assert_eq!(row2, " 2  P   P   P  (NP) P   P   P   P   2");
    }

    #[test]
    fn refused_moves_print_the_reason_and_commands_work() {
        let out = run(&args("white"), "e2e4\nfen\nb1d2\nundo\nhint\npgn\nresign\n");
        // e2e4 is not legal in ChessMerge: refused with the rules' reason.
        assert!(out.contains("Refused: "), "{out}");
        assert!(
            out.contains("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "{out}"
        );
        assert!(out.contains("You play"), "{out}");
        assert!(out.contains("(NP)"), "{out}");
        assert!(out.contains("Engine plays"), "{out}");
        assert!(out.contains("Hint: "), "{out}");
        assert!(out.contains("You resign: 0-1."), "{out}");
        assert!(out.contains("[Result \"0-1\"]"), "{out}");
    }

    #[test]
    fn engine_moves_first_when_the_player_is_black() {
        let out = run(&args("black"), "quit\n");
        assert!(out.starts_with("ChessMerge"), "{out}");
        assert!(out.contains("Engine plays"), "{out}");
    }
}
