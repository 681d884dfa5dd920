//! Where a problem's subject starts and ends: plurals before an auxiliary, a context's own
//! places, nouns after determiners, "nothing" before a verb, and "when" that tells when.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_task};

#[test]
fn a_word_in_s_before_an_auxiliary_of_a_plural_is_the_plural() {
    reads_task(
        "the shipping rates are wrong for canada",
        "shipping rates",
        "wrong for canada",
    );
    reads_task(
        "the sensor readings look off after midnight",
        "sensor readings",
        "look off after midnight",
    );
    // A thing said to work reports nothing, thanks or not.
    reads_goal("the chart values look fine now", None);
    reads_goal("thanks a lot, the sensor readings seem sane now", None);
}

#[test]
fn a_context_keeps_the_subjects_own_place_and_its_doing() {
    reads_task(
        "after switching phones my runs from the garmin dont show up in the app",
        "runs from the garmin",
        "dont show up in the app",
    );
    reads_task(
        "since moving to the new office our prints from the laptop come out blank",
        "prints from the laptop",
        "come out blank",
    );
    // A word after a determiner is a noun, even one that is a verb in -s elsewhere.
    reads_task(
        "my runs from the watch dont sync",
        "runs from the watch",
        "dont sync",
    );
}

#[test]
fn when_with_a_subject_tells_when_and_with_an_auxiliary_asks() {
    reads_task(
        "When we deploy to staging the migrations run twice",
        "migrations",
        "run twice",
    );
    reads_task(
        "whenever i rotate the tablet the map zooms out",
        "map",
        "zooms out",
    );
    reads_goal(
        "when does the library close on sundays",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal(
        "When to use a queue instead of direct calls",
        Some(GoalType::QuestionAnswer),
    );
    // A phrase that opens with a condition or a time is no request of its own.
    let mut s = Session::new();
    s.user("After upgrading the theme to 4.1 the cart totals show zero");
    assert!(!has(&s.slot("target"), "upgrading"), "{}", s.slot("target"));
}

#[test]
fn nothing_before_a_verb_is_the_problems_and_before_a_problem_word_all_is_well() {
    reads_task(
        "when i drop a pdf onto the upload area nothing happens",
        "upload area",
        "nothing happens",
    );
    let mut s = Session::new();
    s.user("I press sync and nothing gets uploaded");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("desired_change"), "nothing gets uploaded"));
    reads_task(
        "the backup alert goes off every sunday even though nothing is wrong",
        "backup alert",
        "goes off every sunday",
    );
}

#[test]
fn a_lead_word_before_of_is_a_noun_and_light_words_leave_a_subject_short() {
    reads_task(
        "Deploy of the billing worker to the eu cluster hangs at the migration step",
        "Deploy of the billing worker to the eu cluster",
        "hangs at the migration step",
    );
    reads_task(
        "Build of the docs site fails on windows",
        "Build of the docs site",
        "fails on windows",
    );
    // A degree between a plain verb and its result leaves the plural the subject.
    reads_task(
        "thumbnails in the media library load super grainy on tablets",
        "thumbnails in the media library",
        "load super grainy",
    );
}

#[test]
fn a_verbs_word_before_a_plain_verb_and_its_object_is_the_things() {
    reads_task(
        "make the shift export include break times as a column",
        "shift export",
        "include break times",
    );
    reads_task(
        "make the invoice export skip cancelled orders",
        "invoice export",
        "skip cancelled orders",
    );
    // "to" and a verb still end the thing.
    reads_task(
        "i'd like the api to return the total count in a header",
        "api",
        "return the total count",
    );
}

#[test]
fn a_copula_before_a_number_and_its_unit_tells_a_value_not_a_problem() {
    reads_task(
        "the enemy sprites stutter whenever the camera pans fast. physics tick is 60",
        "enemy sprites",
        "stutter whenever the camera pans fast",
    );
    reads_task(
        "the nightly export keeps timing out. batch size is 500 rows",
        "nightly export",
        "keeps timing out",
    );
    // With more after it, the number is the problem's.
    reads_task(
        "the cart total is 0 after adding a second item",
        "cart total",
        "0 after adding a second item",
    );
}

