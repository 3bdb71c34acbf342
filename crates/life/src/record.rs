//! One key's line in a state file: `KEY STATUS TIMESTAMP [name=value ...]`, parsed and printed.

use crate::Key;
use crate::day::parse_key;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Written before the side effect: if found later, the outcome is unknown.
    Pending,
    Done,
    Failed,
    /// Published, then taken back by `dayrun retract`: never published again by a run.
    Retracted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Done => "done",
            Status::Failed => "failed",
            Status::Retracted => "retracted",
        }
    }
}

/// One key's line. The line is kept as text (trimmed, as read or as built) and its fields are
/// read on demand: a run over 100k done keys looks at nothing but their status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub key: Key,
    pub status: Status,
    /// Boxed: no spare capacity, and 8 bytes less per key than a `String` (100k keys are held).
    line: Box<str>,
}

impl Record {
    pub fn new(key: Key, status: Status, at: String) -> Record {
        Record {
            key,
            status,
            line: format!("{key} {} {at}", status.as_str()).into(),
        }
    }

    /// Add or replace a field (empty values are left out). Lines are built by `KeyLine`; this is
    /// for tests that write lines as a hand or an older dayrun would.
    #[cfg(test)]
    pub fn with(self, name: &str, value: impl Into<String>) -> Record {
        let value = value.into();
        if value.is_empty() {
            return self;
        }
        let mut line = self.without(name).line.into_string();
        let _ = write!(line, " {name}=");
        quote(&mut line, &value);
        Record {
            line: line.into(),
            ..self
        }
    }

    /// Add a field at the end, for a line built field by field (`KeyLine::record`), where no
    /// name comes twice. Empty values are left out.
    pub fn push(self, name: &str, value: &str) -> Record {
        if value.is_empty() {
            return self;
        }
        let mut line = self.line.into_string();
        let _ = write!(line, " {name}=");
        quote(&mut line, value);
        Record {
            line: line.into(),
            ..self
        }
    }

    /// The line without the field `name`.
    #[cfg(test)]
    fn without(&self, name: &str) -> Record {
        let mut line = format!("{} {} {}", self.key, self.status.as_str(), self.at());
        for (n, v) in self.fields().filter(|(n, _)| *n != name) {
            let _ = write!(line, " {n}=");
            quote(&mut line, &v);
        }
        Record {
            line: line.into(),
            ..self.clone()
        }
    }

    /// RFC 3339 with offset, as written.
    pub fn at(&self) -> &str {
        // As dayrun writes a line (`KEY STATUS AT…`, single spaces), the stamp is found at
        // once; a hand-spaced line is split word by word.
        let status = self.status.as_str().as_bytes();
        let start = 10 + 1 + status.len() + 1;
        let b = self.line.as_bytes();
        if b.get(10) == Some(&b' ')
            && b.get(11..start - 1) == Some(status)
            && b.get(start - 1) == Some(&b' ')
        {
            let rest = &self.line[start..];
            let end = rest.bytes().position(|b| b.is_ascii_whitespace());
            if end != Some(0) {
                return &rest[..end.unwrap_or(rest.len())];
            }
        }
        self.line.split_ascii_whitespace().nth(2).unwrap_or("")
    }

    /// `name=value` pairs in order: `id`, `fp`, `class`, `reason`, ….
    pub fn fields(&self) -> impl Iterator<Item = (&str, Cow<'_, str>)> {
        let mut words = Words { rest: &self.line };
        for _ in 0..3 {
            words.next_bare();
        }
        std::iter::from_fn(move || words.next_field().ok().flatten())
    }

