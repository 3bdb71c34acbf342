//! Issue 21, "hostile input, round two": one test per row of the table (rows 1, 6, 7,
//! 9, 10, 11, 12, 13), and the checked-in corpus of hostile inputs with the outcome each must
//! have (`tests/hostile/round_two/corpus/`). Commands that could hang or grow without bound run with
//! a deadline and a capped address space, so a regression fails the test instead of the machine.

mod corpus;
mod escape;
mod ids;
mod links;
mod posts;
mod secrets;
