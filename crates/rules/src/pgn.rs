//! PGN with `[Variant]` and `[FEN]` tags and readable-notation movetext.

use crate::fen::START_FEN;
use crate::game::Game;
use crate::position::Position;
use crate::types::{Color, Variant};

/// A game read from PGN.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// Every tag pair, in file order.
    pub tags: Vec<(String, String)>,
    pub game: Game,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

impl PgnGame {
    /// The value of a tag, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// PGN that cannot be read, with where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid PGN: {0}")]
pub struct PgnError(pub String);

/// Writes a game as PGN: the Seven Tag Roster from `tags` (`?` where
/// missing) and `result`, then `Variant`, `SetUp`/`FEN` (for a start other
/// than the usual one) from the game, then any other `tags`.
pub fn write(game: &Game, tags: &[(String, String)], result: &str) -> String {
    write_annotated(game, tags, result, &[])
}

/// What is written after one move: a glyph joined to it (`?!`, `?`, `??`)
/// and comments (`[%eval 0.17]`, words), each in its own braces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotation {
    /// Written right after the move (`Nf3??`).
    pub glyph: String,
    /// Each written as `{ text }` after the move.
    pub comments: Vec<String>,
}

/// [`write`], with `notes[i]` written after move `i` (fewer notes than
/// moves: the rest have none). After a comment, a Black move gets its
/// number again (`3...`), as PGN readers expect.
pub fn write_annotated(
    game: &Game,
    tags: &[(String, String)],
    result: &str,
    notes: &[Annotation],
) -> String {
    let mut out = String::new();
    let given = |name: &str| {
        tags.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    // The Seven Tag Roster first, in its order, then ours, then the rest.
    let date = given("Date").unwrap_or("????.??.??");
    for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
        let fallback = if name == "Date" { date } else { "?" };
        out.push_str(&tag_line(name, given(name).unwrap_or(fallback)));
    }
    out.push_str(&tag_line("Result", result));
    let start_fen = game.start().fen();
    // lichess's name of standard rules from a custom position.
    let variant_name = if game.variant() == Variant::Standard && start_fen != START_FEN {
        "From Position"
    } else {
        game.variant().name()
    };
    out.push_str(&tag_line("Variant", variant_name));
    if start_fen != START_FEN {
        out.push_str(&tag_line("SetUp", "1"));
        out.push_str(&tag_line("FEN", &start_fen));
    }
    let written = [
        "Event", "Site", "Date", "Round", "White", "Black", "Result", "Variant", "SetUp", "FEN",
    ];
    for (k, v) in tags.iter().filter(|(k, _)| !written.contains(&k.as_str())) {
        out.push_str(&tag_line(k, v));
    }
    out.push('\n');

    let mut tokens = Vec::new();
    let mut after_comment = false;
    for (i, (san, pos)) in game.san_moves().iter().zip(game.positions()).enumerate() {
        let number = pos.fullmove_number();
        if pos.turn() == Color::White {
            tokens.push(format!("{number}."));
        } else if i == 0 || after_comment {
            tokens.push(format!("{number}..."));
        }
        let note = notes.get(i);
        tokens.push(format!("{san}{}", note.map_or("", |n| n.glyph.as_str())));
        let comments = note.map_or(&[][..], |n| n.comments.as_slice());
        for c in comments {
            tokens.push(format!("{{ {} }}", c.replace('}', ")")));
        }
        after_comment = !comments.is_empty();
    }
    tokens.push(result.to_owned());
    let mut line_len = 0;
    for t in tokens {
        if line_len > 0 && line_len + 1 + t.len() > 79 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        line_len += t.len();
        out.push_str(&t);
    }
    out.push('\n');
    out
}

fn tag_line(name: &str, value: &str) -> String {
    // A tag value is one line of text: control characters (a newline that
    // would start a forged tag or move text, an escape sequence for a
    // terminal) are dropped, whatever a game imported from elsewhere held.
    let printable: String = value.chars().filter(|c| !c.is_control()).collect();
    let escaped = printable.replace('\\', "\\\\").replace('"', "\\\"");
    format!("[{name} \"{escaped}\"]\n")
}

/// Reads one game of PGN. A missing `[Variant]` tag means standard chess
/// (as in every other PGN); moves may be in the readable notation or in
/// Merge-UCI. Comments, variations and NAGs are skipped.
///
/// # Errors
/// A malformed tag, an unknown variant, a bad FEN, the first move that
/// cannot be played (with its number), or a result that is not a PGN
/// result or contradicts the tags or the final position.
pub fn read(text: &str) -> Result<PgnGame, PgnError> {
    read_limited(text, usize::MAX).map_err(|e| PgnError(e.to_string()))
}