    #[cfg(test)]
    pub fn get(&self, name: &str) -> Option<Cow<'_, str>> {
        self.fields().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Whether the line has a field `name`, read without unquoting any value (a line is
    /// checked whole when it is parsed, so every quoted value here is well formed). For the
    /// fast path over 100k done lines: a value that holds ` id=` is not the field `id`.
    pub fn has(&self, name: &str) -> bool {
        // Most lines lack most fields: a line without the name anywhere cannot have the field,
        // and that search is cheaper than reading the line word by word.
        if !self.line.contains(name) {
            return false;
        }
        let mut rest = self.line.as_bytes();
        let mut bare = 0;
        loop {
            rest = rest.trim_ascii_start();
            if rest.is_empty() {
                return false;
            }
            let word_end = rest
                .iter()
                .position(|b| *b == b'=' || b.is_ascii_whitespace());
            let end = word_end.unwrap_or(rest.len());
            if bare < 3 || rest.get(end) != Some(&b'=') {
                bare += 1;
                rest = &rest[end..];
                continue;
            }
            if &rest[..end] == name.as_bytes() {
                return true;
            }
            rest = skip_value(&rest[end + 1..]);
        }
    }

    /// The line as written to the state file (no newline).
    pub fn to_line(&self) -> &str {
        &self.line
    }

    /// Parse one line. `Ok(None)` for blank and `#` comment lines; CRLF and trailing blanks ok.
    /// Every field of every line is checked (a malformed line stops any command that writes),
    /// in one pass over its bytes that allocates nothing but the kept line.
    pub fn parse(line: &str) -> Result<Option<Record>, String> {
        Record::parse_in(line, &mut crate::key::Slugs::default())
    }

    /// `parse`, a slugged key's slug kept in `slugs` (`Key::parse_in`).
    pub fn parse_in(line: &str, slugs: &mut crate::key::Slugs) -> Result<Option<Record>, String> {
        let body = trim(line);
        if body.is_empty() || body.starts_with('#') {
            return Ok(None);
        }
        if let Some((key, status, rest)) = plain_head(body) {
            check_fields(Words { rest })?;
            return Ok(Some(Record {
                key,
                status,
                line: body.into(),
            }));
        }
        let mut words = Words { rest: body };
        let key_word = words.next_bare().ok_or("missing key")?;
        let key = crate::Key::parse_in(key_word, slugs)
            .ok_or_else(|| format!("`{key_word}` is not a key (YYYY-MM-DD, a real date)"))?;
        let status = match words.next_bare() {
            Some("pending") => Status::Pending,
            Some("done") => Status::Done,
            Some("failed") => Status::Failed,
            Some("retracted") => Status::Retracted,
            Some(other) => {
                return Err(format!(
                    "unknown status `{other}` (pending, done, failed or retracted)"
                ));
            }
            None => return Err("missing status after the key".into()),
        };
        let at = words
            .next_bare()
            .ok_or("missing timestamp after the status")?;
        if !plain_stamp(at) && at.parse::<jiff::Timestamp>().is_err() {
            return Err(format!("`{at}` is not an RFC 3339 timestamp with offset"));
        }
        check_fields(words)?;
        Ok(Some(Record {
            key,
            status,
            line: body.into(),
        }))
    }
}

/// Key, status and stamp when the line starts as dayrun writes it (`KEY STATUS STAMP`, single
/// spaces, a stamp `plain_stamp` accepts), with the rest of the line; `None` for anything
/// else, which the word-by-word path reads (and accepts or refuses) instead.
fn plain_head(body: &str) -> Option<(Key, Status, &str)> {
    let b = body.as_bytes();
    if b.get(10) != Some(&b' ') {
        return None;
    }
    let key = crate::Key::parse(body.get(..10)?)?;
    let (status, start) = match b.get(11..15)? {
        b"done" => (Status::Done, 16),
        b"pend" if b.get(15..19)? == b"ing " => (Status::Pending, 19),
        b"fail" if b.get(15..18)? == b"ed " => (Status::Failed, 18),
        b"retr" if b.get(15..21)? == b"acted " => (Status::Retracted, 21),
        _ => return None,
    };
    if b.get(start - 1) != Some(&b' ') {
        return None;
    }
    // The stamp ends at a blank or the end of the line: 25 bytes with an offset, 20 with `Z`.
    let len = [25, 20].into_iter().find(|len| {
        b.len() >= start + len && b.get(start + len).is_none_or(u8::is_ascii_whitespace)
    })?;
    let at = body.get(start..start + len)?;
    plain_stamp(at).then(|| (key, status, &body[start + len..]))
}

/// `line.trim()`, without the Unicode scan when both ends are plain ASCII (the usual line).
fn trim(line: &str) -> &str {
    // For an ASCII byte, `char::is_whitespace` is `trim`'s rule (it includes \x0B, which
    // `u8::is_ascii_whitespace` does not).
    let blank = |c: &u8| c.is_ascii() && char::from(*c).is_whitespace();
    let b = line.as_bytes();
    let end = b.len() - b.iter().rev().take_while(|c| blank(c)).count();
    match (b.first(), end.checked_sub(1).map(|i| b[i])) {
        (Some(first), Some(last)) if first.is_ascii() && !blank(first) && last.is_ascii() => {
            &line[..end]
        }
        _ => line.trim(),
    }
}

/// Check the `name=value` fields after the stamp: each well formed, no name twice, a known
/// `class`. A bare field (the usual kind) is checked here byte by byte with nothing allocated;
/// anything else (a quoted value, a malformed field) goes through `Words::next_field`, which
/// decides, so the two accept the same lines with the same messages.
fn check_fields(mut words: Words<'_>) -> Result<(), String> {
    // Names seen so far: on the stack for the usual handful, hashed beyond (linear time
    // whatever a hand-edited line holds).
    let mut seen: [&str; 8] = [""; 8];
    let mut more: Option<HashSet<&str>> = None;
    let mut count = 0;
    loop {
        let (name, value) = match bare_field(words.rest) {
            Some(Bare::End) => return Ok(()),
            Some(Bare::Field(name, value, rest)) => {
                words.rest = rest;
                (name, Cow::Borrowed(value))
            }
            None => match words.next_field()? {
                Some(field) => field,
                None => return Ok(()),
            },
        };
        if seen[..count.min(8)].contains(&name) || more.as_ref().is_some_and(|m| m.contains(name)) {
            return Err(format!("field `{name}` appears twice"));
        }
        super::check_field(name, &value)?;
        match seen.get_mut(count) {
            Some(slot) => *slot = name,
            None => {
                more.get_or_insert_default().insert(name);
            }
        }
        count += 1;
    }
}

enum Bare<'a> {
    End,
    /// Name, value, and the text after the value.
    Field(&'a str, &'a str, &'a str),
}

/// The next field when it is bare and well formed (`name=value`, the name `[a-z0-9_-]+`, the
/// value up to a blank with no `"`), exactly as `Words::next_field` reads it; `None` for
/// anything else, left to `next_field`.
fn bare_field(text: &str) -> Option<Bare<'_>> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == b.len() {
        return Some(Bare::End);
    }
    let start = i;
    while i < b.len() && NAME_BYTE[usize::from(b[i])] {
        i += 1;
    }
    if i == start || b.get(i) != Some(&b'=') {
        return None;
    }
    let eq = i;
    let end = value_end(b, eq + 1);
    if b.get(end) == Some(&b'"') {
        return None;
    }
    // Every index is at an ASCII byte or the end: all are char boundaries.
    Some(Bare::Field(
        &text[start..eq],
        &text[eq + 1..end],
        &text[end..],
    ))
}

