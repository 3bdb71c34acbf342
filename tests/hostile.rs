//! Hostile input: no secret leaks, no hang, no spoofed log line (round one, issue 9), round
//! two (issue 21, with its corpus), and the hostile images.

pub mod images;
pub mod round_one;
pub mod round_two;
