//! Secrets never leave dayrun: every text from outside (a server's body, a script's output, a
//! library's error) passes through a `Redactor` before it is cut, stored or printed. Each
//! redactor masks its own secrets and every secret loaded in the run (`register`), whichever
//! target it belongs to.

mod view;

use base64::Engine;
use base64::engine::GeneralPurpose;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use std::sync::RwLock;
use view::View;

/// Forms shorter than this are never redacted (they would match ordinary words).
const MIN_FORM: usize = 4;
/// Forms shorter than this are redacted only as whole words, and only as written.
const MIN_ANYWHERE: usize = 8;
const MASK: &str = "***";

/// Every secret loaded in this run (credential files, secret environment variables, session
/// tokens): each redactor masks these too.
static RUN: RwLock<Redactor> = RwLock::new(Redactor::new());

/// The forms of some secrets. A long form (8 bytes or more) is found in every view of a text
/// (`view.rs`): as written, JSON-escaped, percent-encoded in either case, split by whitespace.
/// Base64 forms are the parts of a base64 text that depend only on the secret, at each of the
/// three alignments, so they are found inside the base64 of anything that holds the secret
/// (`Bearer <secret>`, `user:<secret>`, a whole header). Short forms (4 to 7 bytes) are masked
/// only as whole words, as written.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    long: Vec<Vec<u8>>,
    short: Vec<String>,
    /// Starts of tokens made afresh for each request (a JWT's constant header): every token
    /// that begins so is masked whole, though no token is ever added itself.
    starts: Vec<String>,
}

impl Redactor {
    pub const fn new() -> Redactor {
        Redactor {
            long: Vec::new(),
            short: Vec::new(),
            starts: Vec::new(),
        }
    }

    /// Tokens that begin with `start` (at least `MIN_ANYWHERE` bytes), made one per request:
    /// each is masked with the base64url and `.` characters that follow its start.
    pub fn add_token_start(&mut self, start: &str) {
        if start.len() >= MIN_ANYWHERE && !self.starts.iter().any(|s| s == start) {
            self.starts.push(start.to_string());
        }
    }

