//! The site's own account features: per-account preferences (lichess's
//! `GET /api/account/preferences` shape) and guest accounts (play the
//! computer without registering).

use std::net::IpAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::accounts::Accounts;
use crate::auth::{self, AuthUser};
use crate::challenges::WhoMayChallenge;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Input;
use crate::state::Login;
use crate::store::StoreError;
use crate::views::AccountJson;
use serde_json::Value;

/// Board colour themes.
pub const THEMES: [&str; 4] = ["green", "brown", "blue", "grey"];
/// Sizes of the second piece of a pair.
pub const PAIR_SIZES: [&str; 3] = ["small", "medium", "large"];

/// A player's site settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct SitePrefsJson {
    /// Board colours: `green`, `brown`, `blue` or `grey`.
    pub theme: String,
    /// The dark page theme.
    pub dark: bool,
    /// How large the second piece of a pair is drawn: `small`, `medium`, `large`.
    pub pair_size: String,
    /// A short tone when it becomes your move or something is offered.
    pub sound: bool,
    /// Ask before resigning.
    pub confirm_resign: bool,
    /// Browser notifications while a page of the site is open (the browser
    /// asks for permission when you turn this on).
    pub notifications: bool,
    /// Who may challenge you: `always` (anyone signed in), `registered`
    /// (not guests), `rating` (rated within 300 of you) or `never`.
    #[schema(value_type = String)]
    pub challenge: WhoMayChallenge,
}

impl Default for SitePrefsJson {
    fn default() -> Self {
        SitePrefsJson {
            theme: THEMES[0].into(),
            dark: false,
            pair_size: "medium".into(),
            sound: false,
            confirm_resign: true,
            notifications: false,
            challenge: WhoMayChallenge::Always,
        }
    }
}

/// `GET /api/account/preferences`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SitePrefsReplyJson {
    /// Your settings (the defaults for those you never set).
    pub prefs: SitePrefsJson,
}

/// Settings to change (any subset); unknown names are refused.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SitePrefsInput {
    /// `green`, `brown`, `blue` or `grey`.
    pub theme: Option<String>,
    /// The dark page theme.
    #[schema(value_type = Option<bool>)]
    pub dark: Option<Value>,
    /// `small`, `medium` or `large`.
    pub pair_size: Option<String>,
    /// Sound on/off.
    #[schema(value_type = Option<bool>)]
    pub sound: Option<Value>,
    /// Confirm before resigning.
    #[schema(value_type = Option<bool>)]
    pub confirm_resign: Option<Value>,
    /// Browser notifications.
    #[schema(value_type = Option<bool>)]
    pub notifications: Option<Value>,
    /// `always`, `registered`, `rating` or `never`.
    pub challenge: Option<String>,
}

impl SitePrefsInput {
    /// `prefs` with these changes, or a 400 naming every bad value.
    fn apply(&self, mut prefs: SitePrefsJson) -> ApiResult<SitePrefsJson> {
        let mut faults = Vec::new();
        let mut any = false;
        let mut choice = |name: &str, v: &Option<String>, allowed: &[&str], into: &mut String| {
            if let Some(v) = v {
                any = true;
                if allowed.contains(&v.as_str()) {
                    *into = v.clone();
                } else {
                    faults.push(format!(
                        "invalid {name} {v:?}: one of {}",
                        allowed.join(", ")
                    ));
                }
            }
        };
        choice("theme", &self.theme, &THEMES, &mut prefs.theme);
        choice(
            "pairSize",
            &self.pair_size,
            &PAIR_SIZES,
            &mut prefs.pair_size,
        );
        if let Some(v) = &self.challenge {
            any = true;
            match serde_json::from_value(Value::String(v.clone())) {
                Ok(who) => prefs.challenge = who,
                Err(_) => faults.push(format!(
                    "invalid challenge {v:?}: one of {}",
                    WhoMayChallenge::WORDS.join(", ")
                )),
            }
        }
        for (name, v, into) in [
            ("dark", &self.dark, &mut prefs.dark),
            ("sound", &self.sound, &mut prefs.sound),
            (
                "confirmResign",
                &self.confirm_resign,
                &mut prefs.confirm_resign,
            ),
            (
                "notifications",
                &self.notifications,
                &mut prefs.notifications,
            ),
        ] {
            if let Some(v) = v {
                any = true;
                match super::params::flag_of(v) {
                    Some(b) => *into = b,
                    None => faults.push(format!("invalid {name} {v}: expected true or false")),
                }
            }
        }
        if !faults.is_empty() {
            return Err(ApiError::bad(faults.join("; ")));
        }
        if !any {
            return Err(ApiError::bad(
                "no preference given: send one or more of theme, dark, pairSize, sound, confirmResign, notifications, challenge",
            ));
        }
        Ok(prefs)
    }
}

