//! The docs cannot drift from the binary: the README's and docs/'s console blocks and examples,
//! examples/, and a fortnight of mornings against its transcript (`fortnight.expected`).

pub mod console;
pub mod examples;
pub mod fortnight;
pub mod readme;
