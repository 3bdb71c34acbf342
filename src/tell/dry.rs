//! What `--dry-run` says a send would do: the post, its images, its thread's parts, the copies
//! its text links to and the text its template makes.

use super::line::describe;
use crate::life::Why;
use crate::post::Post;
use crate::template::Upstream;
use std::path::Path;

/// A post whose text cannot be made for the target now (`why`).
pub fn would_fail(why: &str, post: &Post) -> String {
    format!("(local) ({why}) {}", describe(post))
}

/// A post the run would publish; `looks_on`: the target it would look on first, when an
/// earlier attempt may have landed.
pub fn publish(why: Why, looks_on: Option<&str>, post: &Post) -> String {
    let look = match looks_on {
        Some(name) => format!(
            "an earlier attempt may have landed: would look on {name} first, and send only if it is provably absent; "
        ),
        None => String::new(),
    };
    format!("({}) {look}{}", why.text(), describe(post))
}

/// A published copy the run would update (`id`: the copy's).
pub fn update(id: &str, post: &Post) -> String {
    format!("(edited since it was published) id={id} {}", describe(post))
}

/// An update an earlier run left pending.
pub const FINISH_UPDATE: &str =
    "(an interrupted update: would read the copy back, and send it again if needed)";

/// A pending key whose post is gone.
pub const LOOK_ONLY: &str =
    "its post is gone; an attempt may have landed: would look on the target";

/// A done copy beside which another runner's attempt may have landed (a merge kept it).
pub const LOOK_BESIDE: &str = "published; another runner's attempt of this copy may have landed too: would look on the target for further copies";

/// A retracted key whose line still says `sent=maybe` (a merge).
pub const LOOK_RETRACTED: &str = "retracted; another runner's attempt of this copy may have landed: would look on the target for a copy of it";

/// A thread resumed from a line that names no split.
pub const NO_SPLIT: &str =
    "(its line names no split: would read the parts out back and compare them first)";

/// One image of a post and what would be done with it (`plan`).
pub fn image(path: &Path, alt: &str, plan: &str) -> String {
    format!("{} alt={alt:?} → {plan}", path.display())
}

/// Where the copy of `name` that the key's text links to stands.
pub fn copy(name: &str, upstream: Upstream) -> String {
    match upstream {
        Upstream::There(copy) => format!(
            "the text links to {name}'s copy {}",
            copy.url.unwrap_or(copy.id)
        ),
        Upstream::Coming(why) => {
            format!("the text links to {name}'s copy, not there yet ({why}): sent once it is")
        }
        Upstream::Never(why) => {
            format!("the text links to {name}'s copy, which will not come: {why}")
        }
    }
}

/// The text the template makes, and how long it is.
pub fn text(text: &str) -> String {
    let graphemes = unicode_segmentation::UnicodeSegmentation::graphemes(text, true).count();
    format!("({graphemes} graphemes before fitting) {text:?}")
}

/// A template that cannot make the text (`message`: why).
pub fn cannot_render(message: &str) -> String {
    format!("cannot render: {message}")
}

/// A thread's first line: why it is sent, its parts, those out, and whether the next part
/// may be out (`maybe`: it is looked for first).
pub fn thread(why: Why, parts: usize, out: usize, maybe: bool, title: &str) -> String {
    let look = match maybe {
        true => "; the next part may be out: would look first",
        false => "",
    };
    format!(
        "({}) a thread of {parts} parts, {out} already out{look}: {title:?}",
        why.text()
    )
}

/// Part `n` (from 0) of `of`: its length as the platform counts it, whether it is out, its text.
pub fn part(n: usize, of: usize, count: usize, out: bool, text: &str) -> String {
    let state = match out {
        true => "out",
        false => "would send",
    };
    format!("{}/{of} ({count} graphemes, {state}): {text:?}", n + 1)
}
