//! Typed request fields: how the API reads booleans, numbers and words
//! from JSON bodies, forms and query strings, in one place.
//!
//! Input structs hold typed fields read with [`optional`] or [`required`]
//! (`#[serde(default, deserialize_with = "optional")]`), so that a bad
//! value is refused by the extractor ([`crate::extract`]), whose 400 names
//! the field: `invalid rated: "maybe" is not true or false`. Text is
//! trimmed, and blank text reads as the field left out (forms send empty
//! fields), as does a JSON `null`.
//!
//! Booleans are lichess's: `true` or `false` (JSON booleans too). The
//! board API's answers in a path (`draw/{accept}`, `takeback/{accept}`,
//! `rematch/{accept}`) are lichess's `yes` or `no`, and the boolean words
//! as well ([`Answer`]).

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, Unexpected, Visitor};

use crate::error::{ApiError, ApiResult};
use crate::games::clock;
use crate::model::{ChatRoom, ColorRequest, TimeControl, Variant};
use crate::store::ResultFilter;

/// A value a request field may hold.
pub trait Param: Sized {
    /// What is accepted, in words (for the refusal).
    const EXPECTED: &'static str;

    /// From text (a form, a query string, a JSON string), trimmed, not empty.
    fn from_text(text: &str) -> Option<Self>;

    /// From a JSON boolean.
    fn from_bool(_: bool) -> Option<Self> {
        None
    }

    /// From a JSON whole number.
    fn from_number(_: i64) -> Option<Self> {
        None
    }

    /// From a JSON number with a fraction.
    fn from_fraction(_: f64) -> Option<Self> {
        None
    }
}

/// The names a request gives lichess's clock fields (for its refusals).
#[derive(Debug, Clone, Copy)]
pub struct ClockFields {
    /// The initial time's field.
    pub limit: &'static str,
    /// The increment's field.
    pub increment: &'static str,
}

/// A challenge's clock fields: `clock.limit` and `clock.increment`.
pub const CHALLENGE_CLOCK: ClockFields = ClockFields {
    limit: "clock.limit",
    increment: "clock.increment",
};

/// A seek's clock fields: `time` (minutes) and `increment`.
pub const SEEK_CLOCK: ClockFields = ClockFields {
    limit: "time",
    increment: "increment",
};

