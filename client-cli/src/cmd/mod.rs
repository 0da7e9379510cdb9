//! One module per subcommand.

pub mod render;
pub mod sim;
pub mod verify;
