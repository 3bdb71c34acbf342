//! Suites against the real servers of the shared harness (WordPress, Ghost, a Bluesky PDS, two Nostr relays);
//! ignored unless `DAYRUN_HARNESS` names the harness.

pub mod real_bluesky;
pub mod real_drill;
pub mod real_ghost;
pub mod real_images;
pub mod real_matrix;
pub mod real_nostr;
pub mod real_templates;
pub mod real_threads;
pub mod real_wordpress;
pub mod real_wordpress_edits;
