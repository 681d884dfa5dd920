//! Problem reports: where the subject ends and the problem starts, and which sentence holds it.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_task};

#[test]
fn a_verb_in_s_before_a_determiner_and_the_problem_is_the_problems() {
    reads_task(
        "Copy link button copies the wrong url on the share dialog",
        "Copy link button",
        "copies the wrong url",
    );
    reads_task(
        "the backup job uses the wrong bucket",
        "backup job",
        "uses the wrong bucket",
    );
    reads_task(
        "the weather widget uses the wrong timezone",
        "weather widget",
        "uses the wrong timezone",
    );
}

#[test]
fn a_short_vocabulary_word_in_s_is_no_typo() {
    // "uses" is "use" in -s, not a misspelt "users".
    let mut s = Session::new();
    s.user("my laptop uses way too much battery when zoom is open");
    assert_eq!(s.slot("target"), "laptop");
    assert!(
        s.slot("desired_change")
            .contains("uses way too much battery"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn what_the_users_thing_uses_or_has_is_context_before_the_report() {
    reads_task(
        "my dad has an old android tablet. the weather app shows yesterday's forecast",
        "weather app",
        "shows yesterday's forecast",
    );
    reads_task(
        "our startup uses supabase, and signups take ages to show up in the dashboard",
        "signups",
        "take ages to show up",
    );
    reads_task(
        "Our shop uses Shopify. Product images load slowly on mobile",
        "Product images",
        "load slowly",
    );
}

#[test]
fn a_negation_typed_without_its_apostrophe_reads_as_one() {
    reads_task(
        "the reset email hasnt arrived for an hour",
        "reset email",
        "hasnt arrived",
    );
    reads_task(
        "the sidebar icons arent aligned on firefox",
        "sidebar icons",
        "arent aligned",
    );
}

#[test]
fn a_path_and_its_line_after_an_error_is_where_not_what() {
    let mut s = Session::new();
    s.user("nginx -t says\nnginx: [emerg] unknown directive \"proxy_passs\" in /etc/nginx/sites-enabled/app:14");
    assert_eq!(
        s.slot("desired_change"),
        "fix: unknown directive \"proxy_passs\""
    );
}

#[test]
fn a_plain_verb_after_a_plural_further_back_starts_the_problem() {
    reads_task(
        "Onboarding emails go out in the wrong language",
        "Onboarding emails",
        "go out in the wrong language",
    );
    reads_task(
        "the invoices show up with the wrong currency",
        "invoices",
        "show up with the wrong currency",
    );
    // (A word that could be a verb heading more nouns is the subject's.)
    let mut s = Session::new();
    s.user("the weekly sales email went out with last week's numbers");
    assert_eq!(s.slot("target"), "weekly sales email");
}

#[test]
fn a_singulars_verb_keeps_a_compound_subject_whole() {
    reads_task(
        "The analytics export for March is empty",
        "analytics export for March",
        "empty",
    );
}

#[test]
fn a_command_in_backticks_before_a_paste_is_its_target() {
    let mut s = Session::new();
    s.user("fresh clone, `npm test` gives\n\nError: Cannot find module '../config/test.json'\nRequire stack:\n- /app/src/db.js");
    assert_eq!(s.slot("target"), "npm test");
    // (A sentence emptied by its fillers holds none: the fuzz test's case.)
    let mut s = Session::new();
    s.user(", \nunable to find");
}

#[test]
fn a_lead_word_before_a_noun_a_plural_and_a_plain_verb_names_the_thing() {
    reads_task(
        "Reset password emails go to spam",
        "Reset password emails",
        "go to spam",
    );
    reads_task(
        "Profile pictures upload sideways on iPhone",
        "Profile pictures",
        "upload sideways",
    );
}

#[test]
fn a_quoted_path_after_an_error_is_where_not_what() {
    let mut s = Session::new();
    s.user("webpack build:\nModule not found: Error: Can't resolve 'fs' in '/app/node_modules/dotenv/lib'");
    assert_eq!(s.slot("desired_change"), "fix: Can't resolve 'fs'");
}

#[test]
fn plural_subjects_take_the_plain_form_of_a_problem_verb() {
    reads_task(
        "Share links expire after an hour instead of a week",
        "Share links",
        "expire after an hour",
    );
}

#[test]
fn an_inability_in_any_form_reports_a_problem_and_a_time_is_no_thing() {
    for (text, problem) in [
        (
            "i haven't been able to log in since yesterday",
            "haven't been able to log in",
        ),
        (
            "we weren't able to deploy on friday",
            "weren't able to deploy",
        ),
        (
            "I can no longer open the settings page",
            "can no longer open the settings page",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            s.slot("desired_change").contains(problem),
            "{text}: {}",
            s.slot("desired_change")
        );
        // ("since yesterday", "friday": when, not what.)
        let target = s.slot("target");
        assert!(
            !target.contains("yesterday") && !target.contains("friday"),
            "{text}: {target}"
        );
    }
    // An inability before another kind of goal asks for that goal, reports nothing broken.
    let mut s = Session::new();
    s.user("i'm not able to decide between vue and react");
    assert_ne!(s.goal(), Some(GoalType::TaskExecution));
}

#[test]
fn a_quantifier_after_a_plural_ends_the_subject_and_a_past_verb_before_a_possessive_reports() {
    reads_task(
        "the map pins all pile up in one spot when zoomed out",
        "map pins",
        "pile up in one spot",
    );
    // ("eats all the memory": a quantifier before a determiner is the object's.)
    reads_task(
        "Search index rebuild eats all the memory on the box",
        "Search index rebuild",
        "eats all the memory",
    );
    reads_task(
        "our nightly etl job skipped yesterday's partition",
        "nightly etl job",
        "skipped yesterday's partition",
    );
}

/// "break" and "breaks" name what broke as "broke" does; a quantity after a lead word is no
/// object ("the staging deploy a few times a week").
#[test]
fn what_breaks_is_the_target_and_a_quantity_is_no_object() {
    reads_task(
        "Emoji in file names break the sync",
        "sync",
        "break the sync",
    );
    reads_task(
        "merges to main break the staging deploy a few times a week",
        "staging deploy",
        "break the staging deploy",
    );
}

/// How long a thing takes, told with "it takes": a slowness of the thing after the verb.
#[test]
fn a_long_wait_told_with_it_takes_is_a_slowness() {
    reads_task(
        "it takes about 30 seconds to load the dashboard",
        "dashboard",
        "fix: takes about 30 seconds to load the dashboard",
    );
    reads_task(
        "Takes forever to open a large project",
        "large project",
        "fix: Takes forever to open a large project",
    );
    // A question about how long is a question; a count of clicks is no wait.
    let mut s = Session::new();
    s.user("how long does it take to build the app?");
    assert_eq!(s.goal(), Some(GoalType::QuestionAnswer));
    let mut s = Session::new();
    s.user("it takes two clicks to get to settings");
    assert_eq!(s.goal(), None);
}

/// Verbs of what an export or a view does to its content are problem predicates: the lead
/// word before them names the feature ("Export to CSV ..." is no request to export).
#[test]
fn what_a_feature_cuts_or_truncates_is_its_problem() {
    reads_task(
        "Export to XLSX truncates long cell values",
        "Export to XLSX",
        "truncates long cell values",
    );
    reads_task(
        "the print view cuts off the right margin",
        "print view",
        "cuts off the right margin",
    );
}

/// A kind of problem named by a noun after the one word that says which, then its place:
/// the place's thing is the target, the word and the noun the problem.
#[test]
fn a_kind_of_problem_and_its_place() {
    reads_task(
        "Sorting bug in archived projects",
        "archived projects",
        "Sorting bug",
    );
    reads_task(
        "Encoding issue with the exported csv",
        "exported csv",
        "Encoding issue",
    );
    reads_task(
        "Latency spikes on the search api at noon",
        "search api",
        "Latency spikes",
    );
    // (After "on" a bare word says where it shows: the word before the noun stays the thing.)
    reads_task("Layout issue on tablets", "Layout", "issue on tablets");
}

/// What plural things do wrong, in the plain form after them, is their problem.
#[test]
fn plural_things_that_vanish_or_overlap() {
    reads_task(
        "map markers vanish when I zoom out",
        "map markers",
        "vanish when I zoom out",
    );
    reads_task(
        "chart labels overlap on narrow screens",
        "chart labels",
        "overlap on narrow screens",
    );
}

#[test]
fn it_after_a_condition_is_the_thing_the_condition_named() {
    for (text, target, problem) in [
        ("when I drag a card it doesn't move", "card", "doesn't move"),
        (
            "when i paste a url into the chat it doesn't turn into a link",
            "url",
            "doesn't turn into a link",
        ),
        // (The first thing the condition names, not a place after it.)
        (
            "when I drag a file onto the window it crashes",
            "file",
            "crashes",
        ),
        ("if you resize the window it flickers", "window", "flickers"),
        (
            "whenever I open a pdf they look blurry",
            "pdf",
            "look blurry",
        ),
    ] {
        reads_task(text, target, problem);
    }
}

#[test]
fn what_an_export_includes_or_omits_is_its_problem() {
    for (text, target, problem) in [
        (
            "Export to CSV includes deleted rows",
            "Export to CSV",
            "includes deleted rows",
        ),
        (
            "the weekly digest contains drafts",
            "weekly digest",
            "contains drafts",
        ),
        (
            "Backup zip omits attachments",
            "Backup zip",
            "omits attachments",
        ),
    ] {
        reads_task(text, target, problem);
    }
    // A verb inside a title's condition is the condition's: the title still asks how.
    let mut s = Session::new();
    s.user("Checking if a string contains only digits in JavaScript");
    assert_eq!(s.goal(), Some(GoalType::QuestionAnswer));
}

#[test]
fn a_subordinate_clause_decides_only_when_no_main_clause_reports() {
    for (text, target, problem) in [
        // A concession after the report.
        (
            "VLOOKUP returns #N/A even though the value is clearly in the other sheet",
            "VLOOKUP",
            "returns #N/A",
        ),
        // A qualifier after a contrast.
        (
            "stripe webhook signature verification fails in prod but not locally",
            "stripe webhook signature verification",
            "fails in prod",
        ),
        // Until when: the words stay the problem's.
        (
            "memory on the worker climbs until it gets OOM killed",
            "memory on the worker",
            "climbs until it gets OOM killed",
        ),
        // No main clause reports: the reason does.
        (
            "I can't log in because the password reset email never arrives",
            "password reset email",
            "never arrives",
        ),
    ] {
        reads_task(text, target, problem);
    }
}

#[test]
fn starting_again_and_timing_out_are_problems() {
    reads_task(
        "the onboarding tour starts again every time I log in",
        "onboarding tour",
        "starts again",
    );
    reads_task(
        "uploads over 100mb time out at exactly 60 seconds",
        "uploads over 100mb",
        "time out",
    );
    reads_task(
        "Subtitles drift out of sync after the first 10 minutes",
        "Subtitles",
        "drift out of sync",
    );
}

#[test]
fn a_condition_holds_its_own_verb_first() {
    reads_task(
        "when the wifi drops the sync queue loses everything it had",
        "sync queue",
        "loses everything",
    );
    reads_task("when I click save the app crashes", "app", "crashes");
}

#[test]
fn a_subordinate_clause_read_on_its_own_has_its_own_subject() {
    reads_task(
        "The tests pass until the database container restarts, then they all fail",
        "database container",
        "restarts",
    );
}

/// Round 12: a clause that says its thing works rules a cause out and reports nothing; the
/// clause that reports decides.
#[test]
fn a_clause_that_says_its_thing_works_reports_nothing() {
    for text in [
        "timestamps look fine to me",
        "the permissions seem ok",
        "the cert looks valid",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), None, "{text}");
    }
    for (text, target) in [
        (
            "the env vars seem ok but the container still cant reach the db",
            "container",
        ),
        (
            "the config looks right to me, the worker still ignores it",
            "worker",
        ),
        ("the totals are correct but the chart is wrong", "chart"),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.slot("target"), target, "{text}");
    }
    // A state joined to a problem is no statement that the thing works.
    let mut s = Session::new();
    s.user(
        "the integration suite is green on my machine and red in github actions every single time",
    );
    assert_eq!(s.slot("target"), "integration suite");
}

