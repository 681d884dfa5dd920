//! Rule 14, two goals in one message: where a further goal starts, and what ends the first.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_task};

/// An action that is its own change may stand alone after a sequencer ("... and after that
/// deploy"); a waiver or a signal word alone is none.
#[test]
fn a_bare_action_after_a_sequencer_is_queued() {
    let mut s = Session::new();
    s.user("clean up the css and after that deploy");
    assert_eq!(s.slot("target"), "css");
    assert_eq!(s.conv.queued_goals.len(), 1);
    for text in ["skip", "cancel", "please skip"] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), None, "{text}");
    }
}

#[test]
fn two_kinds_joined_by_and_are_two_artifacts_and_any_names_a_thing() {
    for (text, queued) in [
        ("I need a landing page and a blog template", "blog template"),
        ("write a poem and a short story about autumn", "short story"),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
        assert_eq!(s.conv.queued_goals.len(), 1, "{text}");
        assert!(
            has(&s.conv.queued_goals[0].description, queued),
            "{text}: {}",
            s.conv.queued_goals[0].description
        );
    }
    // Parts inside a description stay parts.
    let mut s = Session::new();
    s.user("make a landing page with a hero section and a contact form");
    assert!(s.conv.queued_goals.is_empty());
    // "any" is a determiner: "fix any failing ones" names a thing of its own.
    let mut s = Session::new();
    s.user("Write unit tests for the cart service and fix any failing ones");
    assert_eq!(s.conv.queued_goals.len(), 1);
}

#[test]
fn a_second_report_after_and_or_a_concession_ends_the_problem() {
    reads_task(
        "ssl cert on the staging domain expired and certbot didnt renew it",
        "ssl cert on the staging domain",
        "expired",
    );
    let mut s = Session::new();
    s.user("the react native build for android takes forever and sometimes just hangs");
    assert!(!has(&s.slot("desired_change"), "hangs"));
    let mut s = Session::new();
    s.user("my step counter says 0 steps even tho i walked to work");
    assert!(has(&s.slot("desired_change"), "says 0 steps"));
    assert!(!has(&s.slot("desired_change"), "walked"));
}

#[test]
fn nothing_happening_after_a_condition_and_a_sequenced_addition_to_another_thing() {
    reads_task(
        "when i paste an image into a comment nothing happens",
        "comment",
        "nothing happens",
    );
    let mut s = Session::new();
    s.user("set up a github action that runs the tests on every PR, then add a status badge to the readme");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert_eq!(s.conv.queued_goals.len(), 1);
    // (Without a sequencer, "add" after an artifact names one of its features.)
    let mut s = Session::new();
    s.user("build a todo app and add dark mode");
    assert!(s.conv.queued_goals.is_empty());
}

#[test]
fn a_problem_of_another_thing_after_plus_or_a_sequencer_is_a_goal_of_its_own() {
    let mut s = Session::new();
    s.user("fix the typo in the footer, plus the logo looks blurry on retina screens");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.conv.queued_goals.len(), 1);
    // (A sign inside a word is none: "the N+1 problem".)
    let mut s = Session::new();
    s.user("Tell me about the N+1 problem with resolvers");
    assert!(s.conv.queued_goals.is_empty());
}

/// A question's lead before a question word, after "and", asks a question of its own.
#[test]
fn a_question_lead_before_a_question_word_after_and_is_a_goal_of_its_own() {
    for (text, first) in [
        (
            "write a bash script that backs up my photos and tell me how to schedule it with cron",
            GoalType::ArtifactCreation,
        ),
        (
            "fix the login bug and explain why it happened",
            GoalType::TaskExecution,
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(first), "{text}");
        assert_eq!(s.conv.queued_goals.len(), 1, "{text}");
        assert_eq!(
            s.conv.queued_goals[0].goal_type,
            GoalType::QuestionAnswer,
            "{text}"
        );
        assert!(!has(&s.slot("requirements"), "tell me"), "{text}");
    }
    // Without a question word, "tell" is one more part of the artifact.
    let mut s = Session::new();
    s.user("build a bot that tracks prices and tells me when they drop");
    assert!(s.conv.queued_goals.is_empty());
}

/// After a first goal, making "it" something changes that goal's work: a task, no artifact.
#[test]
fn making_it_different_after_a_first_goal_is_a_task() {
    let mut s = Session::new();
    s.user("translate this to Spanish and then make it shorter");
    assert_eq!(s.conv.queued_goals.len(), 1);
    assert_eq!(s.conv.queued_goals[0].goal_type, GoalType::TaskExecution);
    // A thing of its own after "make" is still an artifact.
    let mut s = Session::new();
    s.user("fix the login redirect and then make a landing page");
    assert_eq!(s.conv.queued_goals.len(), 1);
    assert_eq!(s.conv.queued_goals[0].goal_type, GoalType::ArtifactCreation);
}

