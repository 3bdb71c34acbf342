//! A yes-or-no question to the person at the terminal, before a command that changes what
//! followers see (`retract`, `drill`): only "y" or "yes" goes on.

use crate::error::Error;
use std::io::{BufRead, Write};

/// Ask `question` (it ends with ` [y/N] `) on stderr and read the answer from stdin.
pub(crate) fn yes(question: &str) -> Result<bool, Error> {
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| Error::usage(format!("cannot read the answer: {e}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}
