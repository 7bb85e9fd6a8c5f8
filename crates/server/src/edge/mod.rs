//! The HTTP edge below the handlers (`api/`): the accept loop and its
//! limits (`connections`), the `Host` check and security headers
//! (`guard`), credentials and login limits (`auth`), request extractors
//! (`extract`), the one API error (`error`) and the embedded page (`web`).
//! The edge calls the domains; nothing below it calls the edge.

pub mod auth;
pub mod connections;
pub mod error;
pub mod extract;
pub mod guard;
pub mod rates;
pub(crate) mod web;

pub use guard::{AllowedHosts, guard};