/// Round 12: nothing done where something should be reports the thing before it; a plain
/// verb's -s form before a place and its determiner is the verb; a wish opens no subject.
#[test]
fn nothing_done_a_verb_before_a_place_and_a_wish() {
    for (text, target, change) in [
        (
            "pipeline is green but nothing actually got deployed",
            "pipeline",
            "nothing actually got deployed",
        ),
        (
            "the cron runs but nothing shows up in the table",
            "cron",
            "nothing shows up in the table",
        ),
        (
            "[ui] tooltip on the annual/monthly pricing toggle renders behind the sticky header in safari only",
            "tooltip on the annual/monthly pricing toggle",
            "renders behind the sticky header",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.slot("target"), target, "{text}");
        assert!(
            has(&s.slot("desired_change"), change),
            "{text}: {}",
            s.slot("desired_change")
        );
    }
    for text in [
        "long day over here, hope yours is going better lol",
        "nothing fancy, just curious how you work",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_ne!(s.goal(), Some(GoalType::TaskExecution), "{text}");
    }
}

/// Round 12: words inside parentheses are a pasted expression, not words of the subject, so a
/// subject holding one still reports; a closing parenthesis never opens a value.
#[test]
fn an_expression_in_parentheses_inside_a_subject() {
    let mut s = Session::new();
    s.user("running total from SUM(amount) OVER (PARTITION BY account_id ORDER BY txn_date) resets halfway through the month");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        s.slot("target").starts_with("running total"),
        "{}",
        s.slot("target")
    );
    assert_eq!(
        s.slot("desired_change"),
        "fix: resets halfway through the month"
    );
}