/// A time control from lichess's fields: `limit` and `increment` seconds
/// for a real-time clock, or `days` for correspondence, or neither
/// (untimed). lichess's ranges: a limit of 0 to 180 minutes, an increment
/// of 0 to 180 s, not both 0; days from [`clock::DAYS`]. Each fault is a
/// 400 naming its field as `names` says.
pub fn time_control(
    limit: Option<i64>,
    increment: Option<i64>,
    days: Option<i64>,
    names: ClockFields,
) -> ApiResult<Option<TimeControl>> {
    let within = |field: &str, v: i64, max: u32| {
        u32::try_from(v)
            .ok()
            .filter(|v| *v <= max)
            .ok_or_else(|| ApiError::bad(format!("{field} must be 0 to {max} seconds, not {v}")))
    };
    let (l, i) = (names.limit, names.increment);
    match (limit, increment, days) {
        (None, None, None) => Ok(None),
        (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => Err(ApiError::bad(format!(
            "days and {l}/{i} exclude each other: send a clock or days"
        ))),
        (Some(_), None, None) => Err(ApiError::bad(format!("{i} is missing: send it with {l}"))),
        (None, Some(_), None) => Err(ApiError::bad(format!("{l} is missing: send it with {i}"))),
        (Some(limit), Some(increment), None) => {
            let limit = within(l, limit, clock::MAX_LIMIT_SECS)?;
            let increment = within(i, increment, clock::MAX_INCREMENT_SECS)?;
            if limit == 0 && increment == 0 {
                return Err(ApiError::bad(format!("{l} and {i} cannot both be 0")));
            }
            Ok(Some(TimeControl::Clock { limit, increment }))
        }
        (None, None, Some(days)) => u32::try_from(days)
            .ok()
            .filter(|d| clock::DAYS.contains(d))
            .map(|days| Some(TimeControl::Correspondence { days }))
            .ok_or_else(|| {
                ApiError::bad(format!(
                    "days must be one of 1, 2, 3, 5, 7, 10, 14, not {days}"
                ))
            }),
    }
}

/// A clock's initial time in minutes, as lichess's seek takes it (`0.5`,
/// `3`): held as whole seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Minutes(pub i64);

impl Param for Minutes {
    const EXPECTED: &'static str = "a number of minutes, such as 3 or 0.5";

    fn from_text(text: &str) -> Option<Minutes> {
        text.parse::<f64>().ok().and_then(Minutes::from_fraction)
    }

    fn from_number(n: i64) -> Option<Minutes> {
        n.checked_mul(60).map(Minutes)
    }

    fn from_fraction(f: f64) -> Option<Minutes> {
        // Within i64 and whole seconds once scaled; the range is the
        // caller's check (it names the field).
        let secs = (f * 60.0).round();
        (f.is_finite() && secs.abs() < 1e12).then_some(Minutes(secs as i64))
    }
}

/// The one boolean vocabulary: `true` or `false`.
impl Param for bool {
    const EXPECTED: &'static str = "true or false";

    fn from_text(text: &str) -> Option<bool> {
        match text {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    fn from_bool(b: bool) -> Option<bool> {
        Some(b)
    }
}

/// A boolean as lila's forms and lichess's clients write it: `true` or
/// `false` in any case (Python's `True`/`False`, as berserk sends them in
/// forms), and `1`/`0`, `yes`/`no`, `on`/`off`; any other word is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LooseBool(pub bool);

impl Param for LooseBool {
    const EXPECTED: &'static str = "true or false";

    fn from_text(text: &str) -> Option<LooseBool> {
        let t = text.to_ascii_lowercase();
        match t.as_str() {
            "true" | "1" | "yes" | "on" => Some(LooseBool(true)),
            "false" | "0" | "no" | "off" => Some(LooseBool(false)),
            _ => None,
        }
    }

    fn from_bool(b: bool) -> Option<LooseBool> {
        Some(LooseBool(b))
    }

    fn from_number(n: i64) -> Option<LooseBool> {
        match n {
            0 => Some(LooseBool(false)),
            1 => Some(LooseBool(true)),
            _ => None,
        }
    }
}

/// A challenge's variant: a rule set, or lichess's `fromPosition`
/// (standard rules from the challenge's `fen`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChallengeVariant {
    /// The rules.
    pub variant: Variant,
    /// Named `fromPosition` (a `fen` is then required).
    pub from_position: bool,
}

impl Param for ChallengeVariant {
    const EXPECTED: &'static str = "chessmerge, chessplus, fusion, standard or fromPosition";

    fn from_text(text: &str) -> Option<ChallengeVariant> {
        let from_position =
            text.eq_ignore_ascii_case("fromPosition") || text.eq_ignore_ascii_case("from position");
        Some(ChallengeVariant {
            variant: text.parse().ok()?,
            from_position,
        })
    }
}

/// A whole number (ranges are the endpoints' to check, with their words).
impl Param for i64 {
    const EXPECTED: &'static str = "a whole number";

    fn from_text(text: &str) -> Option<i64> {
        text.parse().ok()
    }

    fn from_number(n: i64) -> Option<i64> {
        Some(n)
    }
}

/// A rule set, by id or name in any case (the rules crate's `FromStr`).
impl Param for Variant {
    const EXPECTED: &'static str = "chessmerge, chessplus, fusion or standard";

    fn from_text(text: &str) -> Option<Variant> {
        text.parse().ok()
    }
}

impl Param for ColorRequest {
    const EXPECTED: &'static str = "white, black or random";

    fn from_text(text: &str) -> Option<ColorRequest> {
        text.parse().ok()
    }
}

impl Param for ChatRoom {
    const EXPECTED: &'static str = "player or spectator";

    fn from_text(text: &str) -> Option<ChatRoom> {
        text.parse().ok()
    }
}

impl Param for ResultFilter {
    const EXPECTED: &'static str = "win, loss or draw";

    fn from_text(text: &str) -> Option<ResultFilter> {
        match text {
            "win" => Some(ResultFilter::Win),
            "loss" => Some(ResultFilter::Loss),
            "draw" => Some(ResultFilter::Draw),
            _ => None,
        }
    }
}

/// The answer in a board API path (`draw/yes`, `takeback/no`): lichess's
/// `yes` or `no`, or a boolean word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer(pub bool);

impl Param for Answer {
    const EXPECTED: &'static str = "yes or no";

    fn from_text(text: &str) -> Option<Answer> {
        match text {
            "yes" => Some(Answer(true)),
            "no" => Some(Answer(false)),
            other => bool::from_text(other).map(Answer),
        }
    }
}

/// A path segment, so that a bad answer is the extractor's 400.
impl<'de> Deserialize<'de> for Answer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Answer, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Answer::from_text(text.trim()).ok_or_else(|| {
            let shown: String = text.chars().take(64).collect();
            de::Error::custom(format!("invalid answer {shown:?}: expected yes or no"))
        })
    }
}

/// Reads a field that may be left out: absent (with `#[serde(default)]`),
/// `null` and blank text are `None`.
pub fn optional<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Param,
{
    d.deserialize_any(ParamVisitor(PhantomData))
}

/// Reads a field that must be given: blank text is refused.
pub fn required<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Param,
{
    optional(d)?.ok_or_else(|| de::Error::custom(format!("empty, expected {}", T::EXPECTED)))
}

/// A boolean that arrived as a JSON value (fields read by hand, to name
/// every bad one at once): `None` unless a boolean or a boolean word.
pub fn flag_of(v: &serde_json::Value) -> Option<bool> {
    match v {
        serde_json::Value::Bool(b) => Some(*b),
        serde_json::Value::String(t) => bool::from_text(t),
        _ => None,
    }
}

