//! The exit code as one ordered value: the worst thing a run, a dry run or `status` found wins.

use crate::code;

/// What a key (or a whole run) leaves for the timer, from least to most urgent. Merging two is
/// taking the larger: a usage error beats rejected credentials, which beat a key that needs a
/// human, which beats one that the next run retries by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Exit {
    /// Nothing left to do (or nothing a person must hear about).
    #[default]
    Ok,
    /// Busy, or something the next run retries by itself: 75.
    RetryLater,
    /// A key failed or is unconfirmed, and a human is needed: 1.
    NeedsHuman,
    /// Credentials were rejected: 3.
    Auth,
    /// A usage, config, content-folder or state-file error: 2.
    Usage,
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> i32 {
        match self {
            Exit::Ok => code::OK,
            Exit::RetryLater => code::TEMPFAIL,
            Exit::NeedsHuman => code::NEEDS_HUMAN,
            Exit::Auth => code::AUTH,
            Exit::Usage => code::USAGE,
        }
    }

    /// The finding a process exit code stands for (an error's `code()`); a code dayrun does
    /// not give is taken as needing a human.
    pub fn of(code: i32) -> Exit {
        match code {
            code::OK => Exit::Ok,
            code::TEMPFAIL => Exit::RetryLater,
            code::AUTH => Exit::Auth,
            code::USAGE => Exit::Usage,
            _ => Exit::NeedsHuman,
        }
    }

    /// Fold another finding in: the more urgent wins.
    pub fn merge(&mut self, other: Exit) {
        *self = (*self).max(other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_the_readmes_2_3_1_75_0() {
        let mut order = [
            Exit::RetryLater,
            Exit::Usage,
            Exit::Ok,
            Exit::NeedsHuman,
            Exit::Auth,
        ];
        order.sort();
        order.reverse();
        let codes: Vec<i32> = order.iter().map(|e| e.code()).collect();
        assert_eq!(codes, [2, 3, 1, 75, 0]);
        let mut run = Exit::Ok;
        run.merge(Exit::NeedsHuman);
        run.merge(Exit::RetryLater);
        assert_eq!(run, Exit::NeedsHuman);
        for exit in order {
            assert_eq!(Exit::of(exit.code()), exit);
        }
    }
}
