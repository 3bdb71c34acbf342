//! Where each copy a key's text links to stands (`template::judge` says whether it is there,
//! coming or never coming): what a post is given of them, and, when one is missing, why the key
//! waits (it may still come) or fails (it cannot come without a human).

use crate::error::{Class, Error};
use crate::life::Key;
use crate::post::Post;
use crate::template::Upstream;

/// Where each copy the template needs stands, by target name (`Known::copies`).
#[derive(Debug, Default, Clone)]
pub(crate) struct Copies(pub(super) Vec<(String, Upstream)>);

impl Copies {
    /// Each copy, by target name.
    pub(crate) fn all(&self) -> &[(String, Upstream)] {
        &self.0
    }

    /// Each copy, by target name, owned.
    pub(crate) fn into_all(self) -> Vec<(String, Upstream)> {
        self.0
    }

    /// The post with the copies its template uses that are there (an update renders with
    /// what it has; a missing one fails its render).
    pub(crate) fn put_in(self, mut post: Post) -> Post {
        for (name, upstream) in self.0 {
            if let Upstream::There(copy) = upstream {
                post.copies.insert(name, copy);
            }
        }
        post
    }

    /// `--dry-run`: the post with the copies there, and a stand-in for each still coming (a
    /// copy that will never come stays missing, so its render fails as the run's would).
    pub(crate) fn with_stand_ins(self, mut post: Post) -> Post {
        for (name, upstream) in self.0 {
            match upstream {
                Upstream::There(copy) => drop(post.copies.insert(name, copy)),
                Upstream::Coming(_) => crate::targets::preview::stand_in(&mut post, &name),
                Upstream::Never(_) => {}
            }
        }
        post
    }

    /// Why `key` is not sent to `target` now, when a copy its text links to is missing: it
    /// waits (a retry-safe failure that says what for: the next run sends it once the copy is
    /// there) or, when a copy cannot come without a human, fails (local) saying why. `None`:
    /// every copy is there.
    pub(crate) fn missing(&self, key: Key, target: &str) -> Option<Error> {
        let (mut coming, mut never) = (Vec::new(), Vec::new());
        for (name, upstream) in &self.0 {
            match upstream {
                Upstream::There(_) => {}
                Upstream::Coming(why) => coming.push(format!("{name}'s copy ({why})")),
                Upstream::Never(why) => never.push((name, why)),
            }
        }
        if coming.is_empty() && never.is_empty() {
            return None;
        }
        Some(match never.is_empty() {
            true => Error::failure(
                Class::RetrySafe,
                format!(
                    "waits for {}: the text links to it; the next run sends it once it is there",
                    coming.join(" and ")
                ),
            ),
            false => {
                let why: Vec<&str> = never.iter().map(|(_, why)| why.as_str()).collect();
                let first = never[0].0;
                Error::failure(
                    Class::Local,
                    format!(
                        "not sent: the text links to a copy that will not come by itself: {}",
                        why.join("; ")
                    ),
                )
                .hint(format!(
                    "once {first} has it, the next run sends this one (`dayrun retry {key}` sends both, in order); `dayrun mark {key} failed --target {target}` puts this one aside"
                ))
            }
        })
    }
}
