//! A kind named first (rule 10): after the name of the tool it is for ("eslint config for a
//! react repo", "awk one liner to ..."), with a polite word before its colon, and however long
//! its requirements run after "a" or "an".

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_holding};

#[test]
fn a_kind_after_the_name_of_its_tool_asks_for_that_kind() {
    for (text, kind, requirements) in [
        (
            "prettier config for a monorepo: 100 char lines, trailing commas",
            "prettier config",
            "100 char lines",
        ),
        (
            "sed one liner to strip trailing whitespace from every line",
            "sed one liner",
            "strip trailing whitespace",
        ),
        (
            "systemd unit file that starts the worker on boot",
            "unit file",
            "starts the worker",
        ),
        (
            "renovate config pls: weekly schedule, one PR for all eslint packages",
            "config",
            "weekly schedule",
        ),
    ] {
        reads_holding(
            text,
            GoalType::ArtifactCreation,
            &[("component_type", kind), ("requirements", requirements)],
        );
    }
}

#[test]
fn a_verb_after_a_kind_and_that_describes_it() {
    // "that" ends no subject: its verb is the kind's description, no report.
    reads_holding(
        "nginx server block that proxies /api to port 8080",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "server block"),
            ("requirements", "proxies /api"),
        ],
    );
}

#[test]
fn a_pronoun_or_a_verb_before_a_kind_is_no_tool() {
    // "we use django" names the team's stack; the report after it is what is asked about.
    let mut s = Session::new();
    s.user("we use rails with sidekiq. the mailer jobs run twice after every deploy");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    // A problem word before a kind is a report, no tool's name.
    let mut s = Session::new();
    s.user("broken config for the staging cluster after the helm upgrade");
    assert_ne!(s.goal(), Some(GoalType::ArtifactCreation));
}

#[test]
fn a_long_request_for_a_kind_after_a_or_an_is_read_whole() {
    reads_holding(
        "a function that merges two sorted linked lists in place without allocating, keeping it stable for equal keys — in c please",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "function"),
            ("requirements", "merges two sorted linked lists"),
        ],
    );
    // Past 16 words, a phrase with no kind first still asks nothing by itself.
    let mut s = Session::new();
    s.user("the long list of things that my team and i have been meaning to look at for a while now, in no order");
    assert_eq!(s.goal(), None);
}

#[test]
fn a_kind_label_over_what_it_must_have_asks_for_that_kind() {
    reads_holding(
        "stylelint config: no ids, max nesting 3, kebab-case classes",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "stylelint config"),
            ("requirements", "no ids"),
        ],
    );
    // A bare kind, or a report after the label, names the part a report is about.
    for text in [
        "UI: toast messages stack on top of each other",
        "sqlite backend: VACUUM runs on every startup",
        "mobile app: crash on launch",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
    }
}

#[test]
fn what_a_kind_is_of_is_its_requirement() {
    for (text, kind, requirements) in [
        (
            "make a table of my monthly bills",
            "table",
            "of my monthly bills",
        ),
        (
            "draw up a timeline of the product launch",
            "timeline",
            "product launch",
        ),
        (
            "write a summary of the incident for the exec team",
            "summary",
            "of the incident",
        ),
    ] {
        reads_holding(
            text,
            GoalType::ArtifactCreation,
            &[("component_type", kind), ("requirements", requirements)],
        );
    }
}

#[test]
fn a_plan_for_a_trip_or_a_party_asks_for_the_plan() {
    for (text, kind) in [
        (
            "plan a 3 day road trip along the coast for two adults and a dog",
            "road trip",
        ),
        (
            "plan a surprise birthday party for my wife, about 20 guests",
            "birthday party",
        ),
    ] {
        reads_holding(
            text,
            GoalType::ArtifactCreation,
            &[("component_type", kind)],
        );
    }
}

