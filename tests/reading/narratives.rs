//! The user's own doing and what followed ("I open the app and it crashes"), problems of
//! people beside a thing's or a request's, and the replies that ask nothing.

use convstate::conversation::{GoalType, SlotStatus};

use super::session::{Session, has, reads_goal, reads_task};

#[test]
fn the_users_own_doing_before_and_is_a_clause_of_its_own() {
    // "it" is the thing the user did it to.
    reads_task("I open the app and it crashes", "app", "crashes");
    reads_task(
        "we restart the worker pod and it comes back with the old config",
        "worker pod",
        "comes back with the old config",
    );
    reads_task(
        "i plug in the second monitor and the dock stops charging",
        "dock",
        "stops charging",
    );
    reads_task(
        "when we deploy and the cache is cold the homepage times out",
        "homepage",
        "times out",
    );
    // What the user has is context before the report.
    reads_task(
        "I have a flask app and the session expires after a minute",
        "session",
        "expires after a minute",
    );
    reads_task(
        "we use postgres 14 and the nightly vacuum never finishes",
        "nightly vacuum",
        "never finishes",
    );
    // With nothing named, the result is reported on its own.
    let mut s = Session::new();
    s.user("I press export and nothing gets downloaded");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "");
    assert!(has(&s.slot("desired_change"), "nothing gets downloaded"));
    // "and" between two things joins them in one subject.
    reads_task(
        "the header and the footer overlap on small screens",
        "header and the footer",
        "overlap on small screens",
    );
    reads_task(
        "search and filters are broken on the orders page",
        "search and filters",
        "broken on the orders page",
    );
    // A clause with no subject of its own after the user's doing goes on with it: the report
    // is in a later sentence.
    reads_task(
        "we have a small rust service that reads orders from sqs and writes them to dynamo. since friday the queue depth keeps climbing",
        "queue depth",
        "keeps climbing",
    );
}

#[test]
fn a_problem_of_people_yields_to_a_things_problem_or_a_later_request() {
    reads_task(
        "the date picker won't close when you press escape, screen reader users get trapped in it",
        "date picker",
        "won't close when you press escape",
    );
    reads_task(
        "checkout hangs on the payment step and customers give up",
        "checkout",
        "hangs on the payment step",
    );
    let mut s = Session::new();
    s.user("we run a dance school and students keep forgetting their classes. could you write a reminder email template?");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    // Alone, a problem of people is the report.
    reads_task(
        "users get logged out every few minutes on firefox",
        "users",
        "get logged out every few minutes",
    );
}

#[test]
fn the_users_own_next_step_with_its_subject_left_out_asks_nothing() {
    for text in [
        "ok got it, will try after lunch",
        "thanks! will test it tonight",
        "cool, should be fine",
        "makes sense, will check the logs tomorrow",
    ] {
        reads_goal(text, None);
    }
    // An auxiliary with its subject still asks.
    reads_goal(
        "will it run on a raspberry pi zero",
        Some(GoalType::QuestionAnswer),
    );
}

#[test]
fn make_that_with_its_noun_leads_and_alone_corrects() {
    reads_task("can you make that query faster?", "that query", "faster");
    reads_task(
        "could you make those buttons a bit bigger",
        "those buttons",
        "bit bigger",
    );
    // While a goal is active, "make that" with a value corrects it.
    let mut s = Session::new();
    s.user("set an alarm for 7am");
    s.assistant("Sure, anything else?");
    s.user("actually make that 6:30");
    assert!(
        has(&s.slot("desired_change"), "6:30"),
        "{}",
        s.slot("desired_change")
    );
    assert!(!has(&s.slot("target"), "that"), "{}", s.slot("target"));
}

#[test]
fn a_question_for_the_change_in_other_words_asks_for_it() {
    for question in [
        "Happy to. What would you like it changed to?",
        "Sure. What would you like to be different about the sidebar?",
        "What do you want to change about it?",
    ] {
        let mut s = Session::new();
        s.user("change the sidebar on the docs site");
        s.assistant(question);
        s.user("no preference, you pick");
        assert_eq!(
            s.status("desired_change"),
            Some(SlotStatus::Waived),
            "{question}"
        );
    }
}

#[test]
fn a_waiver_after_a_question_in_the_assistants_own_words_waives_the_missing_slot() {
    for (request, question, waiver, slot) in [
        (
            "I'd like a budget spreadsheet",
            "Fun. Tell me what it needs to cover: categories, months, anything like that?",
            "whatever you think works, surprise me",
            "requirements",
        ),
        (
            "create a new strapi content type",
            "Sure. Which fields do you want on it?",
            "up to you really, go with something sensible",
            "requirements",
        ),
    ] {
        let mut s = Session::new();
        s.user(request);
        s.assistant(question);
        s.user(waiver);
        assert_eq!(s.status(slot), Some(SlotStatus::Waived), "{waiver}");
    }
}

#[test]
fn how_a_day_goes_a_fix_already_made_and_leaving_state_no_goal() {
    for text in [
        "morning! slow monday over here, how's your day going",
        "rough week tbh, anyway",
        "thx, that fixed the cors thing",
        "that solved the timeout issue, cheers",
        "right, logging off for the weekend, talk monday",
        "ok calling it a day, thanks for the help",
        "k got it, will try it after lunch",
        "morning! grey skies here, perfect excuse to stay in and refactor lol",
    ] {
        reads_goal(text, None);
    }
    // A problem word before a thing still titles its problem.
    reads_task(
        "Slow startup after the update",
        "startup",
        "Slow startup after the update",
    );
    // A fixed thing is a thing.
    reads_task(
        "the fixed header overlaps the first row on mobile",
        "fixed header",
        "overlaps the first row",
    );
}

#[test]
fn a_later_request_of_the_thing_itself_outweighs_a_problem_of_people() {
    let mut s = Session::new();
    s.user("patients keep missing appointments. the booking app should send sms reminders");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "booking app");
}

#[test]
fn an_attempt_that_meets_a_problem_reports_it_on_what_it_acts_on() {
    let mut s = Session::new();
    s.user("Trying to mount an NFS share on boot but it hangs the whole startup");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("target"), "NFS share"));
    assert!(has(&s.slot("desired_change"), "hangs the whole startup"));
    reads_task(
        "i've been trying to pair the scanner with my laptop but it keeps dropping",
        "scanner",
        "keeps dropping",
    );
    // A problem with a subject of its own keeps its subject.
    reads_task(
        "I tried to publish the package but the upload fails with a 403",
        "upload",
        "fails with a 403",
    );
    // An attempt to understand meeting no problem stays what it was.
    let mut s = Session::new();
    s.user("I'm trying to understand how lifetimes work in Rust");
    assert_eq!(s.goal(), Some(GoalType::Exploration));
}

#[test]
fn a_workaround_told_after_the_report_reports_nothing() {
    for (text, target, change) in [
        (
            "Since the 3.0 update, exported PDFs get cropped at the bottom margin. Reverting to \
             2.9 makes it go away.",
            "exported PDFs",
            "cropped at the bottom margin",
        ),
        (
            "After the firmware update, the porch camera clips get cut after 10 seconds. Rolling \
             back makes it stop.",
            "porch camera clips",
            "cut after 10 seconds",
        ),
        (
            "The label printer skips every second label since the driver update. Going back to \
             the old driver makes it work again.",
            "label printer",
            "skips every second label",
        ),
        (
            "Since monday the nightly sync stalls at 99%. Restarting the worker fixes it.",
            "nightly sync",
            "stalls at 99%",
        ),
    ] {
        reads_task(text, target, change);
    }
}
