//! What a post's images say on a target: an image with no alt text, and those left out.

use std::path::Path;

/// An image of the post at `path`, line `line`, with no alt text (`src`: as the post names it).
pub fn no_alt(path: &Path, line: usize, src: &str) -> String {
    format!("{}:{line}: image `{src}` has no alt text", path.display())
}

/// The images left out (`names`) of `total`, and who says so (`who`: "Bluesky takes 4").
pub fn left_out(names: &[String], total: usize, who: &str) -> String {
    format!(
        "{} of {total} images left out ({who}): {}",
        names.len(),
        names.join(", ")
    )
}
