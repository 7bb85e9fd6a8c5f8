//! The options of `chessmerge loadtest`, and their checks.

use std::net::IpAddr;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chessmerge_rules::Variant;

use super::rng::Rng;

/// Options of `chessmerge loadtest`.
#[derive(clap::Args, Debug)]
pub struct LoadtestArgs {
    /// The server (or load balancer) under test, `http://HOST:PORT`.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub(super) url: String,
    /// Games played at once: twice as many simulated players.
    #[arg(long, default_value_t = 10)]
    pub(super) games: usize,
    /// Seconds of play, counted once every player is registered.
    #[arg(long, default_value_t = 10.0)]
    pub(super) duration: f64,
    /// Transports drawn per game, with weights: `ws=70,http=30`, `ws`,
    /// `http=1`. `ws` is the page's WebSocket, `http` the board API with
    /// ndjson streams.
    #[arg(long, default_value = "ws=70,http=30", value_parser = parse_mix)]
    pub(super) mix: Mix,
    /// Drop and reopen a player's connection after every K moves it has
    /// seen (WebSocket: resubscribe from the last version seen).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) reconnect_every: Option<u32>,
    /// The variants played, in turn.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "chessmerge,chessplus,fusion,standard"
    )]
    pub(super) variants: Vec<Variant>,
    /// A game still going after this many plies is resigned (ChessMerge
    /// has no fifty-move rule: random games can go on for long).
    #[arg(long, default_value_t = 300)]
    pub(super) max_plies: i64,
    /// Seconds any one request, connection or wait for a state may take.
    #[arg(long, default_value_t = 15.0)]
    pub(super) timeout: f64,
    /// Seconds for registering the players.
    #[arg(long, default_value_t = 300.0)]
    pub(super) setup_timeout: f64,
    /// Seconds after the duration for games to settle, and again for the
    /// final check.
    #[arg(long, default_value_t = 30.0)]
    pub(super) drain_timeout: f64,
    /// Registrations (Argon2id hashings on the server) sent at once.
    #[arg(long, default_value_t = 8)]
    pub(super) setup_concurrency: usize,
    /// Seed of the random choices (default: from the clock).
    #[arg(long)]
    pub(super) seed: Option<u64>,
    /// Allow a host that is not loopback (127.0.0.0/8, ::1, localhost).
    #[arg(long)]
    pub(super) allow_remote: bool,
    /// A fault test: the server, a node or the database will go away
    /// during the run. Connection failures, lost acknowledgements and 502,
    /// 503 or 504 answers are then counted as outages (expected), and the
    /// players keep reconnecting for about a minute instead of giving up
    /// after three tries. The checks stay: every game must replay and be
    /// what both players saw, and every acknowledged move must be in it.
    #[arg(long)]
    pub(super) outages: bool,
    /// Milliseconds a player thinks before each move (drawn uniformly
    /// from half to one and a half times this). 0, the default, moves at
    /// once: every game then moves as fast as the server answers, so the
    /// run measures the server's capacity and latency is mostly queueing
    /// (Little's law: games / moves per second). With a think time the
    /// load is paced like real players and latency is the service time at
    /// that rate.
    #[arg(long, default_value_t = 0)]
    pub(super) think_ms: u64,
    /// Seconds at the start of play whose moves the steady-state latency
    /// line leaves out: the opening burst, when every game is created and
    /// makes its first moves at once. Those moves still count everywhere
    /// else (moves/s, the first latency line, the checks)
    #[arg(long, default_value_t = 5.0)]
    pub(super) warmup: f64,
}
/// How games pick their transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transport {
    Ws,
    Http,
}

impl Transport {
    pub(super) fn name(self) -> &'static str {
        match self {
            Transport::Ws => "ws",
            Transport::Http => "http",
        }
    }
}

/// Weights of the transports (`ws`, `http`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    pub(super) ws: u32,
    pub(super) http: u32,
}

