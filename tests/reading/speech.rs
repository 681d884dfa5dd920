//! Speech as a recogniser writes it: a hesitation inside a sentence ("uh", "um", the language
//! file's `hesitations`) is read as nothing, and the values keep the words around it.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal, reads_holding, reads_task};

#[test]
fn a_hesitation_inside_a_sentence_is_read_as_nothing() {
    for (text, target, change) in [
        (
            "set an alarm for uh six forty five",
            "alarm",
            "six forty five",
        ),
        ("turn the porch light um off at ten", "porch light", "off"),
        (
            "move my dentist thing to, uh, thursday",
            "dentist thing",
            "thursday",
        ),
        (
            "set the oven to erm two hundred degrees",
            "oven",
            "two hundred degrees",
        ),
    ] {
        reads_holding(
            text,
            GoalType::TaskExecution,
            &[("target", target), ("desired_change", change)],
        );
    }
    // The value starts after the hesitation, never with it.
    let mut s = Session::new();
    s.user("set a timer for uh twelve minutes");
    assert!(
        !s.slot("desired_change").to_lowercase().starts_with("uh"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn a_hesitation_alone_or_first_is_read_as_before() {
    // Alone it answers nothing; first, the fillers skip it.
    reads_goal("um", None);
    reads_goal("uh... never mind", None);
    reads_holding(
        "um add oat milk to the shopping list",
        GoalType::TaskExecution,
        &[("target", "shopping list")],
    );
    // A word in capitals is a name, no hesitation ("ER" of a hospital).
    let mut s = Session::new();
    s.user("remind me to call the ER desk tomorrow");
    assert!(s.goal().is_some());
}

#[test]
fn a_lead_inside_an_unpunctuated_sentence_opens_the_request() {
    for (text, goal) in [
        (
            "its way too dark in the hallway turn the lights up a bit",
            GoalType::TaskExecution,
        ),
        (
            "ten of us for dinner on sunday how long does a ten pound ham take",
            GoalType::QuestionAnswer,
        ),
        (
            "the kids have a spelling test friday make a list of the hard words",
            GoalType::ArtifactCreation,
        ),
    ] {
        reads_goal(text, Some(goal));
    }
}

#[test]
fn a_lead_after_a_subject_a_determiner_or_inside_small_talk_is_no_run_on() {
    for text in [
        "i already turned off the lights and set the alarm",
        "we just booked the flights lol",
        "thanks that was exactly what I was after",
        "hope the rest of your week is going well",
        "cheers for the quick fix yesterday",
        "see you at the next planning session",
        "Please don't cancel the order",
        "Great, but please change the header color",
        "thanks for everything today check out my blog sometime",
        "busy day today wish me luck",
        "hey team quick update on friday deploy the release notes are ready",
        "how old are you lol",
    ] {
        reads_goal(text, None);
    }
    // A question word after "no matter" asks nothing: the report stays; a question run on
    // after a clause still asks.
    reads_task(
        "the heater switches itself off after an hour no matter what the timer says",
        "heater",
        "switches itself off",
    );
    reads_goal(
        "we moved the files to the new bucket what the best way is to clean up the old one",
        Some(GoalType::QuestionAnswer),
    );
}

#[test]
fn a_message_relayed_to_a_person_is_what_to_tell_them() {
    for (text, whom, said) in [
        (
            "text jo tell her the keys are under the mat",
            "jo",
            "keys are under the mat",
        ),
        (
            "text grandpa let him know we land at noon",
            "grandpa",
            "we land at noon",
        ),
        (
            "email priya saying the invoice went out",
            "priya",
            "invoice went out",
        ),
    ] {
        reads_holding(
            text,
            GoalType::TaskExecution,
            &[("target", whom), ("desired_change", said)],
        );
    }
}

#[test]
fn a_lead_after_a_plural_subject_is_its_verb_not_a_request() {
    let mut s = Session::new();
    s.user("the bot spams the channel any time folks create a thread");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        s.slot("desired_change").starts_with("fix: "),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn a_hesitations_word_that_is_a_name_a_value_or_a_noun_stays() {
    for (text, slot, value) in [
        (
            "the uh_id column is null for new rows",
            "target",
            "uh_id column",
        ),
        (
            "can you make an er diagram of our users schema",
            "component_type",
            "er diagram",
        ),
        ("rename the playlist to Uh Huh", "desired_change", "Uh Huh"),
        ("set the spacing unit to um", "desired_change", "um"),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert!(
            super::session::has(&s.slot(slot), value),
            "{text}: {slot} = {}",
            s.slot(slot)
        );
    }
}

#[test]
fn an_acknowledgement_opening_a_run_on_is_a_filler_and_times_are_pushed() {
    reads_holding(
        "ok so the plumber comes thursday remind me wednesday night to clear under the sink",
        GoalType::TaskExecution,
        &[("desired_change", "clear under the sink")],
    );
    reads_holding(
        "push my haircut to next tuesday at four",
        GoalType::TaskExecution,
        &[
            ("target", "haircut"),
            ("desired_change", "next tuesday at four"),
        ],
    );
    reads_holding(
        "uh get me to the pharmacy on elm street",
        GoalType::TaskExecution,
        &[("target", "pharmacy")],
    );
}

#[test]
fn a_hedge_before_a_spoken_number_keeps_the_value() {
    reads_task(
        "um set a timer for like twelve minutes",
        "timer",
        "twelve minutes",
    );
    reads_task("set a timer for about 20 minutes", "timer", "20 minutes");
}

#[test]
fn a_day_after_a_restated_time_goes_with_it() {
    let mut s = Session::new();
    s.user("wake me up at six forty five tomorrow no wait six thirty");
    assert_eq!(s.slot("desired_change"), "six thirty");
    let mut s = Session::new();
    s.user("set an alarm for 6:45 tomorrow no wait 6:30");
    assert_eq!(s.slot("desired_change"), "6:30");
}

#[test]
fn a_question_word_typed_without_its_apostrophe_asks() {
    reads_goal(
        "hows traffic looking on 101 south",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal(
        "wheres the nearest pharmacy",
        Some(GoalType::QuestionAnswer),
    );
    // (Small talk stays small talk.)
    reads_goal("good morning!! hows your day going", None);
}
