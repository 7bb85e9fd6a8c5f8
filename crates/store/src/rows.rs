//! Rows into the typed model, the same for every backend: a backend only
//! says how to read a text or an integer column ([`Columns`]).

use std::str::FromStr;

use super::{
    Challenge, ChatLine, Game, Perf, RatingPoint, Report, ResultCounts, SideRating, StoreError,
    StoreResult, TokenInfo, TokenKind, User,
};
use crate::model::{Color, GameClock, TimeControl, UserId, Variant, parse_color};

/// Reading one row's columns by name.
pub(super) trait Columns {
    fn text(&self, col: &str) -> StoreResult<String>;
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>>;
    fn int(&self, col: &str) -> StoreResult<i64>;
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>>;
    fn float(&self, col: &str) -> StoreResult<f64>;
}

macro_rules! impl_columns {
    ($row:ty) => {
        impl Columns for $row {
            fn text(&self, col: &str) -> StoreResult<String> {
                Ok(sqlx::Row::try_get(self, col)?)
            }
            fn opt_text(&self, col: &str) -> StoreResult<Option<String>> {
                Ok(sqlx::Row::try_get(self, col)?)
            }
            fn int(&self, col: &str) -> StoreResult<i64> {
                Ok(sqlx::Row::try_get(self, col)?)
            }
            fn opt_int(&self, col: &str) -> StoreResult<Option<i64>> {
                Ok(sqlx::Row::try_get(self, col)?)
            }
            fn float(&self, col: &str) -> StoreResult<f64> {
                Ok(sqlx::Row::try_get(self, col)?)
            }
        }
    };
}

impl_columns!(sqlx::sqlite::SqliteRow);
impl_columns!(sqlx::postgres::PgRow);

fn corrupt(col: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("column {col}: {e}"))
}

/// A column holding one of the model's words.
fn word<T: FromStr>(row: &impl Columns, col: &str) -> StoreResult<T>
where
    T::Err: std::fmt::Display,
{
    row.text(col)?.parse().map_err(|e| corrupt(col, e))
}

fn opt_color(row: &impl Columns, col: &str) -> StoreResult<Option<Color>> {
    row.opt_text(col)?
        .map(|t| parse_color(&t).map_err(|e| corrupt(col, e)))
        .transpose()
}

fn opt_user(row: &impl Columns, col: &str) -> StoreResult<Option<UserId>> {
    Ok(row.opt_int(col)?.map(UserId))
}

fn opt_level(row: &impl Columns, col: &str) -> StoreResult<Option<u8>> {
    row.opt_int(col)?
        .map(|l| {
            u8::try_from(l)
                .ok()
                .filter(|l| (1..=8).contains(l))
                .ok_or_else(|| corrupt(col, format!("level {l}")))
        })
        .transpose()
}

fn within(what: &str, id: &str, e: StoreError) -> StoreError {
    match e {
        StoreError::Corrupt(d) => StoreError::Corrupt(format!("{what} {id}: {d}")),
        other => other,
    }
}

pub(super) fn user(row: &impl Columns) -> StoreResult<User> {
    Ok(User {
        id: UserId(row.int("id")?),
        username: row.text("username")?,
        password_hash: row.text("password_hash")?,
        created_at: row.int("created_at")?,
        bot: row.int("bot")? != 0,
    })
}

pub(super) fn chat_line(row: &impl Columns) -> StoreResult<ChatLine> {
    Ok(ChatLine {
        game_id: word(row, "game_id")?,
        user_id: UserId(row.int("user_id")?),
        username: row.text("username")?,
        room: word(row, "room")?,
        text: row.text("text")?,
        created_at: row.int("created_at")?,
    })
}

pub(super) fn report(row: &impl Columns) -> StoreResult<Report> {
    let game = row.opt_text("game_id")?;
    Ok(Report {
        id: row.int("id")?,
        reporter: row.text("reporter")?,
        reported: row.text("reported")?,
        reason: row.text("reason")?,
        text: row.text("text")?,
        game_id: match game {
            Some(g) => Some(g.parse().map_err(|e| corrupt("game_id", e))?),
            None => None,
        },
        created_at: row.int("created_at")?,
    })
}