/// The stored settings text (as read, to guard the save) and its values.
async fn stored_prefs(
    accounts: &Accounts,
    user: &AuthUser,
) -> ApiResult<(Option<String>, SitePrefsJson)> {
    let text = accounts.preferences(user.user.id).await?;
    let prefs = match &text {
        None => SitePrefsJson::default(),
        Some(t) => serde_json::from_str(t).map_err(|e| {
            ApiError::from(StoreError::Corrupt(format!(
                "preferences of {}: {e}",
                user.user.username
            )))
        })?,
    };
    Ok((text, prefs))
}

/// How many times a save of settings is read and applied again when
/// another save of the same account came between its read and its write.
const PREFERENCE_TRIES: usize = 8;

/// Your site settings.
#[utoipa::path(get, path = "/api/account/preferences", tag = "account",
    responses(
        (status = 200, description = "your settings", body = SitePrefsReplyJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn get_preferences(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
) -> ApiResult<Json<SitePrefsReplyJson>> {
    Ok(Json(SitePrefsReplyJson {
        prefs: stored_prefs(&accounts, &user).await?.1,
    }))
}

/// Change some of your site settings; answers them all.
#[utoipa::path(post, path = "/api/account/preferences", tag = "account",
    request_body(content = SitePrefsInput, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "your settings after the change", body = SitePrefsReplyJson),
        (status = 400, description = "an unknown name, a bad value, or nothing to change", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 415, description = "a body that is neither JSON nor a form", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn set_preferences(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
    Input(input): Input<SitePrefsInput>,
) -> ApiResult<Json<SitePrefsReplyJson>> {
    for _ in 0..PREFERENCE_TRIES {
        let (read, stored) = stored_prefs(&accounts, &user).await?;
        let prefs = input.apply(stored)?;
        let text = serde_json::to_string(&prefs).map_err(|e| ApiError::Internal(e.to_string()))?;
        if accounts
            .set_preferences(user.user.id, read.as_deref(), &text)
            .await?
        {
            return Ok(Json(SitePrefsReplyJson { prefs }));
        }
    }
    Err(StoreError::Unavailable(format!(
        "your settings changed {PREFERENCE_TRIES} times while this change was saved; try again"
    ))
    .into())
}

pub use crate::model::{GUEST_PREFIX, is_guest};

/// A password hash no password matches: guests sign in only by their cookie.
const NO_PASSWORD: &str = "!guest";

/// Guest accounts one address may create per hour.
pub const GUESTS_PER_ADDRESS_PER_HOUR: u32 = 20;

/// The allowance of guest accounts from one address, counted in the store
/// (shared by every node).
fn guest_allowance(ip: IpAddr) -> crate::store::Allowance {
    crate::store::Allowance {
        key: format!("g:{ip}"),
        window_ms: 3600 * 1000,
        limit: crate::store::Limit::AtMost(GUESTS_PER_ADDRESS_PER_HOUR),
    }
}

fn guest_name() -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let bytes: [u8; 6] = auth::random_bytes();
    let tail: String = bytes
        .iter()
        .map(|b| ALPHABET[(*b as usize) % ALPHABET.len()] as char)
        .collect();
    format!("{GUEST_PREFIX}{tail}")
}

/// Become a guest: a new account named `guest-xxxxxx`, without a password,
/// signed in by a session cookie (30 days). Guests play like anyone
/// (against the computer, by challenge link); signing out or losing the
/// cookie loses the account. Creating one while signed in is refused.
#[utoipa::path(post, path = "/api/account/guest", tag = "account",
    responses(
        (status = 200, description = "a guest account; a session cookie is set", body = AccountJson),
        (status = 409, description = "already signed in", body = ErrorBody),
        (status = 429, description = "too many guest accounts from this address this hour", body = ErrorBody)))]
