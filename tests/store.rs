//! The state on disk (crates/store): the state file by hand, group commit, syncs under power
//! loss, and the merge driver with two runners sharing one repository.

pub mod batch;
pub mod merge_state;
pub mod power_loss;
pub mod state_file;
pub mod two_runners;