#[test]
fn a_plural_before_an_adverb_and_a_bare_verb_is_the_subject() {
    reads_task(
        "since the upgrade my scheduled report jobs just sit in the queue",
        "scheduled report jobs",
        "just sit in the queue",
    );
    reads_task(
        "Bug: archived projects still show up in the sidebar",
        "archived projects",
        "still show up in the sidebar",
    );
    // An adverb before a verb in -s keeps the verb ("still mentions").
    reads_task(
        "the install guide still mentions python 3.7",
        "install guide",
        "still mentions python 3.7",
    );
}

#[test]
fn a_quote_after_what_a_thing_gives_is_the_thing_asked_about() {
    reads_goal(
        "what does this sql actually return `SELECT max(id) FROM orders GROUP BY customer_id`",
        Some(GoalType::QuestionAnswer),
    );
    // Getting an error in quotes still reports it.
    reads_goal(
        "why do i keep getting 'ECONNRESET' from the payments service",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn a_word_in_s_right_before_another_verb_is_the_subjects() {
    reads_task(
        "the reward points total doubles when you refresh the wallet screen",
        "reward points total",
        "doubles when you refresh the wallet screen",
    );
    reads_task(
        "our status page 500s since this morning",
        "status page",
        "500s since this morning",
    );
}

#[test]
fn a_verb_in_s_before_a_reflexive_or_forever_is_the_predicate() {
    // (Round 22: the verb is no known word, the word after it shows it is one.)
    reads_task(
        "Carousel: slide resets itself whenever the window loses focus",
        "slide",
        "resets itself whenever the window loses focus",
    );
    reads_task(
        "onboarding tour loops forever on tablets",
        "onboarding tour",
        "loops forever on tablets",
    );
}

#[test]
fn a_clause_telling_what_is_already_so_reports_nothing() {
    // (Round 22: "already" opening a clause's state rules a cause out; a later clause that
    // states the failure still decides, "the app opens, nothing loads".)
    reads_task(
        "my laptop keeps showing a low disk warning, the videos are already on the external drive",
        "laptop",
        "keeps showing a low disk warning",
    );
    reads_task(
        "the tablet layout looks fine in portrait but goes blank in landscape",
        "tablet layout",
        "goes blank in landscape",
    );
    reads_task("the API returns 200, the body is empty", "body", "is empty");
    let mut s = Session::new();
    s.user("the app opens, nothing loads");
    assert!(has(&s.slot("desired_change"), "nothing loads"));
}

#[test]
fn even_when_and_even_if_are_the_problems_condition() {
    // (Round 22: no subordinate clause, no concession: the problem keeps them.)
    reads_task(
        "the nightly sync exits 0 even when the upload fails",
        "nightly sync",
        "exits 0 even when the upload fails",
    );
    reads_task(
        "our status page stays green even if the database is unreachable",
        "status page",
        "even if the database is unreachable",
    );
}

#[test]
fn a_verb_the_lists_do_not_know_before_a_determiner_ends_the_subject() {
    // (Round 23: a word in -s before a determiner and the problem word, or a word after a
    // plural right before a determiner, is the subject's verb, known to the lists or not.)
    reads_task(
        "asyncio.gather swallows the exception from the second coroutine",
        "asyncio.gather",
        "swallows the exception",
    );
    reads_task(
        "the pdf exporter mangles the footnotes",
        "pdf exporter",
        "mangles the footnotes",
    );
    reads_task(
        "Health checks mark every backend as DOWN after a hot reload",
        "Health checks",
        "mark every backend as DOWN",
    );
    reads_task(
        "the import jobs skip every table with a hyphen in its name",
        "import jobs",
        "skip every table",
    );
    // (Not a word after a determiner, nor a time: "this week the disk filled up".)
    let mut s = Session::new();
    s.user("twice this week the disk filled up with old log files");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(
        &s.slot("desired_change"),
        "filled up with old log files"
    ));
    assert!(has(&s.slot("target"), "disk"));
}

#[test]
fn the_rest_after_a_comma_tells_more_of_the_clause_before() {
    // (Round 23: "the rest", "the others" after a comma are what is left of the thing named
    // before: the report is that thing's.)
    reads_task(
        "since 5.0 my OPML import only brings in the first 50 shows, the rest are silently dropped",
        "OPML import",
        "only brings in the first 50 shows",
    );
    reads_task(
        "the bulk uploader only keeps the first ten photos, the others just vanish",
        "bulk uploader",
        "only keeps the first ten photos",
    );
}

#[test]
fn a_quoted_name_is_the_subject_and_an_object_pronoun_follows_a_verb() {
    reads_task(
        "\"Export selection\" does nothing on the tablet",
        "Export selection",
        "does nothing on the tablet",
    );
    // A quote of what was asked stays the request.
    let mut s = Session::new();
    s.user("\"fix the login page\" is all my boss said");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("target"), "login page"));
    reads_task(
        "the quiz screen shows me the same card twice in a row",
        "quiz screen",
        "shows me the same card twice",
    );
    reads_task(
        "the reminder widget pings us at midnight for no reason",
        "reminder widget",
        "pings us at midnight",
    );
}

