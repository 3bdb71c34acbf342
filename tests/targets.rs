//! One file per target kind (crates/targets) against its strict fake, and images on each.

pub mod bluesky;
pub mod command_target;
pub mod devto;
pub mod ghost;
pub mod http_target;
pub mod images_targets;
pub mod linkedin;
pub mod mastodon;
pub mod matrix;
pub mod nostr;
pub mod threads;
pub mod wordpress;
