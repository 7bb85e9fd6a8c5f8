//! A game record: a start position and the moves played from it.

use crate::illegal::{IllegalMove, IllegalReason};
use crate::moves::Move;
use crate::outcome::Outcome;
use crate::position::Position;
use crate::types::Variant;
use crate::uci::{ParseMoveError, UciMove};

/// A start position, the moves played, and every position reached.
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Move>,
    keys: Vec<u64>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            keys: vec![start.zobrist()],
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// Replays Merge-UCI moves from `start`.
    ///
    /// # Errors
    /// The first move that cannot be played, with its 0-based index.
    pub fn from_uci_moves<'a>(
        start: Position,
        moves: impl IntoIterator<Item = &'a str>,
    ) -> Result<Game, (usize, ParseMoveError)> {
        let mut game = Game::new(start);
        for (i, text) in moves.into_iter().enumerate() {
            game.play_uci(text).map_err(|e| (i, e))?;
        }
        Ok(game)
    }

    pub fn variant(&self) -> Variant {
        self.start().variant()
    }

    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("never empty")
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every position of the game, the start first.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Zobrist keys of every position so far (for repetition checks).
    pub fn repetition_keys(&self) -> &[u64] {
        &self.keys
    }

    /// Plays a move after checking it is legal and the game is not over.
    ///
    /// # Errors
    /// [`IllegalMove`]: [`IllegalReason::GameOver`] once the game has an
    /// outcome, otherwise why the position refuses the move.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if let Some(o) = self.outcome() {
            return Err(IllegalMove::new(
                UciMove::from(m),
                IllegalReason::GameOver(o),
            ));
        }
        let next = self.position().play(m)?;
        self.keys.push(next.zobrist());
        self.positions.push(next);
        self.moves.push(m);
        Ok(())
    }

    /// Reads a Merge-UCI move and plays it.
    pub fn play_uci(&mut self, text: &str) -> Result<Move, ParseMoveError> {
        let m = self.position().parse_uci(text)?;
        self.play(m)?;
        Ok(m)
    }

    /// Reads a move in either notation and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<Move, ParseMoveError> {
        let m = self.position().parse_move(text)?;
        self.play(m)?;
        Ok(m)
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.keys.pop();
        Some(m)
    }

    /// How the game ended on the board, if it did: the position's own
    /// outcome, or a threefold repetition where the variant has it.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        if let Some(o) = pos.outcome() {
            return Some(o);
        }
        if let Some(times) = self.variant().rules().repetition {
            let key = *self.keys.last().expect("never empty");
            // Only positions since the last irreversible move can repeat.
            let window = (pos.halfmove_clock() as usize + 1).min(self.keys.len());
            let seen = self.keys[self.keys.len() - window..]
                .iter()
                .filter(|&&k| k == key)
                .count();
            if seen >= times {
                return Some(Outcome::Repetition);
            }
        }
        None
    }

    /// The moves in the readable notation.
    pub fn san_moves(&self) -> Vec<String> {
        self.moves
            .iter()
            .zip(&self.positions)
            .map(|(&m, pos)| pos.san(m))
            .collect()
    }
}
