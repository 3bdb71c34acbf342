//! Splitting a long text into the parts of a thread, each within the platform's limit: at
//! paragraph breaks, then sentence ends, then spaces, then word boundaries, then graphemes; never
//! inside a URL, a hashtag, a mention, the head (title and link) or a grapheme cluster. Pure: the
//! byte ranges of the text each part holds, then the parts with their numbering (`1/3`).

use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// How a part is measured.
pub struct Limit<'a> {
    /// The most a part may count, numbering included.
    pub max: usize,
    /// The most bytes a part may hold, if the platform says (Bluesky: 3000).
    pub max_bytes: Option<usize>,
    /// How the platform counts (graphemes; Mastodon counts a URL as 23).
    pub count: &'a dyn Fn(&str) -> usize,
}

impl Limit<'_> {
    fn fits(&self, text: &str, reserve: &Reserve) -> bool {
        self.max_bytes
            .is_none_or(|max| text.len() + reserve.bytes <= max)
            && (self.count)(text) + reserve.count <= self.max
    }
}

/// Why a text cannot become a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It needs more parts than the cap allows.
    TooManyParts { cap: usize },
    /// A piece that is never cut (a URL, a hashtag, a mention, the title and link) does not
    /// fit in one part: its first characters.
    Unbreakable(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::TooManyParts { cap } => write!(
                f,
                "the text needs more than {cap} parts (max_parts = {cap})"
            ),
            Refused::Unbreakable(what) => {
                write!(f, "`{what}` is never cut and does not fit in one part")
            }
        }
    }
}

/// What numbering takes from each part's room.
#[derive(Default)]
struct Reserve {
    count: usize,
    bytes: usize,
}

/// The numbering after part `n` of `of` (1-based): a blank line, then `n/of`.
pub fn numbering(n: usize, of: usize) -> String {
    format!("\n\n{n}/{of}")
}

/// The parts of `text`, numbered when `numbered` and there is more than one. `head`: the bytes
/// at the start that must stay together in the first part. At most `cap` parts.
pub fn split(
    text: &str,
    head: usize,
    limit: &Limit,
    numbered: bool,
    cap: usize,
) -> Result<Vec<String>, Refused> {
    let cut = |reserve: &Reserve| ranges(text, head, limit, reserve, cap);
    let whole = cut(&Reserve::default())?;
    if whole.len() <= 1 || !numbered {
        return Ok(whole.into_iter().map(|r| text[r].to_string()).collect());
    }
    // The numbering's width depends on the count: room for `99/99` until the count has 2
    // digits, and so on.
    let mut digits = 1;
    loop {
        let widest = 10usize.pow(digits) - 1;
        let sample = numbering(widest, widest);
        let reserve = Reserve {
            count: (limit.count)(&sample),
            bytes: sample.len(),
        };
        let parts = cut(&reserve)?;
        if parts.len() <= widest {
            let of = parts.len();
            return Ok(parts
                .into_iter()
                .enumerate()
                .map(|(i, r)| format!("{}{}", &text[r], numbering(i + 1, of)))
                .collect());
        }
        digits += 1;
    }
}

/// The most bytes of a part a search looks at where the platform sets no byte limit.
const WINDOW: usize = 16 * 1024;

/// The byte ranges of `text` that the parts hold, in order, each trimmed and non-empty; only
/// whitespace lies between and around them.
fn ranges(
    text: &str,
    head: usize,
    limit: &Limit,
    reserve: &Reserve,
    cap: usize,
) -> Result<Vec<Range<usize>>, Refused> {
    let guarded = guarded(text, head);
    let mut parts = Vec::new();
    let mut at = 0;
    loop {
        let start = at + (text.len() - at - text[at..].trim_start().len());
        if start == text.len() {
            return Ok(parts);
        }
        if parts.len() == cap {
            return Err(Refused::TooManyParts { cap });
        }
        let end = next_end(text, start, limit, reserve, &guarded)?;
        let trimmed = start + text[start..end].trim_end().len();
        parts.push(start..trimmed);
        at = end;
    }
}

