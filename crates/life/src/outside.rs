//! Text that came from outside (a server's id or reason, a script's output, a file's title) made
//! safe for one line of a terminal, a trace or a log: control characters are escaped, so no
//! server can start a line of its own or move the cursor, and long text is cut.

/// `text` with every control character (newline, CR, ESC, …) written as its escape (`\n`,
/// `\u{1b}`), cut to `max` characters (`…` marks a cut).
pub fn escape(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max));
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        match c.is_control() || is_bidi(c) {
            true => out.extend(c.escape_default()),
            false => out.push(c),
        }
    }
    out
}

/// JSON text with the characters a JSON encoder leaves raw but a terminal acts on (DEL, C1
/// controls, bidi controls) written as `\uXXXX`: the same JSON value, safe to print.
pub fn json_safe(json: String) -> String {
    if !json
        .chars()
        .any(|c| c == '\u{7f}' || c.is_control() || is_bidi(c))
    {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c == '\u{7f}' || c.is_control() || is_bidi(c) {
            true => out.push_str(&format!("\\u{:04x}", c as u32)),
            false => out.push(c),
        }
    }
    out
}

/// A URL from outside as a copy's URL: an absolute `http://` or `https://` URL (any case), or
/// a path on the site itself (`/posts/x`), without control characters or spaces. Anything
/// else (`javascript:`, `data:`, `file:`, a protocol-relative `//host` or `/\\host`) is no link a site
/// should carry: `None`.
pub fn web_url(url: Option<&str>) -> Option<String> {
    let url = url?;
    let scheme = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let web = (scheme.starts_with("https://") && url.len() > 8)
        || (scheme.starts_with("http://") && url.len() > 7)
        || (url.starts_with('/') && !url.starts_with("//") && !url.starts_with("/\\"));
    let clean = !url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || is_bidi(c));
    (web && clean).then(|| url.to_string())
}

/// Characters that reorder what a terminal shows (a "Trojan Source" line).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_cannot_forge_a_line() {
        let id = "77\n2026-11-30 blog published id=999 \u{1b}[2K\r";
        let shown = escape(id, 200);
        assert!(!shown.contains('\n') && !shown.contains('\u{1b}') && !shown.contains('\r'));
        assert_eq!(shown, "77\\n2026-11-30 blog published id=999 \\u{1b}[2K\\r");
        assert_eq!(escape("日記 ok", 200), "日記 ok");
        assert_eq!(escape("abcdef", 3), "abc…");
        assert_eq!(escape("a\u{202e}b", 9), "a\\u{202e}b");
    }

    #[test]
    fn only_web_urls_are_links() {
        for ok in [
            "https://example.com/p/1",
            "HTTP://example.com",
            "/posts/1.json",
        ] {
            assert_eq!(web_url(Some(ok)).as_deref(), Some(ok));
        }
        for bad in [
            "javascript:alert(1)",
            " https://example.com",
            "data:text/html,x",
            "//example.com/p",
            "p/1",
            "/\\evil.example",
            "https://",
            "https://example.com/\nforged",
            "https://exa mple.com",
        ] {
            assert_eq!(web_url(Some(&bad.replace("\\n", "\n"))), None, "{bad}");
        }
    }
}