/// After a sequencer, another kind of artifact with an article is a second artifact of the
/// same lead, whatever the first object holds.
#[test]
fn another_kind_after_a_sequencer_is_a_second_artifact() {
    let mut s = Session::new();
    s.user("write a cover letter for this job and after that a short thank you email");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert_eq!(s.conv.queued_goals.len(), 1);
    assert!(has(&s.conv.queued_goals[0].description, "thank you email"));
}

/// After a sequencer set apart by a comma or "and", a plain verb of the vocabulary starts a
/// goal of its own; "also" inside a clause does not.
#[test]
fn a_plain_verb_after_a_sequencer_set_apart_is_a_goal_of_its_own() {
    for text in [
        "deploy the api to staging, then run the smoke tests",
        "clean up the imports, then run the formatter",
        "update the readme and also open a PR for it",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.conv.queued_goals.len(), 1, "{text}");
    }
    let mut s = Session::new();
    s.user("could the search also match product codes?");
    assert!(s.conv.queued_goals.is_empty());
}

/// A comma right after an artifact's kind opens its parts, and a bare part and "plus" list
/// the next one: no second artifact.
#[test]
fn parts_listed_after_a_comma_are_no_second_artifact() {
    for (text, parts) in [
        (
            "put together a portfolio site, gallery plus a contact form",
            "gallery plus a contact form",
        ),
        (
            "make me a recipe card, ingredients and a short method",
            "ingredients and a short method",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
        assert!(
            has(&s.slot("requirements"), parts),
            "{text}: {}",
            s.slot("requirements")
        );
        assert!(
            s.conv.queued_goals.is_empty(),
            "{text}: {:?}",
            s.conv.queued_goals
        );
    }
}

/// A comma before "and" sets a lead apart as a sequencer does; a list's last part after one
/// stays a part.
#[test]
fn a_comma_before_and_sets_a_lead_apart() {
    let mut s = Session::new();
    s.user("write a birthday card for my nephew, and remind me to post it on friday");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert_eq!(s.conv.queued_goals.len(), 1, "{:?}", s.conv.queued_goals);
    let mut s = Session::new();
    s.user("a menu page with starters, mains, and a dessert section");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(s.conv.queued_goals.is_empty(), "{:?}", s.conv.queued_goals);
}

/// Round 12: a question asked as a sentence holds its own alternatives; a request asked as a
/// question, or an imperative question, still offers two.
#[test]
fn a_question_holds_its_own_alternatives() {
    for text in [
        "does flutter hot reload keep the state of StatefulWidgets or reset it",
        "should I squash or rebase before merging this branch",
        "is it better to memoize the selector or just recompute it",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::QuestionAnswer), "{text}");
        assert!(
            s.conv.queued_goals.is_empty(),
            "{text}: {:?}",
            s.conv.queued_goals
        );
    }
    for text in [
        "Can you build a login form or fix the header?",
        "explain how swift actors work or just show me how to turn this class into one",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), None, "{text}");
        assert_eq!(s.conv.queued_goals.len(), 2, "{text}");
    }
}

#[test]
fn what_the_first_work_leaves_is_a_thing_of_its_own() {
    // "whatever" or "anything" after a task's second lead names what the first work leaves.
    for text in [
        "upgrade the orm to 6 and fix whatever fails",
        "migrate the config to toml and patch anything that breaks",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.conv.queued_goals.len(), 1, "{text}");
    }
}

#[test]
fn a_sequencer_after_a_determiner_is_an_adjective() {
    // "the next stop", "the last step": no second goal starts at "next" or "last".
    let mut s = Session::new();
    s.user("I want the app to show the next stop on the lock screen");
    assert!(s.conv.queued_goals.is_empty(), "{:?}", s.conv.queued_goals);
    assert!(
        has(
            &s.slot("desired_change"),
            "show the next stop on the lock screen"
        ),
        "{}",
        s.slot("desired_change")
    );
    // After a modal verb it is an adverb of the verb after it.
    s = Session::new();
    s.user(
        "let drivers pick a home depot in settings, the route planner should then start from there",
    );
    assert!(s.conv.queued_goals.is_empty(), "{:?}", s.conv.queued_goals);
    // (A sequencer standing alone still starts one.)
    s = Session::new();
    s.user("fix the typo in the footer, next build a pricing page");
    assert_eq!(s.conv.queued_goals.len(), 1);
}

#[test]
fn separately_starts_an_unrelated_second_request() {
    // Round 16: "and separately", "on another note" ... are sequencers: what follows is a
    // goal of its own, queued.
    let mut s = Session::new();
    s.user("rename the staging bucket to assets-staging and separately i need a script that lists empty folders");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.conv.queued_goals.len(), 1);
    assert!(has(
        &s.conv.queued_goals[0].description,
        "script that lists empty folders"
    ));
}

