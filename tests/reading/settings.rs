//! Rule 3, settings in everyday forms: a thing put on a state, and waivers that accept a guess
//! or the defaults.

use convstate::conversation::{GoalType, SlotStatus};

use super::session::{Session, has, reads_goal, reads_holding, reads_task};

#[test]
fn a_thing_put_on_a_state_is_the_thing_and_its_state() {
    for (text, target, change) in [
        ("put the tv on mute", "tv", "mute"),
        ("put the fan on low while I sleep", "fan", "low"),
        (
            "put my laptop on battery saver mode",
            "laptop",
            "battery saver mode",
        ),
    ] {
        reads_holding(
            text,
            GoalType::TaskExecution,
            &[("target", target), ("desired_change", change)],
        );
    }
    // A thing put on a place is added there.
    let mut s = Session::new();
    s.user("put the promo banner on the pricing page");
    assert!(
        has(&s.slot("target"), "pricing page"),
        "{}",
        s.slot("target")
    );
}

#[test]
fn a_guess_or_the_defaults_accepted_waive_the_asked_slot() {
    for answer in [
        "go with your best guess",
        "default is ok",
        "I don't have any requirements",
        "eh, make something up",
        "I'll let you figure out what goes in it",
        "go wild with it",
        "get creative, I trust you",
    ] {
        let mut s = Session::new();
        s.user("write me a toast for my sister's wedding");
        s.assistant("What should it include?");
        s.user(answer);
        let conv = &s.conv;
        let goal = conv.current_goal.as_ref().expect(answer);
        assert!(
            goal.required_info
                .iter()
                .any(|s| s.status == SlotStatus::Waived),
            "{answer}: {:?}",
            goal.required_info
        );
    }
}

/// A setting's name may hold its scope when its value is a quantity, and a word in -s before
/// the colon is the name's noun, no verb of a problem.
#[test]
fn a_long_setting_name_before_a_quantity() {
    for (text, target, change) in [
        (
            "retention for the audit logs: 90 days",
            "retention for the audit logs",
            "90 days",
        ),
        (
            "timeout for the payment gateway calls: 30s",
            "payment gateway calls",
            "30s",
        ),
        ("page size for search results: 25", "search results", "25"),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert!(
            has(&s.slot("target"), target),
            "{text}: {}",
            s.slot("target")
        );
        assert_eq!(s.slot("desired_change"), change, "{text}");
    }
}

/// Round 12: a setting's value after "up to" or "down to" (the direction is neither the
/// setting nor its value), and a setting's scope after its value ("for this repo").
#[test]
fn a_setting_with_its_direction_or_its_scope() {
    for (text, target, change) in [
        (
            "terminal panel font size up to 15 pls, my eyes",
            "terminal panel font size",
            "15",
        ),
        ("brightness up to max please", "brightness", "max"),
        ("pull.rebase to true for this repo", "pull.rebase", "true"),
        (
            "screen timeout -> 2 min for my work profile",
            "screen timeout",
            "2 min",
        ),
        (
            "default branch to main on the api repo",
            "default branch",
            "main",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert_eq!(s.slot("target"), target, "{text}");
        assert_eq!(s.slot("desired_change"), change, "{text}");
    }
    // A place after "for", "on" or "in" with a determiner is still the target of a feature.
    let mut s = Session::new();
    s.user("autoscaling on queue depth for the worker pool");
    assert_eq!(s.slot("target"), "worker pool");
}

#[test]
fn a_time_told_by_quarter_or_half_keeps_its_to() {
    // "quarter to seven" is a time: its "to" starts no value.
    reads_task(
        "set my wake-up alarm for quarter to six on weekdays",
        "my wake-up alarm",
        "quarter to six",
    );
    reads_task(
        "move the team standup to half past ten",
        "team standup",
        "half past ten",
    );
}

#[test]
fn voice_numbers_in_words_and_messages_without_that() {
    // A speech recogniser writes numbers as words: "for twelve minutes" gives the value as
    // "for 12 minutes" does. A message to someone may open with its speaker, no "that".
    reads_task("set a timer for eight minutes", "timer", "eight minutes");
    reads_task(
        "text mike im stuck in traffic",
        "mike",
        "im stuck in traffic",
    );
    reads_task(
        "text priya we'll be there by six",
        "priya",
        "we'll be there by six",
    );
}

#[test]
fn to_or_at_before_a_settings_number_joins_the_value() {
    // Round 16: "font size to 16": the setting ends before "to", its value is the number.
    reads_task("screen timeout to 2 minutes", "screen timeout", "2 minutes");
    reads_task("thermostat at 68", "thermostat", "68");
}

#[test]
fn a_move_from_one_thing_to_another_names_both_in_the_change() {
    // Round 16: "switch our CI from travis to github actions": the change is the move, both
    // ends named; the thing ends before "from".
    reads_task(
        "port the mobile app from cordova to capacitor",
        "mobile app",
        "from cordova to capacitor",
    );
    reads_task(
        "move our dns from godaddy to cloudflare",
        "our dns",
        "from godaddy to cloudflare",
    );
}

#[test]
fn a_computation_with_its_quantity_asks_for_the_answer() {
    // Round 16: "convert 30 celsius to fahrenheit" (`computations`): a quantity after the
    // verb makes it a question; "convert the config to toml" changes a thing.
    reads_goal("convert 12 ounces to grams", Some(GoalType::QuestionAnswer));
    reads_goal(
        "hey could you convert three cups of rice to grams",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal(
        "convert the settings file to json",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn a_new_value_ends_before_its_place_or_purpose() {
    // (Round 22: a place with a determiner is no part of the value.)
    reads_task(
        "rename `userId` to `accountId` in the export schema",
        "userId",
        "accountId",
    );
    let mut s = Session::new();
    s.user("rename `userId` to `accountId` in the export schema");
    assert!(!s.slot("desired_change").contains("schema"));
    let mut s = Session::new();
    s.user("change the default font to Georgia for every new note");
    assert!(has(&s.slot("desired_change"), "Georgia for every new note"));
    // ("for" after the value stays its words or its scope: round 22's review.)
    let mut s = Session::new();
    s.user("change the CTA to Sign up for free");
    assert_eq!(s.slot("desired_change"), "Sign up for free");
}

#[test]
fn a_setting_with_its_way_and_no_verb_is_a_request() {
    // (Round 23: "down" before "to" and a number is the way a setting goes, no failure; the
    // thing before it is the target, "down to 4" the change; a state run on after a comma
    // is why.)
    reads_task(
        "kitchen speaker down to 4 pls",
        "kitchen speaker",
        "down to 4",
    );
    reads_task("office blinds up to 50", "office blinds", "up to 50");
    reads_task("bedroom heater to 22, im freezing", "bedroom heater", "22");
    // (A thing down, with no value, still reports.)
    reads_task("the payments api is down", "payments api", "down");
}

/// Round 27: a setting's value that is a time may run on after its number ("alarm 5 30 am
/// tomorrow"), with no verb.
#[test]
fn a_setting_with_a_spoken_time_reads_the_whole_time() {
    for (text, change) in [
        ("alarm 6 15 am tomorrow", "6 15 am tomorrow"),
        ("alarm 7 45 pm on sunday", "7 45 pm on sunday"),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert_eq!(s.slot("target"), "alarm", "{text}");
        assert_eq!(s.slot("desired_change"), change, "{text}");
    }
}
