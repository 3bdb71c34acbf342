//! Integration tests: the real `dayrun` binary on real files in temp folders.

mod fake_posts;
mod fake_server;
mod util;

mod command_target;
mod content;
mod core_run;
mod drill;
mod http_target;
mod readme;
mod state_file;