/// Round 26: "or a ..." inside a clause that tells what the thing does is part of it; a comma
/// ends the clause, and a second thing may follow.
#[test]
fn or_inside_what_a_thing_does_offers_no_second_thing() {
    let mut s = Session::new();
    s.user("build a quiz app where each round ends with a high score or a retry screen");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(s.conv.queued_goals.is_empty(), "{:?}", s.conv.queued_goals);
    let mut s = Session::new();
    s.user("could you write a bash script that rotates the logs, or a cron entry? either is fine");
    assert_eq!(s.goal(), None);
    assert_eq!(s.conv.queued_goals.len(), 2, "{:?}", s.conv.queued_goals);
}

/// Round 27: a report told by its verb alone, then a plea for a look at it or a request added
/// by a sequencer: the report is the first goal (rule 9), the added request is queued, and the
/// plea is the report's own ask.
#[test]
fn a_report_told_before_a_plea_or_an_added_request_comes_first() {
    for text in [
        "the invoice totals come out rounded wrong since the update. Please can you check?",
        "the sync job stops halfway through every night. could you take a look at it",
        "Photos take ages to upload on the train. any idea why?",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            s.conv.queued_goals.is_empty(),
            "{text}: {:?}",
            s.conv.queued_goals
        );
    }
    let mut s = Session::new();
    s.user(
        "The reminder emails go out in the wrong language for people abroad. Also, can you \
         write a script that lists every reminder of May?",
    );
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.conv.queued_goals.len(), 1, "{:?}", s.conv.queued_goals);
    assert!(has(
        &s.conv.queued_goals[0].description,
        "script that lists every reminder"
    ));
    // (A context with no problem in it leaves the request first, and so does a sentence read
    // as a report with no problem's word: it tells where or what was sent.)
    let mut s = Session::new();
    s.user("I keep my recipes in a google sheet. Also, can you write a script that lists them?");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    let mut s = Session::new();
    s.user("our studio is in lisbon. then could you book a meeting room for friday?");
    assert!(
        has(
            &s.conv.current_goal.as_ref().unwrap().description,
            "meeting room"
        ),
        "{:?}",
        s.conv.current_goal
    );
    let mut s = Session::new();
    s.user("the quote is attached. can you check?");
    assert!(
        !s.slot("desired_change").starts_with("fix:"),
        "{}",
        s.slot("desired_change")
    );
}

/// Round 27: a question's follow-up in its own sentence is part of it: one that picks among
/// what a comparing question compares (`compared`, `choices`), or the last of a list of
/// aspects; a second question of its own is still queued.
#[test]
fn a_question_that_follows_up_in_its_sentence_is_part_of_it() {
    for text in [
        "what's the difference between a mutex and a semaphore, and when would you use each?",
        "Kafka vs RabbitMQ for a small team, and which one is easier to run?",
        "compare three hosting plans for a blog - price, bandwidth, and how hard moving later would be",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert!(s.goal().is_some(), "{text}");
        assert!(
            s.conv.queued_goals.is_empty(),
            "{text}: {:?}",
            s.conv.queued_goals
        );
    }
    for text in [
        "how do i rotate my ssh keys and how do i add the new one to the build server?",
        // ("one" alone is a pronoun; a list needs its dash or colon.)
        "what's the difference between a fixed and a variable mortgage, and how do i apply for one?",
        "which tent is lighter, the dome or the tunnel, and where can i rent it cheapest?",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(
            s.conv.queued_goals.len(),
            1,
            "{text}: {:?}",
            s.conv.queued_goals
        );
    }
}

#[test]
fn a_counted_list_states_one_goal_per_item() {
    for (text, target, queued) in [
        (
            "Two issues with 1.4: the sidebar collapses on every route change, and the dark \
             theme toggle doesn't persist after a reload",
            "sidebar",
            "dark theme toggle",
        ),
        (
            "Two requests for the invoice module: 1) add a PO number field to invoices, 2) let \
             us set net-45 as the default payment terms.",
            "invoices",
            "net-45",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert_eq!(s.slot("target"), target, "{text}");
        assert_eq!(s.conv.queued_goals.len(), 1, "{text}");
        assert!(has(&s.conv.queued_goals[0].description, queued), "{text}");
    }
}

#[test]
fn a_reminder_after_and_is_a_goal_of_its_own() {
    let mut s = Session::new();
    s.user("turn on the porch light and remind me to grab the mail when i get home");
    assert_eq!(s.slot("target"), "porch light");
    assert_eq!(s.conv.queued_goals.len(), 1);
    assert!(has(&s.conv.queued_goals[0].description, "grab the mail"));
}
