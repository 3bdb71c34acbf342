//! The command line as a person meets it: the core run, `mark`, `adopt`, `retract`, the
//! config's messages, cron's mail and the paper cuts.

pub mod by_hand;
pub mod cli;
pub mod config;
pub mod core_run;
pub mod cron;
pub mod drill;
pub mod paper_cuts;
pub mod paper_cuts_two;
pub mod retract;
pub mod status_rows;
