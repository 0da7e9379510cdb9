//! cohort-server: the lockstep server (DESIGN.md, "Lockstep").
//!
//! - [`lockstep`]: the sans-IO `Match` — events and the time in, actions out;
//! - [`admit`]: checking a connection's Hello and token before it reaches a match;
//! - [`config`]: the configuration file, flags and environment;
//! - [`tls`]: certificates (files, or a self-signed one and its fingerprint);
//! - [`state`]: the state folder: the self-signed certificate and random secret kept across
//!   restarts, and writing a file atomically;
//! - [`driver`]: the tokio/quinn driver that moves bytes and timers for many matches;
//! - [`http`]: the admin API, metrics and health over HTTP (axum);
//! - [`tokens`]: minting a match's join tokens;
//! - [`watch`]: the live match in a browser: the page and its view frames;
//! - [`agones`]: telling an Agones SDK sidecar ready, health and shutdown.

pub mod admit;
pub mod agones;
pub mod config;
pub mod driver;
pub mod http;
pub mod lockstep;
pub mod state;
pub mod tls;
pub mod tokens;
pub mod watch;