pub async fn create_guest(
    State(login): State<Arc<Login>>,
    auth::ClientIp(ip): auth::ClientIp,
    auth::MaybeUser(already): auth::MaybeUser,
) -> ApiResult<Response> {
    if let Some(u) = already {
        return Err(ApiError::Conflict(format!(
            "already signed in as {}: sign out first",
            u.user.username
        )));
    }
    let ip = crate::connections::address_key(ip);
    if let Err(r) = login
        .accounts
        .take_allowance(&[guest_allowance(ip)])
        .await?
    {
        return Err(ApiError::RateLimited(
            format!(
                "at most {GUESTS_PER_ADDRESS_PER_HOUR} guest accounts per hour from one address: \
                 try again in {} min",
                (r.retry_ms + 59_999) / 60_000
            ),
            (r.retry_ms.max(0) as u64).div_ceil(1000),
        ));
    }
    let mut tries = 0;
    let user = loop {
        match login.accounts.create(&guest_name(), NO_PASSWORD).await {
            Ok(u) => break u,
            Err(StoreError::Conflict) if tries < 5 => tries += 1,
            Err(e) => return Err(e.into()),
        }
    };
    tracing::info!(user = %user.username, "guest account created");
    let cookie = crate::api::account::start_session(&login, &user).await?;
    Ok((
        [(header::SET_COOKIE, cookie)],
        Json(AccountJson::from(&user)),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guests_are_named_and_counted() {
        let n = guest_name();
        assert!(is_guest(&n) && n.len() == GUEST_PREFIX.len() + 6, "{n}");
        assert!(is_guest("Guest-abc") && !is_guest("guest") && !is_guest("alice"));
    }

    #[tokio::test]
    async fn guests_are_counted_per_address_in_the_store() {
        let (store, _dir) = crate::store::conformance::temp_sqlite("guests").await;
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        for _ in 0..GUESTS_PER_ADDRESS_PER_HOUR {
            assert_eq!(
                store.take_allowance(&[guest_allowance(ip)]).await.unwrap(),
                Ok(())
            );
        }
        let refused = store.take_allowance(&[guest_allowance(ip)]).await.unwrap();
        assert!(refused.unwrap_err().retry_ms > 3500 * 1000, "about an hour");
        let other = guest_allowance("10.0.0.2".parse().unwrap());
        assert_eq!(store.take_allowance(&[other]).await.unwrap(), Ok(()));
    }

    #[test]
    fn changes_name_every_bad_value() {
        let input = SitePrefsInput {
            theme: Some("pink".into()),
            dark: Some(Value::String("yes".into())),
            ..Default::default()
        };
        let err = input
            .apply(SitePrefsJson::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("theme \"pink\"") && err.contains("dark \"yes\""),
            "{err}"
        );
        let none = SitePrefsInput::default().apply(SitePrefsJson::default());
        assert!(none.is_err());
        let ok = SitePrefsInput {
            pair_size: Some("large".into()),
            sound: Some(Value::Bool(true)),
            ..Default::default()
        }
        .apply(SitePrefsJson::default())
        .unwrap();
        assert_eq!(
            (ok.pair_size.as_str(), ok.sound, ok.dark),
            ("large", true, false)
        );
    }
}
