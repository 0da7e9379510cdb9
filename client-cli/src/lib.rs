//! cohort-client: the client side of Cohort's lockstep.
//!
//! - [`text`]: the text syntax of orders typed on stdin or written in bot scripts;
//! - [`brain`]: the scripted and seeded-random players behind `cohort bot`;
//! - [`verify`]: re-simulating bundles against recorded hashes (`cohort replay`);
//! - [`core`]: the sans-IO client core (messages, orders and time in; messages and events out);
//! - [`net`]: its QUIC driver; [`session`]: one bot's whole match over it;
//! - [`events`]: the lines `cohort play` shows of the core's events;
//! - [`threaded`]: the core pumped by a game loop, its link on a thread of its own (cohort-ffi);
//! - [`picture`]: pictures of a world (SVG, PNG, GIF clips) for `cohort render` and `cohort replay`;
//! - [`sim_report`]: what `cohort sim` prints of a run (the `--json` schema, the summary, the trace);
//! - [`soak_report`]: what `cohort soak` prints of the crowd soak (the `--json` schema, the summary).

pub mod brain;
pub mod core;
pub mod events;
pub mod net;
pub mod picture;
pub mod ruleset_doc;
pub mod scenario_file;
pub mod session;
pub mod sim_report;
pub mod soak_report;
pub mod text;
pub mod threaded;
pub mod verify;
