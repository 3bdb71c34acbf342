//! dayrun's state: a target's state file and its journal, what its keys keep beside it
//! (`sent`), the run's lock, and `merge-state`.
#![cfg_attr(test, allow(clippy::too_many_lines))]

pub mod gone;
pub mod lock;
pub mod merge;
pub mod owners;
pub mod sent;
pub mod state;

use base::{clock, error, fsutil};
use life::outside;
