//! One module per subcommand.

pub mod bot;
pub mod connect;
pub mod play;
pub mod render;
pub mod replay;
pub mod ruleset;
pub mod sim;
pub mod soak;
pub mod token;
pub mod verify;
