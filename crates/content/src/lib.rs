//! What dayrun publishes: the catalog of dated posts, each post read and derived, its images,
//! the templates and the thread split.
#![cfg_attr(test, allow(clippy::too_many_lines))]

pub mod content;
pub mod images;
pub mod layout;
pub mod post;
pub mod sources;
pub mod template;
#[cfg(test)]
mod test_alloc;
pub mod thread;

use base::{clock, error, fsutil, text};
use life::outside;
