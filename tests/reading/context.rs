//! Rule 9 for a request: "it" or "them" after context is the thing the context introduced,
//! in the sentence before or in a clause of state before a comma.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_holding, reads_task};

#[test]
fn it_after_a_sentence_of_context_is_the_thing_it_introduced() {
    for (text, target, change) in [
        (
            "our staging db is on postgres 13. can you upgrade it to 16",
            "staging db",
            "16",
        ),
        (
            "I have a python script that parses logs. Make it faster",
            "python script",
            "faster",
        ),
        (
            "we have a cron job that cleans temp files. move it to the new server",
            "cron job",
            "new server",
        ),
    ] {
        reads_holding(
            text,
            GoalType::TaskExecution,
            &[("target", target), ("desired_change", change)],
        );
    }
}

#[test]
fn it_after_a_clause_of_state_is_the_thing_the_clause_opens_with() {
    reads_holding(
        "the staging cluster is still on 1.27, can you bump it to 1.29",
        GoalType::TaskExecution,
        &[("target", "staging cluster"), ("desired_change", "1.29")],
    );
}

#[test]
fn without_context_it_names_nothing_yet() {
    // A short result after "make it" alone starts nothing; a longer one keeps its target open.
    let mut s = Session::new();
    s.user("Make it blue");
    assert_eq!(s.goal(), None);
    let mut s = Session::new();
    s.user("make it load faster");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "");
}

#[test]
fn a_short_result_for_a_topic_before_a_comma_is_asked() {
    reads_holding(
        "our helm chart hardcodes the image tag, can you make it a value",
        GoalType::TaskExecution,
        &[("target", "helm chart"), ("desired_change", "value")],
    );
}

#[test]
fn the_thing_a_context_gives_is_the_one_it_names_last() {
    for (text, target) in [
        ("The client emailed me a PDF. Convert it to Word", "PDF"),
        (
            "My manager sent me a spreadsheet. Can you turn it into a chart",
            "spreadsheet",
        ),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("target", target)]);
    }
}

#[test]
fn a_user_storys_role_says_who_asks_and_the_request_follows() {
    // "As a <role>, I ..." opens a backlog item: the role is who asks, the rest is read as
    // the request, whichever way it is stated.
    for (text, target, change) in [
        (
            "As a dispatcher I'd like the map to refresh the truck positions every 10 seconds",
            "map",
            "refresh the truck positions",
        ),
        (
            "as an admin, I need to be able to deactivate accounts without deleting them",
            "accounts",
            "deactivate accounts",
        ),
        (
            "As a night-shift nurse we need the handover notes to show the last vitals",
            "handover notes",
            "show the last vitals",
        ),
    ] {
        reads_holding(
            text,
            GoalType::TaskExecution,
            &[("target", target), ("desired_change", change)],
        );
    }
    // ("As a" without a speaker after the role opens nothing of the kind.)
    let mut s = Session::new();
    s.user("as a rule the nightly export finishes before 6");
    assert_ne!(s.slot("target"), "nightly export finishes before 6");
    // Round 16: the story's benefit ("so that ...", "so I can ...") says why, not what
    // changes; a longer role says who with a clause and ends with its comma; a label may
    // stand before the story.
    for (text, target, change) in [
        (
            "As a support lead I want the ticket list to show the customer's plan so that we \
             can prioritise paying users",
            "ticket list",
            "show the customer's plan",
        ),
        (
            "As a parent who shares one tablet with three kids, I'd like the app to keep a \
             separate watch history per profile",
            "app",
            "keep a separate watch history per profile",
        ),
        (
            "Story: as an accountant I need the ledger export to include the cost centre, so \
             I can reconcile it in one pass",
            "ledger export",
            "include the cost centre",
        ),
    ] {
        reads_holding(
            text,
            GoalType::TaskExecution,
            &[("target", target), ("desired_change", change)],
        );
        let mut s = Session::new();
        s.user(text);
        assert!(
            !s.slot("desired_change").contains("prioritise")
                && !s.slot("desired_change").contains("reconcile"),
            "{text}: {}",
            s.slot("desired_change")
        );
    }
}

#[test]
fn a_sentence_telling_how_things_are_now_is_the_background_of_a_later_request() {
    // "Currently ...", "At the moment ...": how things are now, problem words and all, is why
    // the request in a later sentence is made; alone it is the report.
    reads_holding(
        "At the moment the upload is painfully slow. Could you add a progress bar to the upload dialog?",
        GoalType::TaskExecution,
        &[
            ("target", "upload dialog"),
            ("desired_change", "progress bar"),
        ],
    );
    reads_holding(
        "currently the nightly report breaks on empty days",
        GoalType::TaskExecution,
        &[
            ("target", "nightly report"),
            ("desired_change", "breaks on empty days"),
        ],
    );
}

