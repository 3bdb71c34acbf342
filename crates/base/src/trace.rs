//! The trace: one line per action in `state/<target>.log` — time, key, action, result, detail.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Appends trace lines for one target. Never given a secret: callers pass receipts and reasons.
#[derive(Debug)]
pub struct Trace {
    path: PathBuf,
    file: Option<File>,
    warned: bool,
}

impl Trace {
    pub fn new(state_dir: &Path, target: &str) -> Trace {
        Trace {
            path: Trace::path(state_dir, target),
            file: None,
            warned: false,
        }
    }

    pub fn path(state_dir: &Path, target: &str) -> PathBuf {
        state_dir.join(format!("{target}.log"))
    }

    /// `2026-11-29T09:00:04+08:00 2026-11-29 publish done id=… duration_ms=12`
    pub fn line(&mut self, stamp: &str, key: &str, action: &str, result: &str, detail: &str) {
        let mut line = format!("{stamp} {key} {action} {result}");
        if !detail.is_empty() {
            line.push(' ');
            line.push_str(&crate::outside::escape(detail, 4000));
        }
        line.push('\n');
        let written = (|| {
            if self.file.is_none() {
                rotate(&self.path)?;
                self.file = Some(crate::fsutil::open_own(&self.path, true)?);
            }
            self.file
                .as_mut()
                .expect("opened above")
                .write_all(line.as_bytes())
        })();
        if let Err(e) = written
            && !self.warned
        {
            crate::say::err(&format!(
                "dayrun: warning: cannot write the trace {}: {e}",
                crate::outside::escape(&self.path.display().to_string(), 4000)
            ));
            self.warned = true;
        }
    }
}

/// A trace over this size is rotated when a run first writes to it.
const ROTATE_BYTES: u64 = 1024 * 1024;
/// Old traces kept: `<target>.log.1` (newest) to `<target>.log.3`.
const KEEP: u32 = 3;

/// Rotate `path` when it has grown past `ROTATE_BYTES`: `.log` → `.log.1` → … → `.log.3`
/// (the oldest is dropped). A link in the way is never followed (the rename moves the link).
fn rotate(path: &Path) -> std::io::Result<()> {
    let big = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() > ROTATE_BYTES);
    if !big {
        return Ok(());
    }
    let old = |n: u32| {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    };
    for n in (1..KEEP).rev() {
        match std::fs::rename(old(n), old(n + 1)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    std::fs::rename(path, old(1))
}