pub(super) fn challenge(row: &impl Columns) -> StoreResult<Challenge> {
    let id = row.text("id")?;
    let read = || -> StoreResult<Challenge> {
        Ok(Challenge {
            id: id.parse().map_err(|e| corrupt("id", e))?,
            kind: word(row, "kind")?,
            challenger_id: UserId(row.int("challenger_id")?),
            dest_user_id: opt_user(row, "dest_user_id")?,
            variant: word(row, "variant")?,
            color: word(row, "color")?,
            initial_fen: row.opt_text("initial_fen")?,
            ai_level: opt_level(row, "ai_level")?,
            status: word(row, "status")?,
            decline_reason: row.opt_text("decline_reason")?,
            created_at: row.int("created_at")?,
            rated: row.int("rated")? != 0,
            time_control: row
                .opt_text("time_control")?
                .map(|t| TimeControl::parse(&t).map_err(|e| corrupt("time_control", e)))
                .transpose()?,
            rating_range: row.opt_int("rating_min")?.zip(row.opt_int("rating_max")?),
        })
    };
    read().map_err(|e| within("challenge", &id, e))
}

pub(super) fn game(row: &impl Columns) -> StoreResult<Game> {
    let id = row.text("id")?;
    let read = || -> StoreResult<Game> {
        Ok(Game {
            id: id.parse().map_err(|e| corrupt("id", e))?,
            variant: word(row, "variant")?,
            initial_fen: row.text("initial_fen")?,
            white_id: opt_user(row, "white_id")?,
            black_id: opt_user(row, "black_id")?,
            ai_level: opt_level(row, "ai_level")?,
            status: word(row, "status")?,
            winner: opt_color(row, "winner")?,
            status_reason: row.opt_text("status_reason")?,
            moves: row.text("moves")?,
            san: row.text("san")?,
            fen: row.text("fen")?,
            ply: row.int("ply")?,
            version: row.int("version")?,
            draw_offer: opt_color(row, "draw_offer")?,
            created_at: row.int("created_at")?,
            updated_at: row.int("updated_at")?,
            takeback_offer: opt_color(row, "takeback_offer")?,
            rematch: row
                .opt_text("rematch")?
                .map(|t| super::Rematch::parse(&t))
                .transpose()?,
            forecasts: super::parse_forecasts(row.opt_text("forecasts")?.as_deref()),
            rated: row.int("rated")? != 0,
            white_rating: side_rating(row, "white")?,
            black_rating: side_rating(row, "black")?,
            clock: row
                .opt_text("clock")?
                .map(|t| GameClock::parse(&t).map_err(|e| corrupt("clock", e)))
                .transpose()?,
        })
    };
    read().map_err(|e| within("game", &id, e))
}

fn side_rating(row: &impl Columns, side: &str) -> StoreResult<Option<SideRating>> {
    let rating = row.opt_int(&format!("{side}_rating"))?;
    let diff = row.opt_int(&format!("{side}_rating_diff"))?;
    Ok(rating
        .zip(diff)
        .map(|(rating, diff)| SideRating { rating, diff }))
}

pub(super) fn perf(row: &impl Columns) -> StoreResult<Perf> {
    Ok(Perf {
        variant: word(row, "variant")?,
        glicko: crate::ratings::Glicko {
            rating: row.float("rating")?,
            rd: row.float("rd")?,
            volatility: row.float("volatility")?,
        },
        games: row.int("games")?,
        updated_at: row.int("updated_at")?,
    })
}

pub(super) fn rating_point(row: &impl Columns) -> StoreResult<RatingPoint> {
    Ok(RatingPoint {
        variant: word(row, "variant")?,
        n: row.int("n")?,
        game_id: word(row, "game_id")?,
        rating: row.int("rating")?,
        created_at: row.int("created_at")?,
    })
}

pub(super) fn result_counts(row: &impl Columns) -> StoreResult<(Variant, ResultCounts)> {
    Ok((
        word(row, "variant")?,
        ResultCounts {
            all: row.int("n_all")?,
            win: row.int("n_win")?,
            loss: row.int("n_loss")?,
            draw: row.int("n_draw")?,
            rated: row.int("n_rated")?,
        },
    ))
}

pub(super) fn all<R, T>(rows: Vec<R>, f: fn(&R) -> StoreResult<T>) -> StoreResult<Vec<T>> {
    rows.iter().map(f).collect()
}

/// A `tokens` row as a list shows it.
pub(super) fn token_info(row: &impl Columns) -> StoreResult<TokenInfo> {
    Ok(TokenInfo {
        id: super::token_id(&row.text("token_hash")?).to_owned(),
        kind: TokenKind::parse(&row.text("kind")?)?,
        created_at: row.int("created_at")?,
        expires_at: row.opt_int("expires_at")?,
        description: row.opt_text("description")?,
    })
}