impl Mix {
    pub(super) fn pick(self, rng: &mut Rng) -> Transport {
        if rng.below(u64::from(self.ws + self.http)) < u64::from(self.ws) {
            Transport::Ws
        } else {
            Transport::Http
        }
    }
}

fn parse_mix(s: &str) -> Result<Mix, String> {
    let mut mix = Mix { ws: 0, http: 0 };
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = match part.split_once('=') {
            Some((n, w)) => (
                n.trim(),
                w.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("bad weight in {part:?}"))?,
            ),
            None => (part, 1),
        };
        match name {
            "ws" => mix.ws = weight,
            "http" => mix.http = weight,
            _ => return Err(format!("unknown transport {name:?}: ws or http")),
        }
    }
    if mix.ws.checked_add(mix.http).is_none_or(|t| t == 0) {
        return Err("the weights must add up to something between 1 and 2^32".into());
    }
    Ok(mix)
}

/// The base URL, checked: plain `http`, and loopback unless allowed.
pub(super) fn check_url(url: &str, allow_remote: bool) -> Result<String> {
    let parsed = reqwest::Url::parse(url).with_context(|| format!("--url {url:?}"))?;
    if parsed.scheme() != "http" {
        bail!("--url must be http:// (this build speaks no TLS), not {url:?}");
    }
    let Some(host) = parsed.host_str() else {
        bail!("--url {url:?} has no host");
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = match bare.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare.eq_ignore_ascii_case("localhost"),
    };
    if !loopback && !allow_remote {
        bail!(
            "refusing to load {url}: {host} is not a loopback host (127.0.0.0/8, ::1, localhost); \
             pass --allow-remote to load another machine you are responsible for"
        );
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        bail!("--url {url:?}: no query or fragment, please");
    }
    Ok(parsed.as_str().trim_end_matches('/').to_owned())
}
pub(super) fn seconds(what: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0 && s <= 86_400.0) {
        bail!("{what} must be a number of seconds above 0 and at most a day");
    }
    Ok(Duration::from_secs_f64(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_weights_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_mix("ws=70,http=30"), Ok(Mix { ws: 70, http: 30 }));
        assert_eq!(parse_mix("ws"), Ok(Mix { ws: 1, http: 0 }));
        assert_eq!(parse_mix(" http = 2 "), Ok(Mix { ws: 0, http: 2 }));
        assert!(parse_mix("tcp=1").is_err());
        assert!(parse_mix("ws=0,http=0").is_err());
        assert!(parse_mix("ws=x").is_err());
        let mut rng = Rng(3);
        let ws = (0..1000)
            .filter(|_| Mix { ws: 70, http: 30 }.pick(&mut rng) == Transport::Ws)
            .count();
        assert!((620..=780).contains(&ws), "{ws} of 1000 drew ws");
        assert!((0..100).all(|_| Mix { ws: 0, http: 1 }.pick(&mut rng) == Transport::Http));
    }

    #[test]
    fn only_loopback_hosts_unless_allowed() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://127.1.2.3:9/",
            "http://[::1]:8080",
            "http://localhost:8080",
        ] {
            assert!(check_url(ok, false).is_ok(), "{ok}");
        }
        assert_eq!(
            check_url("http://127.0.0.1:8080/", false).unwrap(),
            "http://127.0.0.1:8080"
        );
        for remote in [
            "http://10.0.0.1:8080",
            "http://example.org",
            "http://[2001:db8::1]",
        ] {
            let e = check_url(remote, false).unwrap_err().to_string();
            assert!(e.contains("not a loopback host"), "{remote}: {e}");
            assert!(
                check_url(remote, true).is_ok(),
                "{remote} with --allow-remote"
            );
        }
        assert!(check_url("https://127.0.0.1", true).is_err());
        assert!(check_url("http://127.0.0.1/?a=b", false).is_err());
    }
}