/// Why [`read_limited`] refused a PGN, by kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PgnReadError {
    /// The text is not PGN (a tag, a comment, a variation, a variant or FEN).
    #[error("invalid PGN: {0}")]
    Malformed(String),
    /// A move the rules refuse or cannot read.
    #[error("move {number}{dots} ({side}) {token}: {error}", side = color.name(), dots = if *color == Color::White { "." } else { "…" })]
    Move {
        /// The full-move number.
        number: u32,
        /// The side that was to move.
        color: Color,
        /// The move as written.
        token: String,
        /// The rules' reason.
        error: crate::uci::ParseMoveError,
    },
    /// More moves than allowed.
    #[error("too many moves: at most {0} plies")]
    TooLong(usize),
    /// The `[Result]` tag or the movetext's result is not allowed here.
    #[error("invalid result: {0}")]
    Result(String),
}

impl PgnReadError {
    /// Whether the text itself is malformed (as opposed to a move or a
    /// result that the rules refuse).
    pub fn is_malformed(&self) -> bool {
        match self {
            PgnReadError::Malformed(_) => true,
            PgnReadError::Move { error, .. } => error.is_malformed(),
            PgnReadError::TooLong(_) | PgnReadError::Result(_) => false,
        }
    }
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// [`read`] with at most `max_plies` moves, and its refusals by kind. The
/// result must be one of `1-0`, `0-1`, `1/2-1/2`, `*`; the `[Result]` tag
/// and the movetext's result must agree when both say something; a game
/// that ended on the board (checkmate, stalemate, a draw rule) cannot
/// claim another result (`*` there becomes the board's result). Nothing
/// but whitespace may follow the result (one game at a time).
pub fn read_limited(text: &str, max_plies: usize) -> Result<PgnGame, PgnReadError> {
    let malformed = PgnReadError::Malformed;
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') && movetext.trim().is_empty() {
            tags.push(
                parse_tag(t)
                    .ok_or_else(|| malformed(format!("line {}: malformed tag {t:?}", n + 1)))?,
            );
        } else if !t.starts_with('%') {
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    let find = |name: &str| {
        tags.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v): &(String, String)| v.clone())
    };
    let variant: Variant = match find("Variant") {
        Some(v) => v
            .parse()
            .map_err(|e| malformed(format!("Variant tag: {e}")))?,
        None => Variant::Standard,
    };
    let start = match find("FEN") {
        Some(fen) => {
            Position::from_fen(variant, &fen).map_err(|e| malformed(format!("FEN tag: {e}")))?
        }
        None => Position::new(variant),
    };
    let tag_result = find("Result");
    if let Some(r) = &tag_result
        && !RESULTS.contains(&r.as_str())
    {
        return Err(PgnReadError::Result(format!(
            "Result tag {r:?}: expected 1-0, 0-1, 1/2-1/2 or *"
        )));
    }
    let mut game = Game::new(start);
    let mut token_result = None;
    let mut tokens = movetext_tokens(&movetext)
        .map_err(|e| malformed(e.0))?
        .into_iter();
    for token in tokens.by_ref() {
        if RESULTS.contains(&token.as_str()) {
            token_result = Some(token);
            break;
        }
        if game.moves().len() >= max_plies {
            return Err(PgnReadError::TooLong(max_plies));
        }
        let pos = game.position();
        let (number, color) = (pos.fullmove_number(), pos.turn());
        game.play_text(&token).map_err(|error| PgnReadError::Move {
            number,
            color,
            token: token.chars().take(40).collect(),
            error,
        })?;
    }
    if let Some(extra) = tokens.next() {
        return Err(malformed(format!(
            "{extra:?} after the result: one game at a time"
        )));
    }
    let mut result = match (tag_result, token_result) {
        (Some(t), Some(m)) if t != m && t != "*" && m != "*" => {
            return Err(PgnReadError::Result(format!(
                "the Result tag says {t} but the moves end with {m}"
            )));
        }
        (Some(t), Some(m)) => {
            if t == "*" {
                m
            } else {
                t
            }
        }
        (Some(r), None) | (None, Some(r)) => r,
        (None, None) => "*".to_owned(),
    };
    if let Some(outcome) = game.outcome() {
        if result == "*" {
            outcome.result().clone_into(&mut result);
        } else if result != outcome.result() {
            return Err(PgnReadError::Result(format!(
                "{result} but the game ended by {} ({})",
                outcome.reason(),
                outcome.result()
            )));
        }
    }
    Ok(PgnGame { tags, game, result })
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    let body = rest.strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.push(chars.next()?);
        } else {
            value.push(c);
        }
    }
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some((name.to_owned(), value))
}

