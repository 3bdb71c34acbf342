//! What kind of decision a visit made: one carried out on the target, or one only said.

use super::{Decision, Skip, Why, compares_payload};
use crate::{KeyLine, Record};

fn publish() -> Decision {
    Decision::Publish {
        why: Why::Due,
        look_first: false,
        new_copy: false,
    }
}

#[test]
fn a_decision_that_sends_or_looks_is_carried_out_on_the_target() {
    for decision in [
        publish(),
        Decision::Confirm,
        Decision::FinishUpdate,
        Decision::FinishRetract,
        Decision::Retract,
        Decision::CheckEdit { forced: false },
    ] {
        assert!(decision.reaches_target(), "{decision:?}");
    }
}

#[test]
fn a_decision_that_waits_skips_holds_or_drops_is_only_said() {
    for decision in [
        Decision::Skip(Skip::Done),
        Decision::Wait("a human".into()),
        Decision::EditFailed("refused".into()),
        Decision::Hold,
        Decision::Drop,
        Decision::Broken("bad".into()),
        Decision::NothingToRetract("no copy".into()),
    ] {
        assert!(!decision.reaches_target(), "{decision:?}");
    }
}

#[test]
fn only_a_publish_or_a_confirm_may_send_a_new_copy() {
    assert!(publish().publishes());
    assert!(Decision::Confirm.publishes());
    for decision in [
        Decision::FinishUpdate,
        Decision::Retract,
        Decision::CheckEdit { forced: true },
        Decision::Hold,
    ] {
        assert!(!decision.publishes(), "{decision:?}");
    }
}

#[test]
fn a_visit_compares_the_edit_hash_only_of_a_line_that_holds_a_refused_edit() {
    let line = |text: &str| KeyLine::of(&Record::parse(text).unwrap().unwrap());
    let refused = line("2026-11-20 done 2026-11-20T07:00:00Z id=7 edit_failed=p");
    let done = line("2026-11-20 done 2026-11-20T07:00:00Z id=7 payload=p");
    assert!(compares_payload(Some(&refused)));
    assert!(!compares_payload(Some(&done)));
    assert!(!compares_payload(None));
}