/// Where the part that starts at `start` ends (a byte offset of `text`).
fn next_end(
    text: &str,
    start: usize,
    limit: &Limit,
    reserve: &Reserve,
    guarded: &[Range<usize>],
) -> Result<usize, Refused> {
    let window_end = floor_char(
        text,
        (start + limit.max_bytes.unwrap_or(WINDOW).saturating_add(64)).min(text.len()),
    );
    let rest = &text[start..window_end];
    let bounds: Vec<usize> = rest
        .grapheme_indices(true)
        .map(|(i, _)| i)
        .skip(1)
        .chain(std::iter::once(rest.len()))
        .collect();
    let fits = |end: usize| limit.fits(rest[..end].trim_end(), reserve);
    if window_end == text.len() && fits(rest.len()) {
        return Ok(text.len());
    }
    // The longest prefix that fits, on a grapheme boundary (fitting only shrinks as it grows).
    let longest = bounds.partition_point(|&end| fits(end));
    let reach = match longest {
        0 => 0,
        n => bounds[n - 1],
    };
    let open = |c: usize| {
        let at = start + c;
        c > 0
            && c <= reach
            && !rest[..c].trim_end().is_empty()
            && !guarded.iter().any(|g| g.start < at && at < g.end)
    };
    let classes = break_classes(rest, &bounds, &open);
    match choose(&classes, reach) {
        Some(c) => Ok(start + c),
        None => Err(unbreakable(text, start + reach, start, guarded)),
    }
}

/// The places `rest` may break at that `open` allows, by rank: paragraph breaks, sentence
/// ends, spaces, word bounds, grapheme `bounds`.
fn break_classes(rest: &str, bounds: &[usize], open: &dyn Fn(usize) -> bool) -> [Vec<usize>; 5] {
    let paragraphs: Vec<usize> = rest
        .match_indices("\n\n")
        .map(|(i, _)| i)
        .filter(|&i| open(i))
        .collect();
    let sentences: Vec<usize> = rest
        .split_sentence_bound_indices()
        .map(|(i, _)| i)
        .filter(|&i| open(i))
        .collect();
    let spaces: Vec<usize> = rest
        .char_indices()
        .filter(|&(i, c)| i > 0 && !c.is_whitespace() && rest[..i].ends_with(char::is_whitespace))
        .map(|(i, _)| i)
        .filter(|&i| open(i))
        .collect();
    let words: Vec<usize> = rest
        .split_word_bound_indices()
        .map(|(i, _)| i)
        .filter(|&i| open(i))
        .collect();
    let graphemes: Vec<usize> = bounds.iter().copied().filter(|&i| open(i)).collect();
    [paragraphs, sentences, spaces, words, graphemes]
}

/// The break to take, of `classes` (by rank) with `reach` bytes fitting: the last paragraph
/// break; else a break that keeps at least half of what fits, by rank; else the latest of any
/// rank.
fn choose(classes: &[Vec<usize>; 5], reach: usize) -> Option<usize> {
    classes[0]
        .last()
        .copied()
        .or_else(|| {
            classes
                .iter()
                .find_map(|class| class.iter().copied().filter(|&c| c * 2 >= reach).max())
        })
        .or_else(|| classes.iter().find_map(|class| class.iter().copied().max()))
}

/// The refusal when nothing breaks before `at`: the guarded piece (the head, a URL, a tag) `at`
/// is in, else the text from `start`, its first 60 characters.
fn unbreakable(text: &str, at: usize, start: usize, guarded: &[Range<usize>]) -> Refused {
    let piece = guarded
        .iter()
        .find(|g| g.start <= at && at < g.end)
        .map_or(&text[start..], |g| &text[g.clone()]);
    Refused::Unbreakable(piece.chars().take(60).collect())
}

/// The byte ranges never cut: the head, and every whitespace-separated word holding a URL, a
/// hashtag or a mention.
fn guarded(text: &str, head: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    out.push(0..head);
    let mut at = 0;
    for word in text.split_inclusive(char::is_whitespace) {
        let bare = word.trim_end();
        if bare.contains("://") || bare.contains('#') || bare.contains('@') {
            out.push(at..at + bare.len());
        }
        at += word.len();
    }
    out
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests;
