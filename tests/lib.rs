//! Integration tests: the real `dayrun` binary on real files in temp folders.

mod fake_bluesky;
mod fake_bluesky_rules;
mod fake_devto;
mod fake_mastodon;
mod fake_posts;
mod fake_server;
mod fake_wordpress;
mod fake_wordpress_trash;
mod git;
mod harness;
#[path = "images/gen.rs"]
mod image_gen;
#[path = "images/hostile_gen.rs"]
mod image_hostile;
mod util;

mod batch;
mod bluesky;
mod by_hand;
mod cli;
mod command_target;
mod config;
mod content;
mod core_run;
mod crash;
mod cron;
mod devto;
mod docs;
mod drill;
mod edits;
mod exactly_once;
mod examples;
mod fortnight;
mod hostile;
mod hostile_two;
mod http_target;
mod images_bad;
mod images_hostile;
mod images_privacy;
mod images_prop;
mod images_targets;
mod lifecycle;
mod mastodon;
mod merge_state;
mod not_ours;
mod paper_cuts;
mod power_loss;
mod readme;
mod real_bluesky;
mod real_images;
mod real_wordpress;
mod real_wordpress_edits;
mod retract;
mod state_file;
mod two_runners;
mod wordpress;
