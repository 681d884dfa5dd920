//! Round 18: "can you" before a verb that is no goal lead asks for that action when the
//! sentence marks it as the user's; a fix made, a thing working again or faster than before
//! reports nothing; taking one's own message back cancels.

use convstate::conversation::{GoalType, Phase};

use super::session::{Session, has, reads_goal, reads_holding};

#[test]
fn can_you_before_an_unlisted_verb_asks_for_that_action() {
    reads_holding(
        "could you reimburse my parking from tuesday please",
        GoalType::TaskExecution,
        &[("desired_change", "reimburse my parking")],
    );
    reads_holding(
        "can you dm priya that standup moved to 10",
        GoalType::TaskExecution,
        &[
            ("target", "priya"),
            ("desired_change", "standup moved to 10"),
        ],
    );
    reads_holding(
        "the invoice went to my old address. can you reissue it to the new one",
        GoalType::TaskExecution,
        &[("desired_change", "reissue")],
    );
    // Without a mark of the user's own, or with a verb of ability, it asks what can be done.
    for text in [
        "can you boil eggs in a microwave",
        "can you see the file i attached",
        "can you see my screen",
        "could you access my google drive",
    ] {
        reads_goal(text, Some(GoalType::QuestionAnswer));
    }
}

#[test]
fn a_fix_made_or_a_thing_working_better_reports_nothing() {
    for text in [
        "shoutout to whoever patched the search, it works great now",
        "the latest release resolved the sync issue for us, cheers",
        "the dashboard is so much quicker since the upgrade",
        "fyi the printer is working again",
    ] {
        reads_goal(text, None);
    }
    // Still not fixed, or slower, reports.
    for text in [
        "the search is still not fixed on android",
        "the dashboard is much slower since the upgrade",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
    }
}

#[test]
fn taking_ones_own_message_back_states_nothing() {
    reads_goal("oops, ignore my last message, wrong chat", None);
    reads_goal(
        "please disregard my previous message, the build is fine now",
        None,
    );
}

#[test]
fn a_request_addressed_to_the_assistant_runs_on_after_a_report() {
    reads_holding(
        "the kids are finally asleep could you switch the hallway light off till seven",
        GoalType::TaskExecution,
        &[
            ("target", "hallway light"),
            ("desired_change", "off till seven"),
        ],
    );
    // A state after "be" ends its clause, and a word of degree before it approves nothing.
    reads_holding(
        "walked in and its totally boiling put the aircon down to nineteen",
        GoalType::TaskExecution,
        &[("target", "aircon"), ("desired_change", "down to nineteen")],
    );
    let mut s = Session::new();
    s.user("Build me a landing page for a bike repair shop with a booking form");
    assert_eq!(s.conv.phase, Phase::Planning);
    s.user("the budget is absolutely tight this month");
    assert_eq!(s.conv.phase, Phase::Planning);
}

#[test]
fn a_negated_instruction_is_a_task_whose_change_keeps_the_negation() {
    reads_holding(
        "don't put emojis in the release notes",
        GoalType::TaskExecution,
        &[("desired_change", "don't put emojis in the release notes")],
    );
    reads_holding(
        "stop adding type hints to every variable, it's clutter",
        GoalType::TaskExecution,
        &[("desired_change", "stop adding type hints")],
    );
    reads_holding(
        "never use semicolons in the snippets you send me",
        GoalType::TaskExecution,
        &[("desired_change", "never use semicolons")],
    );
    // A negation that is a lead itself leads; a negated question asks nothing.
    reads_holding(
        "stop the timer",
        GoalType::TaskExecution,
        &[("target", "timer")],
    );
    let mut s = Session::new();
    s.user("stop adding type hints to every variable, it's clutter");
    assert!(!s.slot("desired_change").contains("clutter"));
}

#[test]
fn a_correction_run_on_or_followed_by_its_reason_keeps_its_value() {
    let mut s = Session::new();
    s.user("set the oven timer to twelve minutes");
    s.assistant("Okay, twelve minutes on the oven timer.");
    s.user("no not twelve i said fifteen");
    assert!(
        has(&s.slot("desired_change"), "fifteen"),
        "{}",
        s.slot("desired_change")
    );
    let mut s = Session::new();
    s.user("write a powershell script that archives last month's invoices");
    s.user("sorry I meant a python script, nobody here can read powershell");
    assert_eq!(s.slot("component_type"), "python script");
    // A list after "I meant" stays whole.
    let mut s = Session::new();
    s.user("make a banner in red and black");
    s.user("no I meant orange, teal and white");
    assert!(!s.slot("requirements").is_empty());
}

