//! Clauses that report nothing (rule 1): one that says its thing went well ("the demo went
//! great") or says when it is ("the recital is on friday") sets the scene; a request beside it
//! decides, and alone it states no goal.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal};

#[test]
fn a_thing_that_went_well_reports_nothing() {
    for text in [
        "the launch went smoothly, thanks again",
        "fyi the migration ran perfectly overnight",
        "the interview went great btw",
    ] {
        reads_goal(text, None);
    }
    // A verb of how things went before a problem still reports.
    reads_goal(
        "the upload went through but the thumbnails are missing",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn a_time_told_with_be_sets_the_scene() {
    for text in [
        "my sister's wedding is on saturday. can you write a short toast for me?",
        "the board meeting is next tuesday. could you draft an agenda?",
    ] {
        reads_goal(text, Some(GoalType::ArtifactCreation));
    }
    reads_goal("our flight is at 6:15 tomorrow", None);
    reads_goal(
        "the meeting is tomorrow can you draft an agenda",
        Some(GoalType::ArtifactCreation),
    );
    // A measure is no time, and what follows a time still reports.
    for text in [
        "the disk is at 100%",
        "the retry count is at 5 and it still fails",
        "the invoice date is next year instead of this year",
    ] {
        reads_goal(text, Some(GoalType::TaskExecution));
    }
    // What a job does at a time is still a report.
    reads_goal(
        "the backup job runs at 3am and fills the disk",
        Some(GoalType::TaskExecution),
    );
    // And so is a thing late by a count.
    let mut s = Session::new();
    s.user("the sync is 3 days behind");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
}