/// The bytes of a field name: `[a-z0-9_-]`.
const NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-';
        c += 1;
    }
    table
};

/// Where a bare value starting at `i` ends: the first ASCII whitespace or `"` (or the end).
/// Eight bytes at a time while none of them is below `#` (0x23): whitespace, `"` and control
/// bytes all are, and a value is mostly letters and digits (a 64-digit fingerprint).
fn value_end(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    loop {
        if let Some(chunk) = b.get(i..i + 8) {
            let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            // The classic "has a byte less than n" test (exact as a yes/no, n <= 128).
            if x.wrapping_sub(ONES * 0x23) & !x & (ONES * 0x80) == 0 {
                i += 8;
                continue;
            }
        }
        match b.get(i) {
            None => return b.len(),
            Some(c) if c.is_ascii_whitespace() || *c == b'"' => return i,
            Some(_) => i += 1,
        }
    }
}

/// Whether `at` is a stamp as dayrun writes it (`2026-11-29T07:00:03+01:00` or `…Z`), checked
/// without the full RFC 3339 parser (a no-op run checks one per key). Only strings jiff accepts
/// pass; anything else (fractions, other forms, bad values) goes to jiff, which decides.
fn plain_stamp(at: &str) -> bool {
    let b = at.as_bytes();
    // Only two-digit fields are read here (the date goes to `parse_key`).
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let num = |r: std::ops::Range<usize>| {
        u32::from(b[r.start] - b'0') * 10 + u32::from(b[r.start + 1] - b'0')
    };
    let offset = match b.len() {
        20 => b[19] == b'Z',
        25 => {
            (b[19] == b'+' || b[19] == b'-')
                && digits(20..22)
                && b[22] == b':'
                && digits(23..25)
                && num(20..22) <= 23
                && num(23..25) <= 59
        }
        _ => false,
    };
    offset
        && at.get(..10).and_then(parse_key).is_some()
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && num(11..13) <= 23
        && num(14..16) <= 59
        && num(17..19) <= 59
}

