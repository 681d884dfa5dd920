//! Round 19: what a team channel and an office write. Status updates that ask for nothing (a
//! job done, figures that agree, a thing back to normal), a choice asked with a question mark,
//! wishes with an intensifier, and the things an office pins up or hands out.

use convstate::conversation::GoalType;

use super::session::{reads_goal, reads_holding};

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
