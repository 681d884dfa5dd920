//! Rule 2 for a phrase that a wish closes: the phrase is the feature asked for, its condition
//! included, after any context before a comma.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_holding, reads_task};

#[test]
fn a_phrase_a_wish_closes_asks_for_what_it_names() {
    for (text, change, target) in [
        (
            "a preview of the email before it gets sent would be super helpful",
            "preview of the email before it gets sent",
            "email",
        ),
        (
            "drag and drop reordering in the playlist would be amazing",
            "drag and drop reordering in the playlist",
            "playlist",
        ),
        (
            "I keep accidentally deleting tasks, an undo button would be great",
            "undo button",
            "tasks",
        ),
        (
            "keyboard and mouse support would be nice",
            "keyboard and mouse support",
            "",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            has(&s.slot("desired_change"), change),
            "{text}: {}",
            s.slot("desired_change")
        );
        assert_eq!(s.slot("target"), target, "{text}");
    }
    // A pronoun before the wish is an answer, no feature.
    for text in ["that would be great", "just that would be great"] {
        reads_goal(text, None);
    }
}

/// Feature requests in more forms: a wish that there were a way, a build or a form of the
/// product named alone, a thing asked back.
#[test]
fn more_forms_of_feature_requests() {
    let mut s = Session::new();
    s.user("I wish there was a way to pin notes");
    assert_eq!(s.slot("target"), "notes");
    assert_eq!(s.slot("desired_change"), "pin");
    let mut s = Session::new();
    s.user("Native Apple Silicon build");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("desired_change"), "Native Apple Silicon build");
    let mut s = Session::new();
    s.user("Bring back the old compact view");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "old compact view");
    let mut s = Session::new();
    s.user("empty the logs bucket");
    assert_eq!(s.slot("target"), "logs bucket");
}

/// A wish that names a benefit before a courtesy ends the phrase; the courtesy after it is no
/// wish that closes it.
#[test]
fn a_benefit_before_a_courtesy() {
    for text in [
        "keyboard shortcuts would save me pls",
        "offline sync would save us hours please",
        "bulk tagging would make my day plz",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
    }
    // "no" ending another line opens no title; "that" before a kind is a determiner.
    let mut s = Session::new();
    s.user("we said no\nbulk editing of tags on the notes page");
    assert!(!s.slot("desired_change").starts_with("fix:"));
    let mut s = Session::new();
    s.user("write a cover letter for this job and then create that portfolio site for me");
    assert_eq!(s.conv.queued_goals[0].goal_type, GoalType::ArtifactCreation);
    // A count of clicks is no wait.
    reads_goal("it takes 2 clicks to open the settings", None);
}

/// A request whose condition holds a subject and a verb: the verb is the condition's, the
/// lead word is no noun of a problem report.
#[test]
fn a_condition_after_a_request_holds_no_problem() {
    for (text, target) in [
        (
            "support exporting invoices after the month closes",
            "invoices",
        ),
        (
            "support exporting reports after the quarter closes",
            "reports",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            !s.slot("desired_change").starts_with("fix:"),
            "{text}: {}",
            s.slot("desired_change")
        );
        assert!(
            has(&s.slot("target"), target),
            "{text}: {}",
            s.slot("target")
        );
    }
}

/// After a lead that ends in "to" ("a way to", "an option to") the next word is the verb,
/// known or not, and a reason after "so" and a subject is no part of the change.
#[test]
fn after_a_way_to_any_word_is_the_verb() {
    for (text, change, target) in [
        (
            "can you add an option to star threads so i can come back to them",
            "option to star threads",
            "threads",
        ),
        (
            "please add a way to snooze emails so they come back tomorrow",
            "way to snooze emails",
            "emails",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            has(&s.slot("desired_change"), change),
            "{text}: {}",
            s.slot("desired_change")
        );
        assert!(
            !s.slot("desired_change").contains(" so "),
            "{text}: {}",
            s.slot("desired_change")
        );
        assert!(
            has(&s.slot("target"), target),
            "{text}: {}",
            s.slot("target")
        );
    }
}

/// "let" and the people it lets, in more roles: a request whose change is what they may do.
#[test]
fn let_people_of_more_roles() {
    for text in [
        "let tenants pay rent by card",
        "let volunteers swap shifts with each other",
        "let attendees download their ticket as a pdf",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            !s.slot("desired_change").starts_with("fix:"),
            "{text}: {}",
            s.slot("desired_change")
        );
        assert!(
            s.slot("desired_change").to_lowercase().starts_with("let "),
            "{text}: {}",
            s.slot("desired_change")
        );
    }
}

#[test]
fn a_feature_asked_about_as_a_plan_is_requested() {
    // "is X planned?", "are X on the roadmap": the feature is the change asked for.
    for (text, change) in [
        ("Is an arm64 docker image planned?", "arm64 docker image"),
        ("are scheduled exports on the roadmap", "scheduled exports"),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("desired_change", change)]);
    }
    // (Whether a thing is down or late asks.)
    reads_goal("is the status page down", Some(GoalType::QuestionAnswer));
}

#[test]
fn a_wish_with_the_speaker_left_out_changes_the_thing() {
    // (Round 23: "want the", "need the", "would like the" as a title says them, with no "I".)
    reads_task(
        "want the sidebar to remember its width",
        "sidebar",
        "remember its width",
    );
    reads_task(
        "Would like the export to include archived items",
        "export",
        "include archived items",
    );
    reads_task(
        "need my invoices to show the VAT number",
        "invoices",
        "show the VAT number",
    );
    // (A question about what the user wants stays one.)
    reads_goal(
        "do you want the long version or the short one",
        Some(GoalType::QuestionAnswer),
    );
}

#[test]
fn a_task_lead_after_a_wish_asks_for_its_verb_and_object() {
    let mut s = Session::new();
    s.user("It would be great to rewind a live stream by thirty seconds");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("desired_change"), "rewind a live stream"));
    // A wish with its speaker left out, of a kind with what it must do, asks for the kind.
    reads_holding(
        "Would love a tiny script that tags my receipts by store name",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "script"),
            ("requirements", "tags my receipts"),
        ],
    );
}
