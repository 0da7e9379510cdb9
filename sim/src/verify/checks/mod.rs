//! The spec's checks (spec: "Checks"), one file each, named as `cohort verify` names them;
//! `common.rs` holds what several of them ask.

mod arrive50;
mod chasetable;
mod common;
mod crowdgoal;
mod formation;
mod gap;
mod goldmine;
mod march;
mod planner;
mod replanspread;
mod sharedwalk;
mod shore;

pub use arrive50::arrive50;
pub use chasetable::chasetable;
pub use crowdgoal::crowdgoal;
pub use formation::formation;
pub use gap::gap;
pub use goldmine::goldmine;
pub use march::march;
pub use planner::planner;
pub use replanspread::replanspread;
pub use sharedwalk::sharedwalk;
pub use shore::shore;
