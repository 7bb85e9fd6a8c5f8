//! The domains: what the site does, apart from HTTP. Each holds its own
//! state, reads and writes through the store, and is tested without a
//! server. They call the store, the wire shapes (`views`) and the
//! plumbing below them, and each other, never the HTTP edge.

pub mod accounts;
pub mod challenges;
pub mod computer;
pub mod games;
pub mod live;
pub mod live_analysis;
pub mod notices;
pub mod presence;
pub mod profile;
pub mod review;
