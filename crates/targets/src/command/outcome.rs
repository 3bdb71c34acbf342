//! What a script's run comes to: how it ended, and the receipt it printed.

use crate::error::{Class, Error};
use life::Receipt;
use std::time::Duration;

/// Longest id or url a script may answer with.
pub const MAX_RECEIPT: usize = 2048;

/// How a command ended.
pub struct Finished {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

/// `{"id": …, "url": …}` or a bare id on the last non-empty stdout line. An id or url that is
/// too long or holds control characters is the script breaking its contract: unknown.
pub fn receipt(stdout: &str, fallback: &str) -> Result<Receipt, Error> {
    let last = stdout
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut receipt = Receipt::id(if last.is_empty() { fallback } else { last });
    if let Ok(serde_json::Value::Object(doc)) = serde_json::from_str::<serde_json::Value>(last) {
        let text = |name: &str| match doc.get(name) {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        if let Some(id) = text("id") {
            receipt = Receipt {
                id,
                url: text("url"),
                ..Default::default()
            };
        }
    }
    for (what, value) in [("id", Some(&receipt.id)), ("url", receipt.url.as_ref())] {
        let Some(value) = value else { continue };
        if value.len() > MAX_RECEIPT || value.chars().any(char::is_control) {
            return Err(Error::failure(
                Class::Unknown,
                format!(
                    "protocol error: the script printed an {what} of {} bytes{} (at most {MAX_RECEIPT}, one line)",
                    value.len(),
                    match value.chars().any(char::is_control) {
                        true => " with control characters",
                        false => "",
                    }
                ),
            ));
        }
    }
    // Only a web URL is a copy's URL (no `javascript:`); the id is still the id.
    receipt.url = crate::outside::web_url(receipt.url.as_deref());
    Ok(receipt)
}

pub fn how(finished: &Finished, timeout: Duration) -> String {
    let mut text = if finished.timed_out {
        format!(
            "timed out after {} s (process group killed)",
            timeout.as_secs_f64()
        )
    } else if let Some(code) = finished.code {
        format!("exited {code}")
    } else {
        format!("killed by signal {}", finished.signal.unwrap_or(0))
    };
    let stderr = finished
        .stderr
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if !stderr.is_empty() {
        let tail: String = stderr
            .chars()
            .rev()
            .take(300)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        text.push_str(": ");
        text.push_str(&tail);
    }
    text
}