struct ParamVisitor<T>(PhantomData<T>);

impl<'de, T: Param> Visitor<'de> for ParamVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<T>, E> {
        let text = v.trim();
        if text.is_empty() {
            return Ok(None);
        }
        T::from_text(text).map(Some).ok_or_else(|| {
            let shown: String = v.chars().take(64).collect();
            E::custom(format!("{shown:?} is not {}", T::EXPECTED))
        })
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Option<T>, E> {
        T::from_bool(b)
            .map(Some)
            .ok_or_else(|| E::invalid_type(Unexpected::Bool(b), &self))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<T>, E> {
        T::from_number(n)
            .map(Some)
            .ok_or_else(|| E::invalid_type(Unexpected::Signed(n), &self))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<T>, E> {
        i64::try_from(n)
            .ok()
            .and_then(T::from_number)
            .map(Some)
            .ok_or_else(|| E::invalid_value(Unexpected::Unsigned(n), &self))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Option<T>, E> {
        T::from_fraction(f)
            .map(Some)
            .ok_or_else(|| E::invalid_type(Unexpected::Float(f), &self))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, Deserialize)]
    struct Fields {
        #[serde(default, deserialize_with = "optional")]
        flag: Option<bool>,
        #[serde(default, deserialize_with = "optional")]
        n: Option<i64>,
        #[serde(default, deserialize_with = "optional")]
        variant: Option<Variant>,
        #[serde(default, deserialize_with = "optional")]
        color: Option<ColorRequest>,
    }

    fn form(q: &str) -> Result<Fields, String> {
        serde_urlencoded::from_str(q).map_err(|e| e.to_string())
    }

    fn json(v: serde_json::Value) -> Result<Fields, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn booleans_are_true_or_false_in_forms_and_json() {
        assert_eq!(form("flag=true").unwrap().flag, Some(true));
        assert_eq!(form("flag=false").unwrap().flag, Some(false));
        assert_eq!(form("flag=").unwrap().flag, None);
        assert_eq!(form("").unwrap().flag, None);
        assert_eq!(
            json(serde_json::json!({"flag": true})).unwrap().flag,
            Some(true)
        );
        assert_eq!(
            json(serde_json::json!({"flag": "false"})).unwrap().flag,
            Some(false)
        );
        assert_eq!(json(serde_json::json!({"flag": null})).unwrap().flag, None);
        for bad in ["yes", "1", "True", "maybe"] {
            let e = form(&format!("flag={bad}")).unwrap_err();
            assert!(e.contains("true or false"), "{bad}: {e}");
        }
        assert!(json(serde_json::json!({"flag": 1})).is_err());
    }

    #[test]
    fn lila_s_boolean_words_and_from_position() {
        #[derive(Debug, Deserialize)]
        struct Loose {
            #[serde(default, deserialize_with = "optional")]
            rated: Option<LooseBool>,
            #[serde(default, deserialize_with = "optional")]
            variant: Option<ChallengeVariant>,
        }
        let read = |q: &str| serde_urlencoded::from_str::<Loose>(q).map_err(|e| e.to_string());
        for (word, want) in [("False", false), ("TRUE", true), ("0", false), ("on", true)] {
            assert_eq!(
                read(&format!("rated={word}")).unwrap().rated,
                Some(LooseBool(want))
            );
        }
        assert!(read("rated=maybe").unwrap_err().contains("true or false"));
        let v = read("variant=fromPosition").unwrap().variant.unwrap();
        assert_eq!((v.variant, v.from_position), (Variant::Standard, true));
        let v = read("variant=standard").unwrap().variant.unwrap();
        assert_eq!((v.variant, v.from_position), (Variant::Standard, false));
        assert!(read("variant=crazyhouse").is_err());
    }

    #[test]
    fn numbers_words_and_answers() {
        assert_eq!(form("n=%2012%20").unwrap().n, Some(12));
        assert_eq!(json(serde_json::json!({"n": -3})).unwrap().n, Some(-3));
        assert_eq!(json(serde_json::json!({"n": "7"})).unwrap().n, Some(7));
        assert!(form("n=seven").unwrap_err().contains("a whole number"));
        assert!(json(serde_json::json!({"n": u64::MAX})).is_err());
        assert!(json(serde_json::json!({"n": true})).is_err());
        let f = form("variant=Fusion&color=black").unwrap();
        assert_eq!(f.variant, Some(Variant::Fusion));
        assert_eq!(f.color, Some(ColorRequest::Black));
        assert!(
            form("variant=crazyhouse")
                .unwrap_err()
                .contains("crazyhouse")
        );
        assert!(
            form("color=green")
                .unwrap_err()
                .contains("white, black or random")
        );
        assert_eq!(Answer::from_text("yes"), Some(Answer(true)));
        assert_eq!(Answer::from_text("false"), Some(Answer(false)));
        assert_eq!(Answer::from_text("maybe"), None);
        assert_eq!(flag_of(&serde_json::json!("true")), Some(true));
        assert_eq!(flag_of(&serde_json::json!(3)), None);
    }
}
