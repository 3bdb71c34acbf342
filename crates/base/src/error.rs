//! One error type for dayrun: what failed, where, its failure class and the exit code it maps to.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use life::{Class, code};

/// What kind of error this is; the kind decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Bad command line.
    Usage,
    /// Bad `dayrun.toml`, credential file or content root: nothing was done.
    Config,
    /// State folder or state file unusable: nothing was done.
    State,
    /// Another run holds the lock.
    Busy,
    /// One key failed on one target; the run goes on with the others.
    Failure(Class),
}

/// The server a network failure is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// Its host (and port, when the URL names one), redacted: never the URL's userinfo, path
    /// or query.
    pub host: String,
    /// Nothing answered at all: the name did not resolve, the connection was refused or timed
    /// out, the network is unreachable. Every request there would fail the same way now.
    pub unreachable: bool,
}

/// A dayrun error: a kind, a message and, where known, the file, line, key and target involved.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub path: Option<PathBuf>,
    pub line: Option<usize>,
    /// What the human should do next, one line.
    pub hint: Option<String>,
    /// For rate limits: how long the server asked us to wait.
    pub retry_after: Option<Duration>,
    /// For a network failure: the server it is about (the message names its host too). Boxed:
    /// most errors have none, and every `Result` carries the error's size.
    pub server: Option<Box<Server>>,
}

impl Error {
    /// The same failure in another class (a platform's own reading of a status).
    pub fn reclass(self, class: Class) -> Error {
        Error {
            kind: Kind::Failure(class),
            ..self
        }
    }

    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            path: None,
            line: None,
            hint: None,
            retry_after: None,
            server: None,
        }
    }

    pub fn usage(message: impl Into<String>) -> Error {
        Error::new(Kind::Usage, message)
    }

    pub fn config(message: impl Into<String>) -> Error {
        Error::new(Kind::Config, message)
    }

    pub fn state(message: impl Into<String>) -> Error {
        Error::new(Kind::State, message)
    }

    pub fn failure(class: Class, message: impl Into<String>) -> Error {
        Error::new(Kind::Failure(class), message)
    }

    pub fn at(mut self, path: impl AsRef<Path>) -> Error {
        self.path = Some(path.as_ref().to_path_buf());
        self
    }

    pub fn line(mut self, line: usize) -> Error {
        self.line = Some(line);
        self
    }

    /// Set the line when one is known.
    pub fn at_line(mut self, line: Option<usize>) -> Error {
        self.line = line.or(self.line);
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Error {
        self.hint = Some(hint.into());
        self
    }

    pub fn retry_after(mut self, wait: Option<Duration>) -> Error {
        self.retry_after = wait;
        self
    }

    pub fn server(mut self, server: Server) -> Error {
        self.server = Some(Box::new(server));
        self
    }

    /// The server, when this failure shows that it cannot be reached at all.
    pub fn unreachable(&self) -> Option<&Server> {
        self.server.as_deref().filter(|s| s.unreachable)
    }

    /// The failure class, for per-key failures.
    pub fn class(&self) -> Option<Class> {
        match self.kind {
            Kind::Failure(class) => Some(class),
            _ => None,
        }
    }

    /// The exit code this error leads to when it is the worst thing that happened.
    pub fn code(&self) -> i32 {
        match self.kind {
            Kind::Usage | Kind::Config | Kind::State => code::USAGE,
            Kind::Busy => code::TEMPFAIL,
            Kind::Failure(Class::Auth) => code::AUTH,
            Kind::Failure(Class::RetrySafe) => code::TEMPFAIL,
            Kind::Failure(_) => code::NEEDS_HUMAN,
        }
    }

    /// The message without path and hint, for one-line state and trace records.
    pub fn reason(&self) -> String {
        match self.line {
            Some(line) => format!("line {line}: {}", self.message),
            None => self.message.clone(),
        }
    }

    /// The message with its file and line (`path:line: message`), without the hint.
    pub fn located(&self) -> String {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => format!("{}:{line}: {}", path.display(), self.message),
            (Some(path), None) => format!("{}: {}", path.display(), self.message),
            _ => self.message.clone(),
        }
    }

    /// Wrap an I/O error on `path`.
    pub fn io(kind: Kind, path: &Path, doing: &str, err: &std::io::Error) -> Error {
        Error::new(kind, format!("cannot {doing}: {err}")).at(path)
    }
}

/// Every part of an error may hold text from outside (a file name, a config value, a state
/// line): each is shown with its control characters escaped, so none reaches a terminal raw.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |text: &str| crate::outside::escape(text, usize::MAX);
        match (&self.path, self.line) {
            (Some(path), Some(line)) => {
                write!(f, "{}:{line}: ", shown(&path.display().to_string()))?
            }
            (Some(path), None) => write!(f, "{}: ", shown(&path.display().to_string()))?,
            _ => {}
        }
        f.write_str(&shown(&self.message))?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  {}", shown(hint))?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_readme() {
        let cases = [
            (Error::usage("x"), 2),
            (Error::config("x"), 2),
            (Error::state("x"), 2),
            (Error::new(Kind::Busy, "x"), 75),
            (Error::failure(Class::Auth, "x"), 3),
            (Error::failure(Class::RetrySafe, "x"), 75),
            (Error::failure(Class::Rejected, "x"), 1),
            (Error::failure(Class::Local, "x"), 1),
            (Error::failure(Class::Unknown, "x"), 1),
        ];
        for (err, want) in cases {
            assert_eq!(err.code(), want, "{err:?}");
        }
    }

    #[test]
    fn display_names_file_and_line_then_hint() {
        let err = Error::state("unknown status `donee`")
            .at("state/outbox.state")
            .line(3)
            .hint("fix or delete the line");
        assert_eq!(
            err.to_string(),
            "state/outbox.state:3: unknown status `donee`\n  fix or delete the line"
        );
    }

    #[test]
    fn classes_round_trip_through_their_names() {
        for class in Class::ALL {
            assert_eq!(Class::parse(class.as_str()), Some(class));
        }
        assert_eq!(Class::parse("fatal"), None);
    }
}
