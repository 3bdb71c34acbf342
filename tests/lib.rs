//! Integration tests: the real `dayrun` binary on real files in temp folders.

mod fake_devto;
mod fake_mastodon;
mod fake_posts;
mod fake_server;
mod fake_wordpress;
mod fake_wordpress_trash;
mod git;
mod harness;
mod util;

mod by_hand;
mod cli;
mod command_target;
mod config;
mod content;
mod core_run;
mod crash;
mod devto;
mod drill;
mod edits;
mod exactly_once;
mod fortnight;
mod hostile;
mod http_target;
mod mastodon;
mod merge_state;
mod readme;
mod real_wordpress;
mod real_wordpress_edits;
mod retract;
mod state_file;
mod two_runners;
mod wordpress;
