//! The strict in-process fakes of each platform's server, each answering and refusing as the
//! real server does, with the tests that check a fake keeps the real server's rules, and how the
//! fakes look at uploaded images (`media`).

pub mod fake_bluesky;
pub mod fake_bluesky_rules;
pub mod fake_devto;
pub mod fake_ghost;
pub mod fake_ghost_rules;
pub mod fake_linkedin;
pub mod fake_linkedin_images;
pub mod fake_linkedin_rules;
pub mod fake_mastodon;
pub mod fake_matrix;
pub mod fake_matrix_rules;
pub mod fake_nostr;
pub mod fake_nostr_rules;
pub mod fake_ping;
pub mod fake_posts;
pub mod fake_server;
pub mod fake_threads;
pub mod fake_threads_rules;
pub mod fake_wordpress;
pub mod fake_wordpress_trash;
pub mod media;
