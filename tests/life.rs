//! A key's life (crates/life): published exactly once through lost answers, kills, outages and
//! faults, its copies as one set, edits after it is done, and the model of random lives.

pub mod copies_set;
pub mod crash;
pub mod drill;
pub mod edits;
pub mod exactly_once;
pub mod lifecycle;
pub mod model;
pub mod not_ours;
pub mod one_answer;
pub mod outage;
pub mod pending_time;
pub mod thread_model;
