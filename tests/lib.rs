//! Integration tests: the real `dayrun` binary on real files in temp folders.
// Test code is exempt from the 80-line limit on functions (Cargo.toml, clippy.toml).
#![allow(clippy::too_many_lines)]

mod fake_bluesky;
mod fake_bluesky_rules;
mod fake_devto;
mod fake_ghost;
mod fake_ghost_rules;
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
mod copies_set;
mod core_run;
mod crash;
mod cron;
mod devto;
mod docs;
mod drill;
mod edits;
mod exactly_once;
mod examples;
mod floor;
mod fortnight;
mod ghost;
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
mod model;
mod netbench;
mod not_ours;
mod one_answer;
mod outage;
mod paper_cuts;
mod paper_cuts_two;
mod pending_time;
mod power_loss;
mod readme;
mod real_bluesky;
mod real_ghost;
mod real_images;
mod real_templates;
mod real_threads;
mod real_wordpress;
mod real_wordpress_edits;
mod retract;
mod state_file;
mod templates;
mod threads;
mod two_runners;
mod wordpress;