    /// A secret as it may come back: as sent, without the spaces people paste with it
    /// (WordPress shows application passwords in groups), and in base64 alone or inside more.
    pub fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        let spaceless: String = secret.split_whitespace().collect();
        for text in [secret, spaceless.as_str()] {
            self.form(text.as_bytes());
            // Escaped forms as written, beside the decoded views: a view decodes left to
            // right, so a `%` or `\` at the end of one copy of the secret can swallow the start
            // of the escaped copy that follows it (`…aaa%` then `0%21…` reads `%A0`).
            for escaped in escaped_forms(text) {
                self.form(escaped.as_bytes());
            }
            for engine in [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD] {
                self.form(engine.encode(text).as_bytes());
            }
            if text.len() >= MIN_ANYWHERE {
                for prefix in 0..3 {
                    for engine in [URL_SAFE, STANDARD] {
                        self.form(aligned(&engine, text.as_bytes(), prefix).as_bytes());
                    }
                }
            }
        }
        self.sort();
    }

    /// An HTTP Basic pair: the password, and `user:password` in every form (base64 above all).
    pub fn add_pair(&mut self, user: &str, password: &str) {
        self.add(password);
        self.add(&format!("{user}:{password}"));
        let spaceless: String = password.split_whitespace().collect();
        self.add(&format!("{user}:{spaceless}"));
    }

    /// A header value: the whole, a credential after its scheme (`Bearer x`), and each part of
    /// a list of `name=value` pairs (a Cookie) with its value alone.
    pub fn add_header_value(&mut self, value: &str) {
        self.add(value);
        if let Some((_, credential)) = value.split_once(' ') {
            self.add(credential);
        }
        for part in value.split([';', ',']) {
            self.add(part);
            if let Some((_, v)) = part.split_once('=') {
                self.add(v.trim_matches('"'));
            }
        }
    }

    /// Every other redactor's forms too.
    pub fn extend(&mut self, other: &Redactor) {
        for form in &other.long {
            self.form(form);
        }
        for form in &other.short {
            self.form(form.as_bytes());
        }
        for start in &other.starts {
            self.add_token_start(start);
        }
        self.sort();
    }

    /// Make these secrets the run's: every redactor masks them from now on.
    pub fn register(&self) {
        if let Ok(mut run) = RUN.write() {
            run.extend(self);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.long.is_empty() && self.short.is_empty() && self.starts.is_empty()
    }

    /// The text with every form of this redactor's secrets, and of the run's, as `***`.
    pub fn redact(&self, text: &str) -> String {
        let run = RUN.read().unwrap_or_else(|e| e.into_inner());
        let both = [self, &*run];
        if both.iter().all(|r| r.is_empty()) {
            return text.to_string();
        }
        let mut ranges = Vec::new();
        if both.iter().any(|r| !r.long.is_empty()) {
            for view in View::all(text) {
                for form in both.iter().flat_map(|r| &r.long) {
                    view.find(form, &mut ranges);
                }
            }
        }
        for start in both.iter().flat_map(|r| &r.starts) {
            let mut from = 0;
            while let Some(at) = text[from..].find(start.as_str()).map(|i| from + i) {
                let end = text[at..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
                    .map_or(text.len(), |n| at + n);
                ranges.push((at, end));
                from = end.max(at + 1);
            }
        }
        let mut out = mask(text, ranges);
        for form in both.iter().flat_map(|r| &r.short) {
            if out.contains(form.as_str()) {
                out = replace_words(&out, form);
            }
        }
        out
    }

    /// The first `chars` characters of the redacted text (redacted first, then cut, so that no
    /// secret survives half-cut). Returns the cut text and whether anything was cut.
    pub fn excerpt(&self, text: &str, chars: usize) -> (String, bool) {
        // A secret that starts within the first `chars` ends within the window unless it is
        // spread over more than the slack (each character escaped as `\uXXXX`, a long break).
        let window: String = text.chars().take(chars + 16 * 1024).collect();
        let redacted = self.redact(&window);
        let cut: String = redacted.chars().take(chars).collect();
        let more = cut.len() < redacted.len() || window.len() < text.len();
        (cut, more)
    }

    fn form(&mut self, form: &[u8]) {
        if form.len() >= MIN_ANYWHERE {
            let form: Vec<u8> = form
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            if form.len() >= MIN_ANYWHERE && !self.long.contains(&form) {
                self.long.push(form);
            }
        } else if form.len() >= MIN_FORM
            && let Ok(form) = std::str::from_utf8(form)
            && !self.short.iter().any(|f| f == form)
        {
            self.short.push(form.to_string());
        }
    }

    fn sort(&mut self) {
        self.long
            .sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        self.short
            .sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    }
}

/// `text` with each range (merged where they overlap) as `***`.
fn mask(text: &str, mut ranges: Vec<(usize, usize)>) -> String {
    if ranges.is_empty() {
        return text.to_string();
    }
    ranges.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut iter = ranges.into_iter().peekable();
    while let Some((from, mut to)) = iter.next() {
        while let Some(&(next, end)) = iter.peek() {
            if next > to {
                break;
            }
            to = to.max(end);
            iter.next();
        }
        if from >= at {
            out.push_str(&text[at..from]);
            out.push_str(MASK);
        }
        at = at.max(to);
    }
    out.push_str(&text[at..]);
    out
}

/// `text` percent-encoded as encoders write it (all but letters and digits, or all but RFC
/// 3986's unreserved characters; upper- or lower-case hex; a space as `%20` or `+`) and
/// JSON-escaped (with `/` as `\/` or as is).
fn escaped_forms(text: &str) -> Vec<String> {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    const UNRESERVED: &percent_encoding::AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    let mut forms = Vec::new();
    for set in [NON_ALPHANUMERIC, UNRESERVED] {
        let upper = utf8_percent_encode(text, set).to_string();
        let lower = lower_hex(&upper);
        for form in [upper, lower] {
            forms.push(form.replace("%20", "+"));
            forms.push(form);
        }
    }
    let json = serde_json::to_string(text).unwrap_or_default();
    let json = json.trim_matches('"').to_string();
    forms.push(json.replace('/', "\\/"));
    forms.push(json);
    forms.retain(|f| f != text);
    forms.dedup();
    forms
}

/// A percent-encoded text with the two hex digits after each `%` in lower case.
fn lower_hex(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut hex = 0;
    for c in encoded.chars() {
        match c {
            '%' => hex = 2,
            _ if hex > 0 => {
                hex -= 1;
                out.push(c.to_ascii_lowercase());
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The characters of the base64 of `bytes` (in `engine`'s alphabet), written after `prefix`
/// (0 to 2) other bytes, that depend on `bytes` alone: the same wherever they stand at that
/// alignment in a longer text.
fn aligned(engine: &GeneralPurpose, bytes: &[u8], prefix: usize) -> String {
    let mut padded = vec![0u8; prefix];
    padded.extend_from_slice(bytes);
    let encoded = engine.encode(&padded);
    let first = (8 * prefix).div_ceil(6);
    let last = 8 * (prefix + bytes.len()) / 6;
    encoded[first..last].to_string()
}

/// Replace `form` where it stands as a whole word (not inside a run of letters and digits).
fn replace_words(text: &str, form: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(form) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + form.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..at]);
        if word(before) || word(after) {
            out.push_str(form);
        } else {
            out.push_str(MASK);
        }
        rest = &rest[at + form.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
