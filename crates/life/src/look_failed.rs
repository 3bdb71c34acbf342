//! A lookup that failed, classed: refused for good, transient (look again), or one that cannot
//! tell by its nature.

use crate::Class;

/// What a failed lookup means for the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookFailed {
    /// The credential or the setup is refused: no look will answer until a person acts.
    Refused,
    /// The request may simply fail again (a server error, a timeout, a reset, a rate limit):
    /// looked again within the run, then by the next.
    Transient,
    /// The lookup was refused as a request (a 4xx): it cannot tell, by its nature.
    CannotTell,
}

/// A failed lookup of an attempt. `setup`: the failure is the setup's (a bad config or
/// credential file); `class`: the failure's class, if it has one.
pub fn look_failed(setup: bool, class: Option<Class>) -> LookFailed {
    match (setup, class) {
        (true, _) | (_, Some(Class::Auth)) => LookFailed::Refused,
        (_, Some(Class::RetrySafe | Class::Unknown)) => LookFailed::Transient,
        _ => LookFailed::CannotTell,
    }
}

/// A failed read-back of an update (the copy is known by its id): refused for good when the
/// credential or the setup is refused; any other failure is read back again.
pub fn read_back_failed(setup: bool, class: Option<Class>) -> LookFailed {
    match setup || class == Some(Class::Auth) {
        true => LookFailed::Refused,
        false => LookFailed::Transient,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_refused_for_its_credential_or_setup_is_refused_for_good() {
        assert_eq!(look_failed(false, Some(Class::Auth)), LookFailed::Refused);
        assert_eq!(look_failed(true, None), LookFailed::Refused);
    }

    #[test]
    fn a_lookup_that_may_simply_fail_again_is_looked_again() {
        assert_eq!(
            look_failed(false, Some(Class::RetrySafe)),
            LookFailed::Transient
        );
        assert_eq!(
            look_failed(false, Some(Class::Unknown)),
            LookFailed::Transient
        );
    }

    #[test]
    fn a_lookup_refused_as_a_request_cannot_tell() {
        assert_eq!(
            look_failed(false, Some(Class::Rejected)),
            LookFailed::CannotTell
        );
        assert_eq!(
            look_failed(false, Some(Class::Local)),
            LookFailed::CannotTell
        );
        assert_eq!(look_failed(false, None), LookFailed::CannotTell);
    }

    #[test]
    fn a_read_back_is_refused_only_for_its_credential_or_setup_and_else_read_again() {
        assert_eq!(
            read_back_failed(false, Some(Class::Auth)),
            LookFailed::Refused
        );
        assert_eq!(read_back_failed(true, None), LookFailed::Refused);
        for class in [
            Class::RetrySafe,
            Class::Unknown,
            Class::Rejected,
            Class::Local,
        ] {
            assert_eq!(read_back_failed(false, Some(class)), LookFailed::Transient);
        }
    }
}
