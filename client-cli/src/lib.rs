//! cohort-client: the client side of Cohort's lockstep.
//!
//! - [`text`]: the text syntax of orders typed on stdin or written in bot scripts;
//! - [`brain`]: the scripted and seeded-random players behind `cohort bot`;
//! - [`verify`]: re-simulating bundles against recorded hashes (`cohort replay`).

pub mod brain;
pub mod core;
pub mod text;
pub mod verify;