#[test]
fn the_clause_after_a_leads_object_reports_its_problem() {
    // A problem named as a noun, then "where" or "when" and the report.
    reads_task(
        "fix the bug where the cart empties on refresh",
        "cart",
        "empties on refresh",
    );
    reads_task(
        "can you sort out the glitch where the sidebar flickers on hover",
        "sidebar",
        "flickers on hover",
    );
    // A thing and a relative clause: any verb after a lead asking for a repair.
    reads_task(
        "fix the DAG that keeps retrying forever",
        "DAG",
        "keeps retrying forever",
    );
    reads_task(
        "could you debug the worker which restarts every hour",
        "worker",
        "restarts every hour",
    );
    // After other leads, only a problem word makes it a report.
    reads_task(
        "update the widget that keeps crashing",
        "widget",
        "keeps crashing",
    );
    let mut s = Session::new();
    s.user("update the page that lists orders");
    assert_eq!(s.slot("target"), "page");
    assert_eq!(s.slot("desired_change"), "");
}

#[test]
fn what_a_person_says_is_the_report() {
    // A person (a word of `people`, a pronoun, a name) and a verb of reporting: the words
    // after them are the clause.
    reads_task(
        "Marco says the invoice export on the billing page stops at 500 rows",
        "invoice export on the billing page",
        "stops at 500 rows",
    );
    reads_task(
        "a customer reported that the receipt email has the wrong store address",
        "receipt email",
        "has the wrong store address",
    );
    reads_task(
        "my boss told me the weekly report comes out empty",
        "weekly report",
        "comes out empty",
    );
    // A lead word before the verb is whoever reports.
    reads_task(
        "support told me the magic link expires too fast",
        "magic link",
        "expires too fast",
    );
}

