//! A "not" that sets one thing against another ("warnings not errors", "4 spaces, not tabs")
//! reports no problem; and a standing instruction's opener ("from now on", "going forward")
//! leads its request like a filler.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_holding};

#[test]
fn not_before_the_thing_it_rules_out_is_no_problem() {
    reads_holding(
        "prettier config: double quotes not single, tabs not spaces",
        GoalType::ArtifactCreation,
        &[("component_type", "prettier config")],
    );
    for text in [
        "keep the tone of the newsletter friendly, not formal",
        "switch the chart to bars not lines",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert!(!s.slot("desired_change").starts_with("fix: "), "{text}");
    }
    // A "not" before a state or after an auxiliary still reports.
    for text in [
        "the sidebar links not clickable on ipad",
        "the webhook is not retried after a timeout",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(s.slot("desired_change").starts_with("fix: "), "{text}");
    }
}

#[test]
fn a_standing_instructions_opener_leads_its_request() {
    reads_holding(
        "from now on use british spelling in every draft",
        GoalType::TaskExecution,
        &[("desired_change", "british spelling")],
    );
    reads_holding(
        "going forward, add a changelog line to every PR description",
        GoalType::TaskExecution,
        &[("desired_change", "changelog line")],
    );
    reads_goal("from now on", None);
}

#[test]
fn whether_a_good_one_exists_asks_and_a_duplicate_mark_states_nothing() {
    reads_goal(
        "any good crate for parsing ical files? the one i tried panics on recurring events",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal(
        "is there a good alternative to cron on windows",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal("Duplicate of #87", None);
    reads_goal("dupe of the dark mode one, closing", None);
    // "duplicate" as a verb still asks.
    reads_goal(
        "duplicate the invoice template for the german office",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn a_rejection_then_the_meant_value_in_the_next_sentence_corrects() {
    let mut s = Session::new();
    s.user("restart the worker pods on the prod cluster");
    s.user("oh no not prod!! I meant staging");
    assert!(has(&s.slot("target"), "staging"), "{}", s.slot("target"));
    assert!(!s.slot("target").contains("prod"), "{}", s.slot("target"));
}