#[test]
fn a_phrase_of_manner_before_a_comma_leaves_the_request_after_it() {
    // (Round 22: "In Python,", "Using React,", "For my portfolio," before a lead.)
    reads_holding(
        "In Rust, write a function that merges two sorted slices",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "function"),
            ("requirements", "merges two sorted slices"),
        ],
    );
    reads_holding(
        "Using Svelte, build a settings page with a dark mode toggle",
        GoalType::ArtifactCreation,
        &[("component_type", "settings page")],
    );
    reads_goal(
        "On tablets, fix the overlapping toolbar",
        Some(GoalType::TaskExecution),
    );
    // (A report after the phrase stays a report.)
    reads_goal(
        "In the footer, the social icons overlap",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn the_same_elsewhere_adds_no_request() {
    // (Round 22: a later sentence saying the same happens elsewhere is no noun-phrase request.)
    let mut s = Session::new();
    s.user(
        "Since 4.2 the route planner shows arrival times in UTC. Same on the web app and on Android.",
    );
    assert_eq!(s.slot("target"), "route planner");
}

#[test]
fn the_means_told_first_leave_the_request_after_their_comma() {
    reads_holding(
        "Using only awk, cut and sort, write a shell script that prints the ten busiest IPs in an access log",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "shell script"),
            ("requirements", "prints the ten busiest IPs"),
        ],
    );
    reads_holding(
        "via the admin API, rename every tag that still says beta",
        GoalType::TaskExecution,
        &[],
    );
    // A means before a report leaves the report.
    reads_task(
        "Using the bulk editor, the price column gets wiped on save",
        "price column",
        "gets wiped on save",
    );
}

#[test]
fn a_request_after_a_spaced_dash_is_a_sentence_of_its_own() {
    reads_holding(
        "we've got a webhook handler that writes every event to s3 - could you make it skip the ping events",
        GoalType::TaskExecution,
        &[
            ("target", "webhook handler"),
            ("desired_change", "skip the ping events"),
        ],
    );
    // A report before the dash is the request's context: the request decides.
    reads_holding(
        "the nightly export is way too slow — pls make it skip the archived rows",
        GoalType::TaskExecution,
        &[("desired_change", "skip the archived rows")],
    );
    reads_holding(
        "my landing page has a newsletter box — pls make it smaller on phones",
        GoalType::TaskExecution,
        &[
            ("target", "newsletter box"),
            ("desired_change", "smaller on phones"),
        ],
    );
    // A dash before no request addressed to the assistant splits nothing.
    reads_task(
        "Search page - the results never load past page two",
        "results",
        "never load past page two",
    );
}

#[test]
fn a_wish_of_a_thing_told_before_it_is_asked_to_be_made_is_its_requirement() {
    let mut s = Session::new();
    s.user(
        "Riders queue at a single lift and each chair must carry two people. Write a program that prints how long the last rider waits.",
    );
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(has(&s.slot("component_type"), "program"));
    // "it as a" names the kind made.
    reads_holding(
        "build it as a vue single-file component",
        GoalType::ArtifactCreation,
        &[("component_type", "vue single-file component")],
    );
}

/// Round 26: a context of the user's before a colon (more than six words), then a request
/// opened by a lead: the request after the colon; a label naming a thing stays the thing.
#[test]
fn a_request_after_a_context_and_its_colon() {
    reads_holding(
        "my manager asked me this in the standup and I had no idea: write a script that renames every jpg in a folder by date taken",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "script"),
            ("requirements", "renames every jpg"),
        ],
    );
    reads_task(
        "airflow DAG for sales: add an option to backfill a single partition",
        "airflow DAG for sales",
        "backfill a single partition",
    );
}

#[test]
fn a_question_of_the_users_own_after_context_and_a_comma_is_the_goal() {
    for text in [
        "im halfway through the banana bread and I only have one egg, can I use applesauce \
         for the other one",
        "I have a list of dicts from the api, how do I sort it by the date key",
        "we have two replicas behind the load balancer, is it safe to restart one",
    ] {
        reads_goal(text, Some(GoalType::QuestionAnswer));
    }
    // (After a problem the question asks for its fix.)
    reads_goal(
        "The nightly job sometimes runs twice, how do I stop that?",
        Some(GoalType::TaskExecution),
    );
}
