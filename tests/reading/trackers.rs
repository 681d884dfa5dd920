//! Round 20: what a project's tracker, an exercise sheet and a spoken request hold. A "works
//! fine" line with its subject left out, a request put to whoever reads it, names of functions
//! in a statement, a change asked after a report in the same sentence, the file an error
//! names, and the edges a review of these rules found.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_holding, reads_task};

#[test]
fn a_behaviour_verb_before_a_fine_state_with_no_subject_tells_how_things_stand() {
    for text in [
        "Works fine in Chrome.",
        "runs perfectly on my linux box",
        "loaded ok this morning",
    ] {
        reads_goal(text, None);
    }
    // The report before it stands.
    reads_task(
        "The share sheet stays blank on iPad. Works fine on iPhone.",
        "share sheet",
        "blank on iPad",
    );
    // A condition or an exception after it reports.
    reads_goal(
        "works fine until I switch tabs",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn a_request_put_to_whoever_reads_it_is_a_request() {
    reads_goal(
        "Could someone put together a sample config for running it behind caddy?",
        Some(GoalType::ArtifactCreation),
    );
    reads_goal(
        "can anyone write a short migration guide from v1 to v2",
        Some(GoalType::ArtifactCreation),
    );
}

#[test]
fn a_word_right_before_an_opening_parenthesis_is_a_name() {
    let mut s = Session::new();
    s.user(
        "Write a Counter class with increment(), value() and reset(). The counter starts at zero.",
    );
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(s.conv.queued_goals.is_empty(), "{:?}", s.conv.queued_goals);
    assert!(
        s.slot("requirements").contains("reset()"),
        "{}",
        s.slot("requirements")
    );
    // A label's scope and a plural's mark stay words.
    reads_goal(
        "fix(parser): handle empty input",
        Some(GoalType::TaskExecution),
    );
    reads_goal(
        "remove the cached file(s) from the build folder",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn a_change_asked_after_a_report_in_the_same_sentence_decides() {
    reads_task(
        "the order history page is really slow, could you add a loading skeleton",
        "order history page",
        "loading skeleton",
    );
    reads_task(
        "the invoice pdf is broken on safari, can you add a plain download link as a fallback",
        "invoice pdf",
        "download link",
    );
    // A request about the report itself leaves the report.
    reads_task(
        "the settings sheet is broken on tablets, can you fix it",
        "settings sheet",
        "broken on tablets",
    );
    reads_task(
        "the nightly import is really slow, can you speed it up",
        "nightly import",
        "slow",
    );
}

#[test]
fn an_error_names_the_file_it_happened_in() {
    reads_holding(
        "TypeError: Cannot read properties of null (reading 'style') in popup.js",
        GoalType::TaskExecution,
        &[("target", "popup.js")],
    );
    reads_holding(
        "ReferenceError: browser is not defined at content-script.ts",
        GoalType::TaskExecution,
        &[("target", "content-script.ts")],
    );
}

#[test]
fn a_product_throwing_its_user_out_is_a_report() {
    reads_task(
        "Your app logged me out AGAIN in the middle of a booking",
        "app",
        "logged me out",
    );
    reads_task(
        "the banking app kicked me out twice while paying a bill",
        "banking app",
        "kicked me out",
    );
    // The user's own doing reports nothing.
    reads_goal("I logged out and back in and it works now", None);
}

#[test]
fn a_sentence_with_a_parenthesis_before_pasted_code_is_the_users() {
    reads_holding(
        "Rewrite this so it runs in O(n log n) rather than O(n^2):\n\nseen = 0\nfor i in range(len(xs)):\n    if xs[i] > 0:\n        seen += 1",
        GoalType::TaskExecution,
        &[("target", "this"), ("desired_change", "O(n log n)")],
    );
    reads_holding(
        "make this run in O(n) instead of O(n^2):\n\ntotal = 0\nfor x in xs:\n    total += x",
        GoalType::TaskExecution,
        &[("target", "this"), ("desired_change", "O(n)")],
    );
}

#[test]
fn a_numbered_exercise_label_may_stand_on_its_own_line() {
    reads_holding(
        "Problem 12 - Mirror words\nGiven a sentence, print every word reversed but keep the word order.",
        GoalType::ArtifactCreation,
        &[("requirements", "print every word reversed")],
    );
    reads_holding(
        "Exercise 4\nGiven a list of daily prices, return the best day to sell.",
        GoalType::ArtifactCreation,
        &[("requirements", "best day to sell")],
    );
    // Not a label with no number over a report.
    reads_goal(
        "Problem - printing is broken\nPrint preview shows nothing",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn saying_that_no_problem_was_met_reports_nothing() {
    for text in [
        "no issues so far",
        "zero errors since the upgrade",
        "No problems with the new router at all",
    ] {
        reads_goal(text, None);
    }
    // The report after it stands, and so does a title of what is missing.
    reads_task(
        "I've used the family plan for years and never had a single problem. Since Friday the kids' profiles won't load on the TV.",
        "kids' profiles",
        "won't load",
    );
    reads_goal(
        "No error message when the upload fails",
        Some(GoalType::TaskExecution),
    );
    reads_task(
        "no errors in the log but the page is blank",
        "page",
        "blank",
    );
}

#[test]
fn the_user_as_the_one_a_problem_happens_to_reports_it() {
    for (text, change) in [
        ("I was charged twice for my March invoice", "charged twice"),
        (
            "I keep getting logged out of the tracker app whenever my phone locks",
            "keep getting logged out",
        ),
        (
            "we've been double charged for the annual plan",
            "double charged",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            s.slot("desired_change").contains(change),
            "{text}: {}",
            s.slot("desired_change")
        );
    }
    // Told or asked to do something: no problem of the user's.
    reads_goal("I was told to restart it", None);
}

#[test]
fn thanks_said_as_what_the_user_came_to_say_asks_nothing() {
    for text in [
        "just wanted to say thank you, this saved me a whole weekend",
        "wanted to say thanks for keeping this maintained",
        "got it working, thanks",
    ] {
        reads_goal(text, None);
    }
    // Never mind and the user's own fix, with no comma between them, end the goal.
    let mut s = Session::new();
    s.user("the weekly export keeps failing on big workspaces");
    s.assistant("Which format are you exporting to?");
    s.user("nvm figured it out");
    assert_eq!(s.goal(), None);
}

#[test]
fn a_thing_that_keeps_disconnecting_reports_it() {
    reads_holding(
        "Disconnected from the sync server after a minute idle",
        GoalType::TaskExecution,
        &[("desired_change", "fix: disconnected from")],
    );
    // Asked to disconnect something: a request.
    reads_goal(
        "disconnect the old printer from my account",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn an_arrow_assigns_a_bare_setting_its_value() {
    reads_task(
        "bump default upload limit → 50mb",
        "default upload limit",
        "50mb",
    );
}

#[test]
fn audio_that_cuts_out_is_a_report() {
    reads_task(
        "my earbuds cut out every time the kettle is on",
        "earbuds",
        "cut out",
    );
    reads_task(
        "sound cuts out on the left speaker after a minute",
        "sound",
        "fix: cuts out",
    );
}

#[test]
fn a_feature_label_keeps_the_whole_change_it_names() {
    reads_holding(
        "Feature request: import highlights from a Kindle export",
        GoalType::TaskExecution,
        &[("desired_change", "import highlights from a Kindle export")],
    );
}

#[test]
fn a_kind_named_over_a_sentence_that_reports_is_the_reports_place() {
    reads_task(
        "calendar widget: events show up twice after a refresh",
        "events",
        "show up twice",
    );
    // What a kind must have, after its colon, still asks for it.
    reads_goal(
        "cron job: runs every night at 2am and emails the report",
        Some(GoalType::ArtifactCreation),
    );
    reads_goal(
        "sql query: monthly revenue per region, sorted by total",
        Some(GoalType::ArtifactCreation),
    );
}

#[test]
fn a_kind_with_its_purpose_keeps_what_follows_its_but() {
    reads_holding(
        "cron job to back up the db every night but skip sundays",
        GoalType::ArtifactCreation,
        &[
            ("component_type", "cron job"),
            ("requirements", "skip sundays"),
        ],
    );
    // A topic that names no kind leaves the request after its "but".
    reads_goal(
        "love the app but please add a widget for the home screen",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn the_review_of_round_20_finds_its_own_edges() {
    // A fine clause with a contrast after it still reports.
    for text in [
        "Works fine in Chrome, breaks in Safari.",
        "the build is green on my machine, red on CI",
        "the site is fine on my phone whereas on my tablet it's cut off",
    ] {
        reads_goal(text, Some(GoalType::TaskExecution));
    }
    // The assistant's name in a compound is the thing's.
    reads_holding(
        "ok bot traffic is up 40% since monday, can you add rate limiting",
        GoalType::TaskExecution,
        &[("target", "bot traffic")],
    );
    // Prose in parentheses and a problem word before one keep their words.
    reads_task("please fix(the typo) in the footer", "footer", "typo");
    // A request that points back, adds "also", or repairs the very thing leaves the report.
    for (text, target) in [
        ("the page is slow, can you add a spinner to it", "page"),
        ("the heater is broken, can you order a new one", "heater"),
        (
            "our nightly backup failed, could you rerun the backup",
            "nightly backup",
        ),
        (
            "the report has wrong totals, could you also add a chart of monthly revenue",
            "report",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.slot("target"), target, "{text}");
    }
    // A method, a host or a runtime with its version is no file.
    for text in [
        "SyntaxError: Unexpected end of JSON input at JSON.parse",
        "Error: connect ETIMEDOUT at smtp.gmail.com",
        "TypeError: fetch failed in Node.js 18 but works in the browser",
    ] {
        let mut s = Session::new();
        s.user(text);
        let t = s.slot("target");
        assert!(
            !["JSON.parse", "smtp.gmail.com", "Node.js"].contains(&t.as_str()),
            "{text}: {t}"
        );
    }
    // A person locking the user out, or a session signing them out and back in, is no
    // product throwing them out.
    reads_goal(
        "Slack signed me out and back in and now everything works",
        None,
    );
}

#[test]
fn a_value_set_on_the_thing_reported_is_the_change_asked() {
    reads_task(
        "the price is wrong, could you change it to $19",
        "price",
        "$19",
    );
    reads_task(
        "the font in the footer is too small, can you bump it to 16px",
        "font in the footer",
        "16px",
    );
    // A repair of it leaves the report.
    reads_task(
        "the nightly import is really slow, can you speed it up",
        "nightly import",
        "slow",
    );
}

#[test]
fn a_plural_after_a_word_of_quantity_is_counted_no_verb() {
    reads_task(
        "After updating to 2024.6 the motion sensors show unavailable every few hours and \
         only come back when I restart it",
        "motion sensors",
        "show unavailable",
    );
}

#[test]
fn a_sentence_telling_the_setup_beside_a_report_is_no_request() {
    reads_task(
        "After updating to 2024.6 the Zigbee motion sensors show 'unavailable' every few \
         hours. Logs just say `Device 0x4f2a did not respond to ping`. Running on a \
         Raspberry Pi 4 with a SONOFF dongle.",
        "Zigbee motion sensors",
        "show 'unavailable'",
    );
}

#[test]
fn a_problem_of_several_words_after_fix_the_is_the_change() {
    for (text, target, change) in [
        (
            "fix the off by one in the pagination helper",
            "pagination helper",
            "off by one",
        ),
        (
            "Fix the off-by-one in the orders query",
            "orders query",
            "off-by-one",
        ),
        (
            "fix the race condition in the cache layer",
            "cache layer",
            "race condition",
        ),
    ] {
        reads_task(text, target, change);
    }
}

#[test]
fn a_fallback_after_or_at_least_is_no_second_choice() {
    let mut s = Session::new();
    s.user("Please add a collapse button or at least let us resize it.");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("desired_change"), "collapse button"));
    assert!(!has(&s.slot("desired_change"), "resize"));
    assert!(!has(&s.slot("target"), "least"), "{}", s.slot("target"));
}

#[test]
fn sharing_a_kind_asks_for_one() {
    let mut s = Session::new();
    s.user("Can someone share a minimal Dockerfile for a Django app running on gunicorn?");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(has(&s.slot("component_type"), "dockerfile"));
}

#[test]
fn a_lead_word_before_a_noun_a_verb_in_s_and_a_determiner_names_the_thing() {
    reads_task(
        "Update query locks the whole table in MySQL 8",
        "Update query",
        "locks the whole table",
    );
    reads_task(
        "Add task opens the wrong dialog",
        "Add task",
        "opens the wrong dialog",
    );
}
