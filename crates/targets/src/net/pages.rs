//! Walking a listing page by page within a cap: the one loop every platform's listing uses.
//! What a page holds, and where the next one starts (a page number, a cursor, an id), is the
//! platform's; how the walk ends is said the same way for all.

use crate::error::Error;

/// What one page said about the walk.
pub enum Flow<C> {
    /// Read the page at this cursor next.
    Next(C),
    /// This was the last page: the listing was read to its end.
    End,
    /// The caller has what it needs; no more pages.
    Stop,
    /// The page cannot be trusted to say what the listing holds (not a list, too many items).
    Cannot(String),
}

/// How a walk ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Walked {
    /// Every page was read, to the end of the listing.
    End,
    /// The caller stopped it.
    Stopped,
    /// A page could not be trusted, or the cap came first: the walk proves nothing about
    /// what it did not reach. The text says why.
    Cannot(String),
}

/// Read pages from `first` until one ends the walk, at most `max_pages` of them. `what` names
/// the listing for the message when the cap comes first ("articles", "statuses"). A failed
/// request ends the walk with its error.
pub fn walk<C>(
    first: C,
    max_pages: u32,
    what: &str,
    mut page: impl FnMut(C) -> Result<Flow<C>, Error>,
) -> Result<Walked, Error> {
    let mut cursor = first;
    for _ in 0..max_pages {
        match page(cursor)? {
            Flow::Next(next) => cursor = next,
            Flow::End => return Ok(Walked::End),
            Flow::Stop => return Ok(Walked::Stopped),
            Flow::Cannot(why) => return Ok(Walked::Cannot(why)),
        }
    }
    Ok(Walked::Cannot(format!(
        "more {what} than {max_pages} pages hold"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_ends_with_the_listing_the_caller_or_the_cap() {
        let pages = |last: u32| {
            move |n: u32| {
                Ok(if n == last {
                    Flow::End
                } else {
                    Flow::Next(n + 1)
                })
            }
        };
        assert_eq!(walk(1, 5, "items", pages(3)).unwrap(), Walked::End);
        assert_eq!(
            walk(1, 5, "items", pages(9)).unwrap(),
            Walked::Cannot("more items than 5 pages hold".into())
        );
        let stop = |n: u32| {
            Ok(if n == 2 {
                Flow::Stop
            } else {
                Flow::Next(n + 1)
            })
        };
        assert_eq!(walk(1, 5, "items", stop).unwrap(), Walked::Stopped);
    }
}
