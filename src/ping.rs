//! The ping (`ping_url_file`), in the healthchecks convention: `URL/start` when a run begins,
//! `URL/0` when it ends with 0 or 75 (75: the next run goes on by itself, so the run's lines
//! go as a log, not as a failure), `URL/CODE` for 1, 2 and 3. The body is the run's lines,
//! bounded and redacted. The URL is a secret: read from a file, masked in every text, never
//! said. A ping that fails or hangs (bounded by `ping_timeout_secs`) never changes the run's
//! outcome: the run says so in one line.

use crate::config::Config;
use crate::redact::Redactor;
use crate::targets::net::Http;

/// The most of the run's lines a ping carries, in bytes (healthchecks keeps 100 kB).
const MAX_BODY: usize = 10_000;
/// The most of the URL file read.
const MAX_FILE: u64 = 4096;

/// The monitor a run pings.
pub(crate) struct Ping {
    /// The URL, without a trailing slash.
    url: String,
    http: Http,
}

impl Ping {
    /// The ping the config asks for, its URL read from its file; `None` when none is asked
    /// for, or when the file cannot be read (said in one line: the run goes on).
    pub(crate) fn open(config: &Config) -> Option<Ping> {
        let file = config.watch.ping_url_file.as_ref()?;
        match read_url(file) {
            Ok(url) => {
                crate::targets::secret::warn_if_shared(file, &config.show(file));
                let mut redactor = Redactor::default();
                redactor.add(&url);
                let timeout = config.watch.ping_timeout;
                // Connecting gets half the time; the rest is for sending and the answer.
                let http = Http::new(timeout / 2, timeout / 2, redactor);
                Some(Ping { url, http })
            }
            Err(why) => {
                let shown = config.show(file).display().to_string();
                crate::say::err(&format!(
                    "dayrun: note: no ping: cannot read the ping URL from {}: {why} (the run goes on)",
                    crate::outside::escape(&shown, 4000)
                ));
                None
            }
        }
    }

    /// The run begins.
    pub(crate) fn start(&self) {
        self.send("start", "", "start");
    }

    /// The run ended with `code`; `lines`: what it said, and how many lines did not fit.
    pub(crate) fn finish(&self, code: i32, lines: &(String, usize)) {
        let path = match code {
            crate::error::code::OK | crate::error::code::TEMPFAIL => "0".to_string(),
            other => other.to_string(),
        };
        self.send(&path, &body(lines), "end");
    }

    /// POST `body` to `URL/path`; a failure is said in one line, and nothing else changes.
    fn send(&self, path: &str, body: &str, what: &str) {
        let url = format!("{}/{path}", self.url);
        let failed = match self.http.post_text(&url, body) {
            Ok(reply) if (200..300).contains(&reply.status) => return,
            Ok(reply) => format!("HTTP {}", reply.status),
            Err(err) => err.reason(),
        };
        crate::say::err(&format!(
            "dayrun: note: the {what} ping to the monitor failed ({}); the run's outcome stands",
            crate::outside::escape(&self.http.redactor().redact(&failed), 400)
        ));
    }
}

/// The URL in `file`: its first line, trimmed, an http(s) URL.
fn read_url(file: &std::path::Path) -> Result<String, String> {
    let bytes = crate::fsutil::read_regular(file, MAX_FILE, true).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    let url = text.lines().next().unwrap_or_default().trim();
    let url = url.trim_end_matches('/');
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err("its first line is not an http(s) URL".into());
    }
    Ok(url.to_string())
}

/// The body of the end ping: the run's lines, redacted, then cut at a line's end within
/// `MAX_BODY` bytes, saying how many lines were left out.
fn body((lines, more): &(String, usize)) -> String {
    let lines = Redactor::default().redact(lines);
    let mut body = String::new();
    let mut left = *more;
    for line in lines.lines() {
        if body.len() + line.len() + 1 > MAX_BODY - 64 {
            left += 1;
            continue;
        }
        body.push_str(line);
        body.push('\n');
    }
    if left > 0 {
        body.push_str(&format!("… {left} more line(s)\n"));
    }
    body
}