#[test]
fn a_message_sent_to_someone_names_whom_and_what_it_says() {
    reads_holding(
        "send a note to the night shift channel saying the freezer alarm is a false alarm",
        GoalType::TaskExecution,
        &[
            ("target", "night shift channel"),
            ("desired_change", "freezer alarm is a false alarm"),
        ],
    );
    reads_holding(
        "text my sister tell her the train is delayed by twenty minutes",
        GoalType::TaskExecution,
        &[
            ("target", "my sister"),
            ("desired_change", "train is delayed"),
        ],
    );
    // (Round 26: the kinds of message are the language file's `message_kinds`.)
    reads_holding(
        "send a whatsapp to Ines saying the parcel is with the neighbours",
        GoalType::TaskExecution,
        &[
            ("target", "Ines"),
            ("desired_change", "parcel is with the neighbours"),
        ],
    );
    reads_holding(
        "send an sms to the plumber that the side gate is open",
        GoalType::TaskExecution,
        &[
            ("target", "plumber"),
            ("desired_change", "side gate is open"),
        ],
    );
}

#[test]
fn it_after_a_time_or_a_sentence_that_names_nothing_is_the_thing_named_before() {
    reads_holding(
        "our warehouse has a nightly import job. since friday it times out halfway",
        GoalType::TaskExecution,
        &[("target", "nightly import")],
    );
    reads_holding(
        "The scanner app keeps asking for camera access. I allowed it twice. Make it stop",
        GoalType::TaskExecution,
        &[("target", "scanner app")],
    );
}

#[test]
fn a_thing_wished_for_before_a_reported_problem_is_what_is_asked() {
    reads_holding(
        "I'd like a replacement for order #4471, the kettle arrived with a dented lid",
        GoalType::TaskExecution,
        &[("target", "order #4471"), ("desired_change", "replacement")],
    );
    // Two verbs of one object share it: one goal, nothing queued.
    let mut s = Session::new();
    s.user("we'd love it if members could pause and resume their membership from the app");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(s.conv.queued_goals.is_empty(), "{:?}", s.conv.queued_goals);
    assert!(has(&s.slot("desired_change"), "pause and resume"));
}

#[test]
fn a_request_after_a_report_is_queued_and_a_repair_of_it_is_not() {
    let mut s = Session::new();
    s.user("Two things: 1) the search box loses focus after each letter, and 2) could you add a clear button to it?");
    assert_eq!(s.slot("target"), "search box");
    assert_eq!(s.conv.queued_goals.len(), 1, "{:?}", s.conv.queued_goals);
    let mut s = Session::new();
    s.user("the invoice pdf is broken on safari. also please add page numbers");
    assert_eq!(s.conv.queued_goals.len(), 1, "{:?}", s.conv.queued_goals);
    let mut s = Session::new();
    s.user("the date filter ignores the end date, can you fix it");
    assert!(s.conv.queued_goals.is_empty(), "{:?}", s.conv.queued_goals);
    // "make it so" names the thing and what it should do.
    reads_holding(
        "make it so the hallway light turns off after ten minutes",
        GoalType::TaskExecution,
        &[
            ("target", "hallway light"),
            ("desired_change", "turns off after ten minutes"),
        ],
    );
}

#[test]
fn a_question_asking_the_product_to_do_more_is_a_feature_request() {
    reads_holding(
        "I mostly use the step counter. could it track stairs too?",
        GoalType::TaskExecution,
        &[
            ("target", "step counter"),
            ("desired_change", "track stairs"),
        ],
    );
    reads_holding(
        "would the weekly digest include the new comments as well",
        GoalType::TaskExecution,
        &[
            ("target", "weekly digest"),
            ("desired_change", "include the new comments"),
        ],
    );
    // Without a word asking for more, or with a verb of ability, it asks.
    reads_goal("could it be the dns too?", Some(GoalType::QuestionAnswer));
    reads_goal(
        "can it handle ten thousand rows?",
        Some(GoalType::QuestionAnswer),
    );
}