#[test]
fn a_spaced_dash_ends_a_clause() {
    reads_task(
        "The date filter on the audit log is off by a day - events after midnight land on the previous day",
        "date filter on the audit log",
        "off by a day",
    );
}

#[test]
fn right_or_straight_after_a_verb_in_s_keeps_it_a_verb() {
    // "right" and "straight" intensify what follows a verb ("right away", "straight to"): the
    // word in -s before them is the verb, not a plural noun of the subject.
    reads_task(
        "the sync service exits right after it connects to the queue",
        "sync service",
        "exits right after it connects",
    );
    reads_task(
        "password reset mail bounces straight back from gmail",
        "password reset mail",
        "bounces straight back",
    );
}

#[test]
fn a_thing_the_user_has_with_a_problem_word_before_it_is_the_target() {
    // `having` ("i have", "there's" ...): a problem word before a noun after one is what is
    // wrong with the thing the noun names.
    reads_task(
        "we have a flaky integration test in the billing service",
        "integration test in the billing service",
        "flaky",
    );
    reads_task(
        "there's a broken thumbnail on the gallery page",
        "thumbnail on the gallery page",
        "broken",
    );
    // (What the user gets is the problem itself.)
    reads_task(
        "i get a blank screen when i open the invoices tab",
        "invoices tab",
        "blank screen",
    );
}

#[test]
fn numbered_steps_on_lines_under_a_label_are_context() {
    // "Steps:" alone on its line, then "1. ...", "2. ...": the steps are the report's context,
    // no request of their own; the title before them is the report.
    reads_task(
        "Sync icon keeps spinning forever after a reconnect\n\nSteps to reproduce:\n1. enable airplane mode\n2. wait a minute\n3. disable it again",
        "Sync icon",
        "keeps spinning forever",
    );
    reads_task(
        "Uploaded avatars come out rotated\n\nSteps:\n- open the profile screen\n- pick a portrait photo\n- save",
        "Uploaded avatars",
        "come out rotated",
    );
}