fn quote(out: &mut String, value: &str) {
    let bare = !value.is_empty()
        && value
            .chars()
            .all(|c| !c.is_whitespace() && !c.is_control() && c != '"' && c != '\\');
    if bare {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

struct Words<'a> {
    rest: &'a str,
}

impl<'a> Words<'a> {
    fn next_bare(&mut self) -> Option<&'a str> {
        let rest = self.rest.trim_ascii_start();
        if rest.is_empty() {
            return None;
        }
        let end = ascii_space(rest);
        self.rest = &rest[end..];
        Some(&rest[..end])
    }

    fn next_field(&mut self) -> Result<Option<(&'a str, Cow<'a, str>)>, String> {
        let rest = self.rest.trim_ascii_start();
        if rest.is_empty() {
            return Ok(None);
        }
        // One pass over bytes: the name ends at `=`; a blank before it means no `=` in the word.
        let eq = rest
            .bytes()
            .position(|b| b == b'=' || b.is_ascii_whitespace())
            .filter(|i| rest.as_bytes()[*i] == b'=')
            .ok_or_else(|| format!("expected name=value, found `{}`", first_word(rest)))?;
        let name = &rest[..eq];
        if name.is_empty()
            || !name.bytes().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-' || c == b'.'
            })
        {
            return Err(format!("bad field name `{name}`"));
        }
        let after = &rest[eq + 1..];
        let (value, rest) = if let Some(quoted) = after.strip_prefix('"') {
            let (value, rest) = unquote(quoted)
                .ok_or_else(|| format!("field `{name}`: unterminated or bad quoted value"))?;
            (Cow::Owned(value), rest)
        } else {
            let end = after
                .bytes()
                .position(|b| b == b'"' || b.is_ascii_whitespace())
                .unwrap_or(after.len());
            if after.as_bytes().get(end) == Some(&b'"') {
                return Err(format!("field `{name}`: stray `\"`"));
            }
            (Cow::Borrowed(&after[..end]), &after[end..])
        };
        if !rest.is_empty() && ascii_space(rest) != 0 {
            return Err(format!(
                "field `{name}`: text right after the closing quote"
            ));
        }
        self.rest = rest;
        Ok(Some((name, value)))
    }
}

/// Byte offset of the first ASCII whitespace in `s`, or its length.
fn ascii_space(s: &str) -> usize {
    s.bytes()
        .position(|b| b.is_ascii_whitespace())
        .unwrap_or(s.len())
}

fn first_word(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or(s)
}

/// What follows a field's value (`value` starts right after its `=`).
fn skip_value(value: &[u8]) -> &[u8] {
    let Some(quoted) = value.strip_prefix(b"\"") else {
        let end = value.iter().position(u8::is_ascii_whitespace);
        return &value[end.unwrap_or(value.len())..];
    };
    let mut i = 0;
    while i < quoted.len() {
        match quoted[i] {
            b'\\' => i += 2,
            b'"' => return &quoted[i + 1..],
            _ => i += 1,
        }
    }
    &[]
}

/// Read a quoted value (after its opening quote); returns the value and what follows.
fn unquote(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[i + 1..])),
            '\\' => match chars.next()?.1 {
                '"' => out.push('"'),
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'u' => {
                    if chars.next()?.1 != '{' {
                        return None;
                    }
                    let mut hex = String::new();
                    loop {
                        match chars.next()?.1 {
                            '}' => break,
                            h if h.is_ascii_hexdigit() && hex.len() < 6 => hex.push(h),
                            _ => return None,
                        }
                    }
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                _ => return None,
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests;
