//! Where a command's lines go. Normally the terminal: stdout for what happened, stderr for
//! errors and warnings. With `run --log FILE` every line is appended to FILE instead, and the
//! terminal gets the run's lines only when the run needs a person (exit 1, 2 or 3): cron mails
//! whatever a job prints, so it mails exactly then, and a quiet morning mails nothing.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// The most of a run's lines held to be shown at its end (the file has them all).
const HELD: usize = 256 * 1024;

struct Logged {
    file: File,
    /// The run's lines so far, as the terminal would have shown them.
    held: String,
    /// Lines not held (past `HELD`).
    more: usize,
    path: String,
}

static LOG: Mutex<Option<Logged>> = Mutex::new(None);

/// From now on, lines go to `path` (appended; created if missing).
pub fn to_file(path: &Path, shown: &Path) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    *LOG.lock().unwrap_or_else(|e| e.into_inner()) = Some(Logged {
        file,
        held: String::new(),
        more: 0,
        path: shown.display().to_string(),
    });
    Ok(())
}

/// Whether lines go to a log file (then no progress bar is drawn).
pub fn logging() -> bool {
    LOG.lock().unwrap_or_else(|e| e.into_inner()).is_some()
}

/// The most of a run's lines kept for its ping (`keep`).
const KEPT: usize = 64 * 1024;

/// The run's lines kept since `keep`, and how many did not fit.
static KEEP: Mutex<Option<(String, usize)>> = Mutex::new(None);

/// From now on, keep every line said (stdout and stderr, in order, up to `KEPT` bytes) for
/// `kept`: a ping sends them as the run's log.
pub fn keep() {
    *KEEP.lock().unwrap_or_else(|e| e.into_inner()) = Some((String::new(), 0));
}

/// The lines kept since `keep`, and how many more there were.
pub fn kept() -> (String, usize) {
    KEEP.lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

fn kept_too(line: &str) {
    let mut keep = KEEP.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((held, more)) = keep.as_mut() {
        if held.len() + line.len() < KEPT {
            held.push_str(line);
            held.push('\n');
        } else {
            *more += 1;
        }
    }
}

/// A line of what happened (stdout).
pub fn out(line: &str) {
    kept_too(line);
    if !logged(line) {
        // A reader that went away (`dayrun status | head`) stops nothing: the state and the
        // trace are the record, and an action in flight ends and is recorded.
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
}

/// An error or warning (stderr).
pub fn err(line: &str) {
    kept_too(line);
    if !logged(line) {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

fn logged(line: &str) -> bool {
    let mut log = LOG.lock().unwrap_or_else(|e| e.into_inner());
    let Some(log) = log.as_mut() else {
        return false;
    };
    // A log that cannot be written is said on stderr, once, and the line goes there too.
    if let Err(e) = writeln!(log.file, "{line}") {
        eprintln!("dayrun: cannot write the log {}: {e}", log.path);
        eprintln!("{line}");
    }
    if log.held.len() + line.len() < HELD {
        log.held.push_str(line);
        log.held.push('\n');
    } else {
        log.more += 1;
    }
    true
}

/// The command ended with `code`: with a log, the run's lines are shown when a person is
/// needed (1, 2 or 3), and nothing otherwise.
pub fn finish(code: i32) {
    let mut log = LOG.lock().unwrap_or_else(|e| e.into_inner());
    let Some(log) = log.take() else {
        return;
    };
    if matches!(code, 1..=3) {
        print!("{}", log.held);
        if log.more > 0 {
            println!("… {} more line(s) in {}", log.more, log.path);
        }
        println!("(exit {code}; the whole log is {})", log.path);
    }
}

/// A writer to a reader that may go away (`dayrun status | head`): once the pipe is closed,
/// every write is dropped as if made, so the command still computes what it says and ends
/// with its exit code; any other error is the caller's.
pub struct Closable<W: Write> {
    inner: W,
    closed: bool,
}

impl<W: Write> Closable<W> {
    pub fn new(inner: W) -> Closable<W> {
        Closable {
            inner,
            closed: false,
        }
    }

    /// `result`, with a closed pipe remembered and taken for success.
    fn unless_closed<T>(&mut self, result: std::io::Result<T>, done: T) -> std::io::Result<T> {
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(done)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for Closable<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let written = self.inner.write(buf);
        self.unless_closed(written, buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let flushed = self.inner.flush();
        self.unless_closed(flushed, ())
    }
}
