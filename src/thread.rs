//! Long posts as threads (`long = "thread"` on Bluesky and Mastodon): the text to send (title,
//! link, the body as plain text, hashtags) split into parts that each fit, every part a side
//! effect of its own, recorded on the key's line as it lands (`life::Part`).

pub mod plain;
pub mod split;
