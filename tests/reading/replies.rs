//! What a reply in a conversation says besides its words' leads: an auxiliary with its subject
//! left out asks nothing; a topic announced as new switches the goal.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal};

#[test]
fn an_auxiliary_with_its_subject_left_out_asks_nothing() {
    // (Round 22: rule 6 needs a subject after the auxiliary.)
    for text in [
        "ok cool, will try that after lunch",
        "could be worse tbh",
        "would be lovely",
        "should be fine from here",
    ] {
        reads_goal(text, None);
    }
    // (A subject, or a question mark, still asks.)
    reads_goal(
        "will it still rain tomorrow",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal("can be cached?", Some(GoalType::QuestionAnswer));
}

#[test]
fn a_topic_announced_as_new_switches_the_goal() {
    // (Round 22: "different thing", "unrelated", "on another note" are switch markers.)
    for opener in [
        "different thing:",
        "totally unrelated, but",
        "on another note,",
    ] {
        let mut s = Session::new();
        s.user("write a regex that matches a UK phone number");
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
        s.user(&format!(
            "{opener} fix the cron job on the staging box so it runs on sundays too"
        ));
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{opener}");
        assert!(s.slot("target").contains("cron job"), "{opener}");
    }
}

#[test]
fn a_report_after_a_new_topic_replaces_the_goal() {
    // (Round 23: a switch or cancel marker opening a sentence announces a goal of its own, so a
    // report or a request told without a lead verb is that goal, not more of the current one.)
    for (opener, report, target) in [
        (
            "different thing:",
            "the invoice pdf comes out blank when the customer name has an accent",
            "invoice pdf",
        ),
        (
            "ok, unrelated but",
            "our staging db keeps dropping connections every few hours",
            "staging db",
        ),
        (
            "scratch that for now,",
            "the checkout page freezes on safari after you apply a coupon",
            "checkout page",
        ),
        (
            "hmm on another note.",
            "Login emails land in spam for outlook users since monday.",
            "login emails",
        ),
    ] {
        let mut s = Session::new();
        s.user("write me a bash script that rotates the nginx logs every night");
        s.assistant("Here is the plan: a cron entry and a logrotate config. Shall I start?");
        s.user(&format!("{opener} {report}"));
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{opener} {report}");
        assert!(
            s.slot("target").to_lowercase().contains(target),
            "{opener} {report}: {}",
            s.slot("target")
        );
        assert_eq!(s.conv.completed_goals.len(), 1, "{opener} {report}");
    }
    // ("Actually" and "instead" only qualify what follows: the work in hand changes.)
    let mut s = Session::new();
    s.user("write me a bash script that rotates the nginx logs every night");
    s.user("actually the logs should be kept for two weeks");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(s.conv.completed_goals.is_empty());
    // (Nor is a marker inside a sentence an announcement: "it should actually ping redis".)
    let mut s = Session::new();
    s.user("build a status page for our api");
    s.user("the health check is fine, it should actually ping the database though");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
}

#[test]
fn one_more_thing_adds_to_the_goal_in_hand() {
    // (Round 22's review: "one more thing" is no switch marker.)
    let mut s = Session::new();
    s.user("build me a todo app");
    s.assistant("What features do you need?");
    s.user("one more thing, use Vue");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(s.conv.completed_goals.is_empty());
    // (A "but" after a switch marker joins it to the request; after an acknowledgement alone
    // it asks the work in hand.)
    reads_goal(
        "unrelated, but can you explain how DNS works?",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal("Great, but please change the header color", None);
}

#[test]
fn a_murmur_before_an_acknowledgement_is_a_filler() {
    // (Round 22: "mm", "mmm", "hm" are fillers: "mm okay got it" reports nothing.)
    reads_goal("mm okay got it", None);
    reads_goal("hm right, makes sense", None);
}

#[test]
fn a_spoken_fraction_is_part_of_a_quantity_to_compute() {
    // (Round 22: "half" after "and a" is no determiner of the user's things.)
    reads_goal(
        "convert two and a half pounds to kilos",
        Some(GoalType::QuestionAnswer),
    );
}

#[test]
fn exploring_told_as_what_one_does_explores() {
    reads_goal(
        "Exploring options for background sync in a Flutter app",
        Some(GoalType::Exploration),
    );
}

#[test]
fn a_negation_before_a_comma_that_ends_the_message_reads_safely() {
    // (Found by the property test: the clause after a negated instruction's comma started
    // past the sentence's end when only white space followed the comma.)
    for text in [
        "Never mind I'll create it now , \n",
        "Never mind don't   , \n",
        "don't add a footer ,\n\n",
        "please don't ,   ",
        // (Two verbs sharing an object, then soft characters and a line's end.)
        "review and merge \n",
        "fix and document \nthe retry logic",
        "review and merge —\n",
    ] {
        let mut s = Session::new();
        s.user(text);
        s.user("ok");
    }
    // (A correction whose old value is empty where a hesitation was read as nothing.)
    for text in ["not uh , vue", "vue not uh , ", "no not uh , vue"] {
        let mut s = Session::new();
        s.user("build me a todo app");
        s.user(text);
    }
    let mut s = Session::new();
    s.user("Write a python script that parses logs");
    s.assistant("Done: here is the script. Anything to change?");
    s.user("etc but uh, um,  not um, ");
}

#[test]
fn where_the_assistant_runs_and_whether_it_gets_out_is_about_it() {
    // (Round 23: rule 7's phrases of the assistant's person gain where it runs and whether
    // it goes anywhere; a request about what runs elsewhere stays a request.)
    for text in [
        "are you running on some server somewhere or on my phone",
        "do you ever go anywhere yourself lol",
        "are you hosted in europe?",
        "do you ever go outside",
    ] {
        reads_goal(text, None);
    }
    reads_goal(
        "can you check what is running on port 3000",
        Some(GoalType::TaskExecution),
    );
}
