//! Telling: how each step of a key's life looks to a person (the printed line, the trace
//! detail, the hint), and what a target's pass says at its start and its end. Pure functions
//! over plain values: the runner gathers the values, calls these, and prints what they make.

pub mod dry;
pub mod edit;
pub mod failure;
pub mod header;
pub mod hint;
pub mod images;
pub mod line;
pub mod look;
pub mod retract;
pub mod skip;
pub mod stop;
pub mod summary;
pub mod thread;

pub use hint::Hints;
pub use line::Teller;
pub use stop::Stop;
