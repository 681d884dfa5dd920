//! Round 19: what a team channel and an office write. Status updates that ask for nothing (a
//! job done, figures that agree, a thing back to normal), a choice asked with a question mark,
//! wishes with an intensifier, and the things an office pins up or hands out.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal, reads_holding};

#[test]
fn a_status_update_asks_for_nothing() {
    for text in [
        "fyi all the nightly tables are loaded, nothing to do",
        "the hotfix is deployed",
        "totals match what the bank statement says",
        "cpu is back to normal",
        "the api is back up after the restart",
        "p95 back under 300ms since the rollback",
        "memory went back down once the cache was cleared",
    ] {
        reads_goal(text, None);
    }
    // Still a report: a thing back where it should not be, or not done.
    for text in [
        "the bug is back",
        "the dark mode toggle is back to the old broken behaviour",
        "the migration is still not finished after six hours",
        "the totals don't match the bank statement",
    ] {
        reads_goal(text, Some(GoalType::TaskExecution));
    }
}

#[test]
fn a_choice_asked_with_a_question_mark_is_a_question() {
    for text in [
        "tabs or spaces?",
        "jest or vitest for a new vite project?",
        "practise or practice when it's a verb?",
        "Q: 'affect' or 'effect' in this sentence?",
        "monthly or yearly billing for a team of four?",
    ] {
        reads_goal(text, Some(GoalType::QuestionAnswer));
    }
    // Not without its question mark, nor a request between two things.
    reads_goal(
        "a login form or a signup wizard?",
        Some(GoalType::ArtifactCreation),
    );
}

#[test]
fn a_wish_with_an_intensifier_is_a_request() {
    reads_holding(
        "would be really handy if the weekly report included last year's figures",
        GoalType::TaskExecution,
        &[("target", "weekly report")],
    );
}

#[test]
fn what_an_office_pins_up_or_hands_out_is_a_kind() {
    for (text, kind) in [
        ("need a poster for the summer fair on the 12th", "poster"),
        (
            "could you word a short notice for the staff room door",
            "notice",
        ),
        (
            "can you make a rota for the five of us, mornings only",
            "rota",
        ),
        ("i need a flyer for our new opening hours", "flyer"),
        (
            "write a memo to all staff about the new parking rules",
            "memo",
        ),
    ] {
        reads_holding(
            text,
            GoalType::ArtifactCreation,
            &[("component_type", kind)],
        );
    }
}

#[test]
fn another_kind_after_and_with_as_well_or_too_is_another_goal() {
    let mut s = Session::new();
    s.user("need a poster for the bake sale on saturday 10-1 and a short blurb for the newsletter as well");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert_eq!(s.slot("component_type"), "poster");
    assert_eq!(s.conv.queued_goals.len(), 1);
    // A part of the first thing stays a part.
    let mut s = Session::new();
    s.user("write a landing page for my bakery with a menu and a contact form");
    assert_eq!(s.slot("component_type"), "landing page");
    assert!(s.conv.queued_goals.is_empty());
}

#[test]
fn doing_a_kind_is_making_it() {
    reads_holding(
        "pls can you do a running order for the Taylor christening, service at 11, lunch at 1",
        GoalType::ArtifactCreation,
        &[("component_type", "running order")],
    );
    reads_holding(
        "could you do a summary of this thread for the standup",
        GoalType::ArtifactCreation,
        &[("component_type", "summary")],
    );
}

#[test]
fn what_someone_else_wants_is_context_for_a_later_ask() {
    reads_holding(
        "my manager wants churn by cohort for the board pack. could you make a bar chart of it, one bar per quarter?",
        GoalType::ArtifactCreation,
        &[("component_type", "bar chart")],
    );
    reads_holding(
        "the landlord wants the signed form back by friday. can you draft an email asking for a week more",
        GoalType::ArtifactCreation,
        &[("component_type", "email")],
    );
}

#[test]
fn an_opinion_asked_for_is_a_question() {
    for text in [
        "any thoughts on this approach?",
        "thoughts on moving the cron jobs to a queue?",
        "opinions on tailwind vs plain css for a small marketing site?",
    ] {
        reads_goal(text, Some(GoalType::QuestionAnswer));
    }
    // A verdict given is none.
    reads_goal("looks good to me", None);
}

#[test]
fn a_thing_named_with_this_is_what_it_stands_for_next() {
    reads_holding(
        "this query takes 30s on prod. can you speed it up?",
        GoalType::TaskExecution,
        &[("target", "this query")],
    );
}

#[test]
fn wanting_to_know_with_the_subject_dropped_is_a_question() {
    for text in [
        "need to know whether my cast iron pan can go in the dishwasher",
        "wanna know if the pool is open on bank holidays",
    ] {
        reads_goal(text, Some(GoalType::QuestionAnswer));
    }
    reads_goal("do you actually remember stuff between chats", None);
}

#[test]
fn next_after_a_preposition_is_a_time_not_a_sequencer() {
    let mut s = Session::new();
    s.user(
        "Make me a meal plan for next week - 5 dinners, nothing with mushrooms, Sam won't eat them",
    );
    assert_eq!(s.slot("component_type"), "meal plan");
    assert!(
        s.slot("requirements").contains("5 dinners"),
        "{}",
        s.slot("requirements")
    );
    assert!(s.conv.queued_goals.is_empty());
}

#[test]
fn a_thing_wanted_at_a_number_is_the_thing_and_its_value() {
    reads_holding(
        "i want the thermostat at 68 not 72",
        GoalType::TaskExecution,
        &[("target", "thermostat"), ("desired_change", "68")],
    );
    reads_holding(
        "i'd like the volume at like 40%",
        GoalType::TaskExecution,
        &[("target", "volume"), ("desired_change", "40%")],
    );
}

#[test]
fn the_review_of_round_19_finds_its_own_edges() {
    // A colleague's handle is no address to the assistant.
    reads_goal("@sarah can you review my PR when you get a chance", None);
    // The user's own doing after what not to do asks nothing.
    reads_goal(
        "please don't merge yet, i still need to fix the tests",
        None,
    );
    // A first verb that makes a thing keeps its goal.
    reads_holding(
        "write and send an email to the landlord about the leak",
        GoalType::ArtifactCreation,
        &[("component_type", "email")],
    );
    // A part of the first thing stays a part, "as well" or not.
    let mut s = Session::new();
    s.user("make a landing page with a signup form and a pricing table as well");
    assert!(s.conv.queued_goals.is_empty());
    // "need to know" asks only before what it wants to know.
    reads_goal("need to know basis only, don't share the doc", None);
    // A certificate for TLS is no document to write.
    reads_goal(
        "I need a certificate for the SSL on staging",
        Some(GoalType::TaskExecution),
    );
}
