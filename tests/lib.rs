//! Integration tests: the real `dayrun` binary on real files in temp folders, one folder per
//! thing tested (docs/development.md, "Where a test goes"): first what the tests stand on, then
//! the features in the order of the crates.
// Test code is exempt from the 80-line limit on functions (Cargo.toml, clippy.toml).
#![allow(clippy::too_many_lines)]

mod support {
    pub mod git;
    pub mod harness;
    pub mod image_gen;
    pub mod image_hostile;
    pub mod util;
}
mod fakes {
    pub mod fake_bluesky;
    pub mod fake_bluesky_rules;
    pub mod fake_devto;
    pub mod fake_ghost;
    pub mod fake_ghost_rules;
    pub mod fake_mastodon;
    pub mod fake_posts;
    pub mod fake_server;
    pub mod fake_wordpress;
    pub mod fake_wordpress_trash;
}
mod real {
    pub mod real_bluesky;
    pub mod real_ghost;
    pub mod real_images;
    pub mod real_templates;
    pub mod real_threads;
    pub mod real_wordpress;
    pub mod real_wordpress_edits;
}
mod life {
    pub mod copies_set;
    pub mod crash;
    pub mod drill;
    pub mod edits;
    pub mod exactly_once;
    pub mod lifecycle;
    pub mod model;
    pub mod not_ours;
    pub mod one_answer;
    pub mod outage;
    pub mod pending_time;
}
mod store {
    pub mod batch;
    pub mod merge_state;
    pub mod power_loss;
    pub mod state_file;
    pub mod two_runners;
}
mod content {
    pub mod images_bad;
    pub mod images_privacy;
    pub mod images_prop;
    pub mod messy_posts;
    pub mod templates;
    pub mod threads;
}
mod targets {
    pub mod bluesky;
    pub mod command_target;
    pub mod devto;
    pub mod ghost;
    pub mod http_target;
    pub mod images_targets;
    pub mod mastodon;
    pub mod wordpress;
}
mod commands {
    pub mod by_hand;
    pub mod cli;
    pub mod config;
    pub mod core_run;
    pub mod cron;
    pub mod paper_cuts;
    pub mod paper_cuts_two;
    pub mod retract;
}
mod docs {
    pub mod console;
    pub mod examples;
    pub mod fortnight;
    pub mod readme;
}
mod hostile {
    pub mod images;
    pub mod round_one;
    pub mod round_two;
}
mod bench {
    pub mod floor;
    pub mod netbench;
}
