//! The README's "Life of a key" tables, rendered from `next` itself.
