//! Issue 14 (images, /work/notes/contract-issue14.md) against the strict fakes: per target, a
//! post with two images and a cover, lost answers on uploads, a second run, a replaced image,
//! `--dry-run`, and a 0.3 done line. Every test asserts on what the fakes hold and on exact
//! state fields.

pub mod media;
