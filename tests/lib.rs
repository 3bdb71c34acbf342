//! Integration tests: the real `dayrun` binary on real files in temp folders.

mod util;

mod content;
mod core_run;
mod state_file;
