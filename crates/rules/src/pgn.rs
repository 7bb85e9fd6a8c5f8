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
    out.push_str(&tag_line("Variant", game.variant().name()));
    let start_fen = game.start().fen();
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
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("[{name} \"{escaped}\"]\n")
}

/// Reads one game of PGN. A missing `[Variant]` tag means standard chess
/// (as in every other PGN); moves may be in the readable notation or in
/// Merge-UCI. Comments, variations and NAGs are skipped.
///
/// # Errors
/// A malformed tag, an unknown variant, a bad FEN, or the first move that
/// cannot be played (with its number).
pub fn read(text: &str) -> Result<PgnGame, PgnError> {
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') && movetext.trim().is_empty() {
            tags.push(
                parse_tag(t)
                    .ok_or_else(|| PgnError(format!("line {}: malformed tag {t:?}", n + 1)))?,
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
            .map_err(|e| PgnError(format!("Variant tag: {e}")))?,
        None => Variant::Standard,
    };
    let start = match find("FEN") {
        Some(fen) => {
            Position::from_fen(variant, &fen).map_err(|e| PgnError(format!("FEN tag: {e}")))?
        }
        None => Position::new(variant),
    };
    let mut game = Game::new(start);
    let mut result = find("Result").unwrap_or_else(|| "*".to_owned());
    for token in movetext_tokens(&movetext)? {
        if matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            result = token;
            break;
        }
        let pos = game.position();
        let dots = if pos.turn() == Color::White {
            "."
        } else {
            "..."
        };
        let number = format!("{}{dots}", pos.fullmove_number());
        game.play_text(&token)
            .map_err(|e| PgnError(format!("move {number} {token}: {e}")))?;
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
    fn tag_escapes_round_trip() {
        let line = tag_line("White", "a \"quoted\" \\ name");
        assert_eq!(
            parse_tag(line.trim()),
            Some(("White".to_owned(), "a \"quoted\" \\ name".to_owned()))
        );
    }
}
