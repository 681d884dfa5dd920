//! Round 19: the edges of round 18's rules. Two verbs sharing one object, "make it so" before a
//! clause, an action held back, a request beside what not to do, a user's thing after a
//! preposition, a request after a clause that names no thing, a chat channel's mention of the
//! assistant, and an apology after a correction.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal, reads_holding};

#[test]
fn two_verbs_joined_by_and_share_the_object_after_them() {
    reads_holding(
        "review and merge my PR",
        GoalType::TaskExecution,
        &[("target", "my PR")],
    );
    reads_holding(
        "fix and document the retry logic",
        GoalType::TaskExecution,
        &[("target", "retry logic")],
    );
    reads_holding(
        "test and merge the dependabot PRs",
        GoalType::TaskExecution,
        &[("target", "dependabot PRs")],
    );
    // A list of names stays a list: "and" before a word that is no lead.
    reads_goal(
        "add subcommands for init, deploy and logs",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn make_it_so_reads_the_clause_after_it() {
    reads_holding(
        "make it so the sidebar collapses on mobile",
        GoalType::TaskExecution,
        &[
            ("target", "sidebar"),
            ("desired_change", "collapses on mobile"),
        ],
    );
    reads_holding(
        "make it so the banner disappears after a week",
        GoalType::TaskExecution,
        &[
            ("target", "banner"),
            ("desired_change", "disappears after a week"),
        ],
    );
    // A subject that names nothing, or people, is no thing: the clause is the change.
    for (text, change) in [
        (
            "make it so nobody can delete the main branch",
            "nobody can delete the main branch",
        ),
        (
            "make it so only admins can edit the pricing table",
            "only admins can edit the pricing table",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            !s.slot("target").contains("can"),
            "{text}: {}",
            s.slot("target")
        );
        assert_eq!(s.slot("desired_change"), change, "{text}");
    }
}

#[test]
fn an_action_held_back_asks_for_nothing() {
    for text in [
        "don't deploy yet",
        "please don't restart the server right now",
        "don't merge until the tests pass",
        "do not publish the post before friday",
    ] {
        reads_goal(text, None);
    }
    // A standing instruction still reads.
    reads_holding(
        "don't use semicolons",
        GoalType::TaskExecution,
        &[("desired_change", "don't use semicolons")],
    );
}

#[test]
fn a_request_beside_what_not_to_do_is_the_request() {
    reads_holding(
        "don't add the footer, add a sidebar",
        GoalType::TaskExecution,
        &[("desired_change", "sidebar")],
    );
    reads_holding(
        "don't rewrite the whole thing, just fix the typo",
        GoalType::TaskExecution,
        &[("target", "typo")],
    );
    reads_holding(
        "don't touch the config, only change the readme",
        GoalType::TaskExecution,
        &[("target", "readme")],
    );
    // What not to do is no thing a later pronoun stands for.
    let mut s = Session::new();
    s.user("don't explain, just fix it");
    assert_ne!(s.slot("target"), "don't explain");
}

#[test]
fn a_users_thing_after_a_preposition_marks_no_action_of_theirs() {
    for text in [
        "can you cook rice in my instant pot",
        "can you bake bread in an air fryer",
        "could you grow tomatoes on my balcony",
    ] {
        reads_goal(text, Some(GoalType::QuestionAnswer));
    }
    reads_holding(
        "could you reimburse my parking from tuesday please",
        GoalType::TaskExecution,
        &[("desired_change", "reimburse my parking")],
    );
}

#[test]
fn a_request_after_a_clause_that_names_no_thing_still_stands() {
    reads_holding(
        "the update fixed the export, can you add a pdf option",
        GoalType::TaskExecution,
        &[("desired_change", "pdf option")],
    );
    reads_holding(
        "our CI went green again, could you bump the version to 2.4",
        GoalType::TaskExecution,
        &[("target", "version"), ("desired_change", "2.4")],
    );
}

#[test]
fn a_mention_of_the_assistant_is_an_address() {
    reads_holding(
        "@databot can you write a sql query that lists churned accounts by region",
        GoalType::ArtifactCreation,
        &[("component_type", "sql query")],
    );
    reads_holding(
        "@ops-bot restart the payments worker",
        GoalType::TaskExecution,
        &[("target", "payments worker")],
    );
    reads_holding(
        "hey @opsbot can you silence the disk alerts for db-7 until 6pm?",
        GoalType::TaskExecution,
        &[("target", "disk alerts for db-7")],
    );
    reads_goal(
        "hey @helper.bot what's the difference between a mutex and a semaphore",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal("@databot are you a real person or a script", None);
}

#[test]
fn an_apology_after_a_correction_is_no_part_of_the_value() {
    let mut s = Session::new();
    s.user("build me a react dashboard for sales");
    s.user("I meant vue, sorry");
    assert_eq!(s.slot("component_type"), "vue dashboard");
    let mut s = Session::new();
    s.user("build me a react dashboard for sales");
    s.user("no, svelte, my bad");
    assert_eq!(s.slot("component_type"), "svelte dashboard");
}