#[test]
fn a_kind_for_someone_with_a_verb_after_tells_of_the_thing() {
    // A verb or a problem in the phrase after "for" tells something of the thing: no request
    // for it.
    for text in [
        "Safari login page for partners keeps looping",
        "Pricing page for enterprise customers is live now",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_ne!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
    }
    // Past 16 words a kind with no connector after it is the subject of a story.
    let mut s = Session::new();
    s.user("an app i installed yesterday keeps draining my battery even when it is closed and i have already tried reinstalling it twice this week");
    assert_ne!(s.goal(), Some(GoalType::ArtifactCreation));
}

#[test]
fn an_assignment_states_what_to_make() {
    // (Round 22: "your task is to", "the goal is to" are intents; "define a", "model a" lead
    // a kind of code; a name in code after the kind is the kind's.)
    reads_holding(
        "Your task is to write a small Rust CLI that counts words in every file of a folder.",
        GoalType::ArtifactCreation,
        &[("component_type", "CLI"), ("requirements", "counts words")],
    );
    reads_holding(
        "Define a generic function merge_sorted(a, b) for two sorted vectors",
        GoalType::ArtifactCreation,
        &[("component_type", "function")],
    );
    // ("define" alone still asks what a word means.)
    reads_goal("define idempotency", Some(GoalType::QuestionAnswer));
}

#[test]
fn to_before_a_noun_phrase_names_whom_the_text_goes_to() {
    // (Round 23: "to" and a determiner after the kind names the recipient or the place, kept
    // in the requirements as "for" is; "to" before a verb is a purpose, dropped.)
    reads_holding(
        "could you write a quick note to my son's teacher saying he'll miss friday for a dentist appointment",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "note"),
            (
                "requirements",
                "to my son's teacher saying he'll miss friday",
            ),
        ],
    );
    reads_holding(
        "draft a complaint to the airline about my bag arriving two days late",
        GoalType::ArtifactCreation,
        &[("requirements", "to the airline")],
    );
    let mut s = Session::new();
    s.user("write a python script to rename my photos by the date they were taken");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(
        s.slot("requirements").starts_with("rename my photos"),
        "{}",
        s.slot("requirements")
    );
}

#[test]
fn a_clause_before_a_colon_is_the_requirement_and_a_means_opens_it() {
    for (text, wants, not) in [
        (
            "Build a tiny web page that tracks who paid for the pizza: each person ticks a box, \
             the page shows the total and who still owes",
            "tracks who paid for the pizza",
            "ticks a box",
        ),
        (
            "write a function that picks the on-call engineer for a date: rotate weekly, skip \
             people on leave, and never pick the same person twice in a row",
            "picks the on-call engineer",
            "skip people",
        ),
        // A clause that points at the colon's list or leads up to it keeps the list.
        (
            "Write a script that does the following: reads config.yaml, validates the keys, and \
             writes a report to out.txt",
            "reads config.yaml",
            "\u{0}",
        ),
        (
            "write a function that takes a list of prices and returns: the min, the max and the \
             mean",
            "the min, the max",
            "\u{0}",
        ),
        // After a means the colon opens what it is to do.
        (
            "Write a script in python, using only the standard library: download the RSS feed and \
             save every new episode title to a text file",
            "download the rss feed",
            "standard library",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
        let req = s.slot("requirements").to_lowercase();
        assert!(req.contains(wants) && !req.contains(not), "{text}: {req}");
    }
}

#[test]
fn a_calls_arguments_are_neither_its_kind_nor_its_parts() {
    for (text, kind, wants) in [
        (
            "Write a function clamp(value, low, high) that keeps a number inside the range",
            "function",
            "keeps a number inside the range",
        ),
        (
            "implement throttle(fn, ms) so the wrapped function runs at most once per window",
            "throttle",
            "runs at most once per window",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
        assert!(
            has(&s.slot("component_type"), kind),
            "{text}: {}",
            s.slot("component_type")
        );
        let req = s.slot("requirements").to_lowercase();
        assert!(req.contains(wants) && !req.contains(','), "{text}: {req}");
    }
}
