//! The floor under dayrun's crates: the one error type, the clock, durable files, redaction,
//! the text helpers several crates share, and what is said to a person and traced.
#![cfg_attr(test, allow(clippy::too_many_lines))]

pub mod clock;
pub mod error;
pub mod fsutil;
pub mod redact;
pub mod say;
pub mod signals;
pub mod text;
pub mod trace;

pub use life::outside;