#[test]
fn a_state_run_on_after_a_settings_value_ends_it() {
    reads_holding(
        "set the bedroom fan to high im really warm",
        GoalType::TaskExecution,
        &[("target", "bedroom fan"), ("desired_change", "high")],
    );
    let mut s = Session::new();
    s.user("turn the tv down to ten its way too loud");
    assert!(
        !s.slot("desired_change").contains("loud"),
        "{}",
        s.slot("desired_change")
    );
    // A possessive "its" stays in the value.
    reads_holding(
        "move the search button to its own row",
        GoalType::TaskExecution,
        &[("desired_change", "its own row")],
    );
}

#[test]
fn a_spoken_value_restated_keeps_the_restatement() {
    reads_holding(
        "alarm for six forty no wait make it six fifty",
        GoalType::TaskExecution,
        &[("target", "alarm"), ("desired_change", "six fifty")],
    );
    let mut s = Session::new();
    s.user("book a table for 7pm i mean 8pm");
    assert!(
        !s.slot("desired_change").contains("7pm"),
        "{}",
        s.slot("desired_change")
    );
    assert!(
        s.slot("desired_change").contains("8pm"),
        "{}",
        s.slot("desired_change")
    );
    // (Round 26: a unit after the value goes with it; "make that" and a bare "sorry"
    // restate too.)
    for (text, value, old) in [
        (
            "set a timer for twelve minutes no make that fifteen",
            "fifteen",
            "twelve",
        ),
        ("turn the thermostat to 68, sorry, 70", "70", "68"),
    ] {
        let mut s = Session::new();
        s.user(text);
        let change = s.slot("desired_change");
        assert!(
            change.contains(value) && !change.contains(old),
            "{text}: {change}"
        );
    }
    // Between words that are no numbers, nothing is restated.
    let mut s = Session::new();
    s.user("call mom no wait call dad");
    assert!(
        s.slot("desired_change").contains("mom"),
        "{}",
        s.slot("desired_change")
    );
    reads_holding(
        "timer for twelve minutes",
        GoalType::TaskExecution,
        &[("target", "timer"), ("desired_change", "twelve minutes")],
    );
    // (Round 27: after a hesitation too; a noun phrase said again with its determiner after
    // the restatement replaces the one before; a binding word said again after a hesitation
    // restarts there.)
    let mut s = Session::new();
    s.user("set a timer for uh 12 minutes no wait make it 14");
    assert_eq!(s.slot("desired_change"), "14");
    for (text, target, old) in [
        (
            "add paper towels to the costco list wait no the trader joes list",
            "trader joes list",
            "costco",
        ),
        (
            "text my mom no sorry my dad that i'm running late",
            "dad",
            "mom",
        ),
        (
            "set the uh the downstairs thermostat to 68",
            "downstairs thermostat",
            "uh",
        ),
        // (A bare "sorry" before a sentence of its own restates nothing.)
        (
            "add oat milk to the aldi list, sorry, the aldi list is long",
            "aldi list",
            "oat",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        let t = s.slot("target");
        assert!(t.contains(target) && !t.contains(old), "{text}: {t}");
    }
}

/// Round 26: "any way to ...?" asks whether and how, as "is there a way to" does; a request
/// beside it still decides.
#[test]
fn any_way_to_asks_as_is_there_a_way_to_does() {
    for text in [
        "any way to pin a tab in the sidebar so it survives a restart?",
        "hmm any way to undo a squash merge on github",
    ] {
        reads_goal(text, Some(GoalType::QuestionAnswer));
    }
    reads_goal(
        "is there any way to get an email when a backup fails? if not, please add one",
        Some(GoalType::TaskExecution),
    );
}

/// Round 27: a reason after a request's value is why it is asked, no part of the change
/// (`reasons`); a time after "since" stays.
#[test]
fn a_reason_after_a_value_is_no_part_of_it() {
    for (text, change) in [
        ("make the header sticky cause we have long pages", "sticky"),
        ("move the meeting to 3 because i have lunch", "3"),
        (
            "rename the export to ledger since it's what finance calls it",
            "ledger",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.slot("desired_change"), change, "{text}");
    }
}
