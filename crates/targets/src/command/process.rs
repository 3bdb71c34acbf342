//! Running the user's script: its command and environment, its input and output on threads of
//! their own, the wait with its timeout, and its process group ended with it.

use super::CommandTarget;
use super::outcome::Finished;
use crate::signals;
use jiff::Timestamp;
use life::Key;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most a script's stdout or stderr is read (more is dropped).
const MAX_OUTPUT: u64 = 1 << 20;
/// Variables passed to a script even with `env = [...]`.
const ALWAYS: [&str; 4] = ["PATH", "HOME", "LANG", "TZ"];

impl CommandTarget {
    /// Run `argv` with `input` on stdin, in its own process group. A stop signal dayrun gets
    /// meanwhile is passed on to that group, and the script is still waited for (up to its
    /// timeout), so that what it did is recorded and no child outlives the run.
    pub(super) fn exec(
        &self,
        argv: &[String],
        key: Key,
        input: &serde_json::Value,
        attempt_at: Option<Timestamp>,
        id: Option<&str>,
        idempotency_key: Option<String>,
    ) -> Result<Finished, std::io::Error> {
        let idempotency_key = idempotency_key
            .unwrap_or_else(|| crate::net::idempotency_key(&self.name, &key.to_string()));
        let mut command = self.command(argv, &key.to_string(), attempt_at, id, idempotency_key);
        let mut child = command.spawn()?;
        let input = serde_json::to_vec(input).expect("a JSON value serialises");
        let mut stdin = child.stdin.take().expect("piped");
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input); // a script that does not read its input is fine
        });
        let readers = [
            Box::new(child.stdout.take().expect("piped")) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().expect("piped")),
        ]
        .map(read_pipe);
        let (status, timed_out) = self.wait(&mut child)?;
        let [stdout, stderr] = self.output(&child, readers);
        let write = self.confirm.as_deref() != Some(argv);
        Ok(drilled(
            write,
            Finished {
                code: status.code(),
                signal: status.signal(),
                timed_out,
                stdout,
                stderr,
            },
            &argv[0],
        ))
    }

    /// The command for `argv`: in the project folder, with only the environment the target
    /// lets through (when it names one), the `DAYRUN_*` variables of this attempt, and all
    /// three pipes; in a process group of its own, so that it can be ended with its children.
    fn command(
        &self,
        argv: &[String],
        key: &str,
        attempt_at: Option<Timestamp>,
        id: Option<&str>,
        idempotency_key: String,
    ) -> Command {
        let mut command = Command::new(&argv[0]);
        if let Some(names) = &self.env {
            command.env_clear();
            for (name, value) in std::env::vars_os() {
                let text = name.to_string_lossy();
                if ALWAYS.contains(&text.as_ref())
                    || text.starts_with("LC_")
                    || text.starts_with("DAYRUN_")
                    || names.iter().any(|n| *n == text)
                {
                    command.env(name, value);
                }
            }
        }
        command
            .args(&argv[1..])
            .current_dir(&self.root)
            .env("DAYRUN_KEY", key)
            .env("DAYRUN_TARGET", &self.name)
            .env("DAYRUN_IDEMPOTENCY_KEY", idempotency_key)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(at) = attempt_at {
            command.env("DAYRUN_ATTEMPT_AT", at.to_string());
        }
        if let Some(id) = id {
            command.env("DAYRUN_ID", id);
        }
        command
    }

    /// Wait for the script to exit, killing its group at the timeout, and passing on a signal
    /// dayrun received once; its exit status and whether it timed out.
    fn wait(&self, child: &mut Child) -> Result<(ExitStatus, bool), std::io::Error> {
        let deadline = Instant::now() + self.timeout;
        let mut forwarded = false;
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok((status, false));
            }
            if Instant::now() >= deadline {
                signal_group(child, libc::SIGKILL);
                return Ok((child.wait()?, true));
            }
            if let (Some(signal), false) = (signals::received(), forwarded) {
                signal_group(child, signal);
                forwarded = true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// What the script wrote, redacted. Children the script left behind may hold the pipes
    /// open: give them a moment, then end them, and take what was read.
    fn output(&self, child: &Child, readers: [Reader; 2]) -> [String; 2] {
        let until = Instant::now() + Duration::from_secs(2);
        while readers.iter().any(|(_, r)| !r.is_finished()) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if readers.iter().any(|(_, r)| !r.is_finished()) {
            signal_group(child, libc::SIGKILL);
        }
        readers.map(|(buffer, _)| {
            let bytes = buffer.lock().expect("not poisoned");
            self.redactor.redact(&String::from_utf8_lossy(&bytes))
        })
    }
}

/// What dayrun hears of a script that ran to its end (`write`: not the `confirm` script), when
/// the drill's faults are armed (`net/fault.rs`): killed after it wrote its answer, or its answer dropped (as if it had
/// timed out). Otherwise what it did.
fn drilled(write: bool, finished: Finished, program: &str) -> Finished {
    use crate::net::fault::{Fault, SCRIPT, draw};
    match draw(&SCRIPT, write, || format!("script {program}")) {
        Some(Fault::Killed) => Finished {
            code: None,
            signal: Some(libc::SIGKILL),
            timed_out: false,
            ..finished
        },
        Some(_) => Finished {
            timed_out: true,
            stdout: String::new(),
            ..finished
        },
        None => finished,
    }
}

/// A pipe's reader and the buffer it fills.
type Reader = (Arc<Mutex<Vec<u8>>>, std::thread::JoinHandle<()>);

/// Read `pipe` (at most `MAX_OUTPUT` bytes) on a thread of its own. The reader keeps what it
/// reads in a shared buffer, so that the output is there when the script exits even if a
/// child it left behind still holds the pipe.
fn read_pipe(pipe: Box<dyn Read + Send>) -> Reader {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let shared = buffer.clone();
    let reader = std::thread::spawn(move || {
        let mut pipe = pipe.take(MAX_OUTPUT);
        let mut chunk = [0u8; 8192];
        while let Ok(n @ 1..) = pipe.read(&mut chunk) {
            shared
                .lock()
                .expect("not poisoned")
                .extend_from_slice(&chunk[..n]);
        }
    });
    (buffer, reader)
}

/// Send `signal` to the script's process group: the script and every child it left.
#[allow(unsafe_code)]
fn signal_group(child: &Child, signal: i32) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals the process group we created with
    // process_group(0); it touches no memory of ours.
    unsafe {
        libc::kill(-pgid, signal);
    }
}