#[test]
fn a_lead_word_before_a_controls_noun_and_its_report_is_a_name() {
    let mut s = Session::new();
    s.user("Delete button in the sidebar removes the wrong draft");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("desired_change"), "removes the wrong draft"));
    // A lead and a control's noun before a comma stay a request: the report after the comma
    // is why.
    reads_goal(
        "Update field validation, it accepts blank phone numbers",
        Some(GoalType::TaskExecution),
    );
    let mut s = Session::new();
    s.user("Update field validation, it accepts blank phone numbers");
    assert!(
        has(&s.slot("desired_change"), "field validation") || s.slot("desired_change").is_empty()
    );
    // A control asked for, described, stays a request for one.
    reads_goal(
        "create button that opens the share sheet",
        Some(GoalType::ArtifactCreation),
    );
}

#[test]
fn praise_of_how_a_thing_works_reports_nothing() {
    for text in [
        "thanks for 2.4, the importer behaves properly now",
        "just dropping by to say the new timeline view is lovely",
        "the sync works flawlessly since the update",
    ] {
        reads_goal(text, None);
    }
}

#[test]
fn a_label_naming_the_setups_versions_is_no_part_of_the_subject() {
    for (text, target, change) in [
        (
            "Lanternly 3.2.0 on iPad: the reading progress resets to page one after every sync",
            "reading progress",
            "resets to page one",
        ),
        (
            "firmware v1.8 (rev B board): the fan spins at full speed even when idle",
            "fan",
            "spins at full speed",
        ),
    ] {
        reads_task(text, target, change);
    }
    // (A label opened by a lead word is read as a title is: its report stays.)
    let mut s = Session::new();
    s.user("Release 4.1: the onboarding screen crashes on rotate.");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        has(&s.slot("desired_change"), "crashes on rotate"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn a_command_in_backticks_is_the_thing_whole() {
    // (Round 26: a word inside backticks is code's, no verb of the clause.)
    reads_task(
        "`npm run build --watch` still rebuilds everything on each save",
        "npm run build --watch",
        "still rebuilds everything",
    );
    // The backtick a value's cut leaves alone goes with it.
    let mut s = Session::new();
    s.user("`npm run build --watch` still rebuilds everything on each save");
    assert!(!s.slot("desired_change").contains('`'));
}

#[test]
fn a_time_of_one_word_opens_no_subject() {
    reads_task(
        "since then the upload form rejects every png",
        "upload form",
        "rejects every png",
    );
    reads_task(
        "since then welcome emails go out twice to every new subscriber",
        "welcome emails",
        "go out twice",
    );
    reads_task(
        "since 4.2 search results show up empty",
        "search results",
        "show up empty",
    );
}

#[test]
fn a_complaint_or_a_finding_wraps_the_report() {
    reads_task(
        "it's so annoying that the booking widget hides the cancel button on mobile",
        "booking widget",
        "hides the cancel button",
    );
    reads_task(
        "unfortunately the invoice pdf drops the vat line",
        "invoice pdf",
        "drops the vat line",
    );
    reads_task(
        "apparently the cron job never ran on sunday",
        "cron job",
        "never ran on sunday",
    );
    // Something counted once too often is a problem.
    reads_task(
        "the payroll export double counts overtime on bank holidays",
        "payroll export",
        "double counts overtime",
    );
}

#[test]
fn a_word_of_how_often_names_the_thing() {
    // (Round 26: "nightly", "weekly" ... in -ly are no adverbs before a subject.)
    reads_task(
        "weekly invoice export skips the last day of the month",
        "weekly invoice export",
        "skips the last day",
    );
    reads_task(
        "Nightly image build fails on the arm runner",
        "Nightly image build",
        "fails on the arm runner",
    );
}
