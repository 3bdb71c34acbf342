//! Integration tests: the real `dayrun` binary on real files in temp folders, one folder per
//! thing tested (docs/development.md, "Where a test goes"): first what the tests stand on, then
//! the features in the order of the crates.
// Test code is exempt from the 80-line limit on functions (Cargo.toml, clippy.toml).
#![allow(clippy::too_many_lines)]

// util, harness, git, the image generators
mod support;
// the strict fakes of the platforms' servers
mod fakes;
// suites against the real servers of the harness
mod real;
// crates/life: a key's life, exactly once
mod life;
// crates/store: the state on disk
mod store;
// crates/content: posts, images, templates, threads
mod content;
// crates/targets: one file per target kind
mod targets;
// src/: the commands as a person meets them
mod commands;
// what a run tells the monitors: metrics, ping, check, calendar
mod watch;
// the docs and examples run against the binary
mod docs;
// hostile input
mod hostile;
// requests per post
mod bench;