/// Splits movetext into move and result tokens.
fn movetext_tokens(text: &str) -> Result<Vec<String>, PgnError> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    let mut depth = 0usize; // variation nesting
    let mut word = String::new();
    let flush = |word: &mut String, tokens: &mut Vec<String>, depth: usize| {
        if !word.is_empty() && depth == 0 {
            // Strip a move number glued to the move ("12.Nf3", "12...Nf3").
            let w = word.trim_start_matches(|c: char| c.is_ascii_digit());
            let w = if w.len() < word.len() && w.starts_with('.') {
                w.trim_start_matches('.')
            } else {
                word.as_str()
            };
            let is_number = word.chars().all(|c| c.is_ascii_digit() || c == '.');
            if !w.is_empty() && !is_number && !w.starts_with('$') {
                tokens.push(w.to_owned());
            }
        }
        word.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut word, &mut tokens, depth);
                if !chars.by_ref().any(|c| c == '}') {
                    return Err(PgnError("unclosed { comment".into()));
                }
            }
            ';' => {
                flush(&mut word, &mut tokens, depth);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut word, &mut tokens, depth);
                depth += 1;
            }
            ')' => {
                flush(&mut word, &mut tokens, depth);
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| PgnError(") without a matching (".into()))?;
            }
            c if c.is_whitespace() => flush(&mut word, &mut tokens, depth),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut tokens, depth);
    if depth != 0 {
        return Err(PgnError("unclosed ( variation".into()));
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_comments_numbers_and_variations() {
        let t = movetext_tokens("1. e4 {best} e5 (1... c5 2. Nf3) 2.Nf3 $1 ; note\n2... N&d7 *")
            .unwrap();
        assert_eq!(t, ["e4", "e5", "Nf3", "N&d7", "*"]);
    }

    #[test]
    fn tag_values_lose_their_control_characters() {
        let line = tag_line("Event", "a\nb\r\u{1b}[31mc\u{7f}\td");
        assert_eq!(line, "[Event \"ab[31mcd\"]\n");
    }

    #[test]
    fn tag_escapes_round_trip() {
        let line = tag_line("White", "a \"quoted\" \\ name");
        assert_eq!(
            parse_tag(line.trim()),
            Some(("White".to_owned(), "a \"quoted\" \\ name".to_owned()))
        );
    }

    #[test]
    fn illegal_move_names_number_and_side() {
        let e = read_limited("1. e4 e5 2. Nf3 Ke7 3. Ke3 *", 100).unwrap_err();
        match &e {
            PgnReadError::Move {
                number,
                color,
                token,
                ..
            } => {
                assert_eq!((*number, *color, token.as_str()), (3, Color::White, "Ke3"));
            }
            other => panic!("{other:?}"),
        }
        assert!(e.to_string().starts_with("move 3. (white) Ke3: "), "{e}");
        let e = read_limited("1. e4 Ke3 *", 100).unwrap_err();
        assert!(e.to_string().starts_with("move 1… (black) Ke3: "), "{e}");
    }

    #[test]
    fn results_are_checked() {
        let bad = |text: &str| match read_limited(text, 100) {
            Err(PgnReadError::Result(r)) => r,
            other => panic!("{other:?}"),
        };
        assert!(bad("[Result \"2-0\"]\n\n1. e4 *").contains("2-0"));
        assert!(bad("[Result \"1-0\"]\n\n1. e4 0-1").contains("says 1-0"));
        // Fool's mate: Black won on the board.
        let mate = "1. f3 e5 2. g4 Qh4";
        assert!(bad(&format!("{mate} 1-0")).contains("checkmate"));
        assert_eq!(read(&format!("{mate} *")).unwrap().result, "0-1");
        assert_eq!(
            read(&format!("[Result \"0-1\"]\n\n{mate}")).unwrap().result,
            "0-1"
        );
        assert_eq!(read("1. e4 e5 1-0").unwrap().result, "1-0");
        assert_eq!(read("1. e4 e5").unwrap().result, "*");
    }

    #[test]
    fn limits_and_trailing_text() {
        assert_eq!(
            read_limited("1. e4 e5 2. Nf3 *", 2).unwrap_err(),
            PgnReadError::TooLong(2)
        );
        assert!(read_limited("1. e4 e5 2. Nf3 *", 3).is_ok());
        let e = read_limited("1. e4 * 1. d4 *", 10).unwrap_err();
        assert!(
            e.is_malformed() && e.to_string().contains("one game"),
            "{e}"
        );
    }
}
