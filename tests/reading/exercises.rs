//! Programming exercises (rule 10): a story told of others and then what to work out from it,
//! a statement opened by "Given the ...", and an assignment told as what the reader will build.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal, reads_holding, reads_task};

#[test]
fn a_story_of_others_then_what_to_work_out_asks_for_code() {
    for (text, wants) in [
        (
            "A ferry crosses the lake every 40 minutes and carries at most 12 cars. Cars arrive \
             at the times given in a list. Compute how long the last car waits.",
            "how long the last car waits",
        ),
        (
            "A warehouse floor is a grid of tiles, some of them shelves. A robot starts in the top \
             left corner and each step takes it one tile east or south. Return the number of \
             paths to the bottom right.",
            "number of paths",
        ),
        (
            "Runners log their splits as a list of seconds per kilometre. Find the fastest three \
             kilometres in a row.",
            "fastest three kilometres",
        ),
    ] {
        reads_holding(text, GoalType::ArtifactCreation, &[("requirements", wants)]);
    }
}

#[test]
fn the_users_own_story_or_a_request_before_the_ask_is_no_exercise() {
    // The user's own trouble, then what to find: a task, no code to write.
    reads_goal(
        "Our nightly export died at 3am. Find the cause.",
        Some(GoalType::TaskExecution),
    );
    for text in [
        "My orders table has 2 million rows. Count the number of duplicates for me.",
        // A fault told in the story asks for a diagnosis.
        "The server logs show a spike at 3am every night. Determine what is causing it.",
        // A word problem of the world gives no input as code takes it.
        "Jane is training for a marathon. She runs 40km a week. Calculate how many calories \
         she burns per week.",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_ne!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
    }
    // A request first keeps its reading: the later sentence details it.
    reads_holding(
        "Create an endpoint that deletes a user's drafts. Return the number of drafts removed.",
        GoalType::ArtifactCreation,
        &[("requirements", "deletes a user's drafts")],
    );
}

#[test]
fn a_statement_given_the_things_asks_for_code() {
    reads_holding(
        "Given the heights of the buildings on a street, return how many of them can see the \
         sunset: a building sees it when every building west of it is lower.",
        GoalType::ArtifactCreation,
        &[("requirements", "how many of them can see the sunset")],
    );
}

#[test]
fn an_assignment_told_as_what_you_will_build() {
    for (text, kind, wants) in [
        (
            "For this week's lab you'll build a Flask app that shortens URLs and counts clicks.",
            "flask app",
            "shortens urls",
        ),
        (
            "you will write a bash script that rotates the nginx logs every night",
            "bash script",
            "rotates the nginx logs",
        ),
    ] {
        reads_holding(
            text,
            GoalType::ArtifactCreation,
            &[("component_type", kind), ("requirements", wants)],
        );
    }
}

#[test]
fn a_request_for_code_after_the_openers_comma_states_the_work() {
    let mut s = Session::new();
    s.user(
        "Given tables trips(id, rider_id, started_at, fare) and riders(id, city), write a query \
         that returns the rider with the highest total fare in each city. If two riders tie, \
         return both.",
    );
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    let req = s.slot("requirements").to_lowercase();
    assert!(req.contains("highest total fare"), "{req}");
}

#[test]
fn given_the_things_the_user_shows_or_has_states_no_exercise() {
    for text in [
        "Given the logs above, find the cause of the crash.",
        "Given the spreadsheet I shared, count the number of unpaid invoices.",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_ne!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
    }
}

/// Round 26: a fault in a story told of others (no word of the user's own) yields to a thing
/// asked to be made in one of the two sentences after it; a version after "Build" is no thing.
#[test]
fn a_fault_in_a_story_of_others_yields_to_the_thing_asked_after_it() {
    reads_holding(
        "A warehouse scanner logs every parcel as it leaves, but the log isn't in order and some parcels were scanned twice. Write a program that lists each parcel once, earliest first.",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "program"),
            ("requirements", "lists each parcel once"),
        ],
    );
    reads_task(
        "Co-op: host migration kicks everyone back to the main menu if the host quits\n\nHappens every time. Build 0.14.2 (Steam), 4 players.",
        "host migration",
        "kicks everyone back",
    );
}