#[test]
fn a_verb_and_its_preposition_before_a_problem_word_belong_to_the_problem() {
    // "lands on a blank page", "goes to an empty screen": the verb ends the subject even with
    // a preposition between it and the article.
    reads_task(
        "the invite link lands on a blank page for new users. Actual: console shows a 404",
        "invite link",
        "lands on a blank page",
    );
}

#[test]
fn a_question_about_this_after_a_report_asks_to_fix_it() {
    // Rule 6: "..., how do I stop this?" after a clause that reports what a thing does asks
    // how to fix it: the report, read by its verb, wins; a question after context stays one.
    reads_task(
        "the RecyclerView redraws every row on each keystroke, how do i stop this?",
        "RecyclerView",
        "redraws every row",
    );
    reads_goal(
        "i have a django app on a vps, how do i add https to it?",
        Some(GoalType::QuestionAnswer),
    );
}

#[test]
fn an_issue_templates_headings_are_no_sentences_and_its_context_sections_are_context() {
    // "**Describe the bug**" is a heading, no request to describe; the sections under
    // context headings ("To Reproduce", "Expected behavior", "Environment") are context; the
    // report is the section under the bug's heading.
    reads_task(
        "**Describe the bug**\nthe reminder banner stays visible after I dismiss it\n\n**To Reproduce**\n1. open the dashboard\n2. click the x on the banner\n\n**Expected behavior**\nbanner goes away\n\n## Environment\nChrome 126, build 4.2",
        "reminder banner",
        "stays visible after I dismiss it",
    );
    // A feature template: the problem section is background, the solution is the request.
    let mut s = Session::new();
    s.user("**Is your feature request related to a problem? Please describe.**\nI can never find the invoices I starred.\n\n**Describe the solution you'd like**\nAdd a starred filter to the invoice list.\n\n**Additional context**\nteam plan");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "invoice list");
    assert!(
        has(&s.slot("desired_change"), "starred filter"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn the_setup_named_after_a_report_and_a_feeling_are_no_requests() {
    // "android 14, pixel 7, latest version from the play store" after the report is its
    // environment; "super annoying on my commute" a feeling. The report decides.
    reads_task(
        "uploads stall at 99% whenever the screen locks. ios 17.5, iphone 13, latest version from the app store. super annoying",
        "uploads",
        "stall at 99%",
    );
    // (A setup sentence alone, or one opened by a lead, still reads: "make an itinerary for
    // 4 days".)
    reads_goal(
        "I'm planning a trip to porto in june. make an itinerary for 3 days",
        Some(GoalType::ArtifactCreation),
    );
}

#[test]
fn steps_on_lines_beside_steps_in_a_sentence_read_without_harm() {
    // A list of steps on lines before a label's steps in one sentence (found by the two
    // passes in either order) is read, never sliced backwards.
    for text in [
        "Environment:\n- macOS 14\n- Node 20\nSteps to reproduce: 1. open settings 2. switch the language to German",
        "Steps:\n- open settings\nSteps to reproduce: 1. open settings 2. reload",
    ] {
        let mut s = Session::new();
        s.user(text);
    }
    // (Many lists with a long gap before more steps: each gap is looked at once.)
    let text = format!(
        "{}{}\nSteps:\n{}",
        "Steps:\n- a\n".repeat(8),
        " ".repeat(30_000),
        "- a\n".repeat(8_000)
    );
    let mut s = Session::new();
    s.user(&text);
}

#[test]
fn where_a_thing_runs_before_another_sentence_is_its_setup() {
    reads_task(
        "Laravel 10 app, queue worker runs under supervisor on a single VPS. after every deploy \
         the worker keeps processing jobs with the old code until I restart it by hand",
        "worker",
        "keeps processing jobs",
    );
}

#[test]
fn a_participle_describing_a_plural_is_no_verb_of_the_sentence() {
    reads_task(
        "Recurring reminders set for the last day of the month skip February",
        "Recurring reminders set for the last day of the month",
        "skip February",
    );
    reads_task(
        "this snippet segfaults with libvexel 0.7 but not 0.6",
        "this snippet",
        "segfaults with libvexel 0.7",
    );
}

#[test]
fn where_a_thing_runs_reports_when_no_other_sentence_does() {
    let mut s = Session::new();
    s.user("The cron job runs on the first of the month. It skipped June.");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "cron job");
}
