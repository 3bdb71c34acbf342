//! Posts and what is made of them (crates/content): bad posts and images, the image cleaner,
//! templates and threads.

pub mod blog_layout;
pub mod images_bad;
pub mod images_privacy;
pub mod images_prop;
pub mod messy_posts;
pub mod periods;
pub mod renames;
mod renames_prop;
pub mod slugged;
pub mod static_dirs;
pub mod templates;
pub mod threads;
pub mod times;
