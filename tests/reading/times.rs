//! A time is no thing: what follows a preposition and ends in a word of time says when
//! ("after the deadline", "in advance"), and "every" or "each" before a number or a word of
//! time says how often. The request's target is its own thing.

use convstate::conversation::GoalType;

use super::session::{Session, reads_holding};

#[test]
fn a_time_after_a_preposition_is_no_target() {
    for (text, target) in [
        (
            "let students resubmit an assignment before the due date",
            "assignment",
        ),
        (
            "let reviewers reopen a ticket within the first hour",
            "ticket",
        ),
        (
            "option to pause notifications until the end of the week",
            "notifications",
        ),
        ("ability to book rooms in advance", "rooms"),
        ("let guests edit a booking after the deadline", "booking"),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("target", target)]);
    }
}

#[test]
fn every_or_each_before_a_time_says_how_often() {
    for (text, target) in [
        ("option to sync contacts each morning", "contacts"),
        ("ability to rotate api keys every 90 days", "api keys"),
        ("let users back up their notes every night", "notes"),
        ("option to archive old chats every other week", "old chats"),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("target", target)]);
    }
}

/// An event after a time preposition is still a thing, and a date named without one is the
/// target.
#[test]
fn an_event_or_a_date_asked_about_stays_a_thing() {
    let mut s = Session::new();
    s.user("show a warning before the session expires");
    assert_eq!(s.slot("target"), "session");
    let mut s = Session::new();
    s.user("move the deadline of the sprint to friday");
    assert!(
        s.slot("target").contains("deadline"),
        "{}",
        s.slot("target")
    );
}

#[test]
fn a_bound_after_a_preposition_is_no_thing() {
    for (text, change) in [
        (
            "Option to pause a subscription for up to three months",
            "pause a subscription",
        ),
        (
            "option to keep deleted files for at least a week",
            "keep deleted files",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        let target = s.slot("target");
        assert!(
            !["up", "at", "least"].contains(&target.as_str()),
            "{text}: target {target}"
        );
        assert!(
            s.slot("desired_change").contains(change),
            "{text}: {}",
            s.slot("desired_change")
        );
    }
}

/// Round 27: after a lead that adds its object, a time after "on", "at" or "in" says when, no
/// place: the place is the one after it, and the time stays with what is added.
#[test]
fn a_time_after_on_or_at_is_when_no_place() {
    for (text, target, change) in [
        (
            "put the vet on the 9th at 11 in my calendar",
            "calendar",
            "vet on the 9th at 11",
        ),
        (
            "add the school play on friday at 6 to the family calendar",
            "family calendar",
            "school play on friday at 6",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert!(
            s.slot("target").contains(target),
            "{text}: {}",
            s.slot("target")
        );
        assert!(
            s.slot("desired_change").contains(change),
            "{text}: {}",
            s.slot("desired_change")
        );
    }
    // (An ordinal before a noun counts a place: "add a footer on the 2nd page".)
    let mut s = Session::new();
    s.user("add a footnote on the 3rd page");
    assert!(
        s.slot("target").contains("3rd page"),
        "{}",
        s.slot("target")
    );
    // (A bare number after "at" is a value: "put the hall lights at 40".)
    let mut s = Session::new();
    s.user("put the hall lights at 40");
    assert!(
        s.slot("target").contains("hall lights"),
        "{}",
        s.slot("target")
    );
}
