//! Rule 1 for pasted errors: the error line a paste states, the thing the user names around
//! it, the shapes errors take in one tool or another, and a problem the user meets ("i get
//! an error when ...").

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_holding, reads_task};

#[test]
fn a_paste_led_in_by_the_users_line_is_a_problem_of_the_thing_it_names() {
    for (text, target, change) in [
        (
            "the nightly backup script says:\nrsync error: some files/attrs were not transferred (code 23)",
            "nightly backup script",
            "some files/attrs were not transferred",
        ),
        (
            "logs from the billing worker:\nredis.exceptions.ConnectionError: Error 111 connecting to cache:6379. Connection refused.",
            "billing worker",
            "connecting to cache",
        ),
        (
            "cargo test gives me\nerror[E0308]: mismatched types\n  --> src/tax.rs:12:5",
            "cargo test",
            "mismatched types",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            has(&s.slot("target"), target),
            "{text}: {}",
            s.slot("target")
        );
        assert!(
            has(&s.slot("desired_change"), change),
            "{text}: {}",
            s.slot("desired_change")
        );
    }
}

/// Rule 1: a line after the paste that opens with a place says where it happens.
#[test]
fn a_place_after_a_paste_is_its_target() {
    let mut s = Session::new();
    s.user("mypy output:\nerror: Incompatible return value type (got \"str\", expected \"int\")\nin the invoice parser");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        has(&s.slot("target"), "invoice parser"),
        "{}",
        s.slot("target")
    );
    assert!(
        has(&s.slot("desired_change"), "incompatible return value type"),
        "{}",
        s.slot("desired_change")
    );
}

/// A line ending with words that point at the paste below leads it in as a colon does; a
/// verb in -ing opening the line names what the user was doing; the words before an error's
/// marker on its own line lead it in.
#[test]
fn pastes_led_in_by_pointers_gerunds_and_words_before_the_marker() {
    for (text, target, change) in [
        (
            "the deploy script fails with this\n\nError: EACCES: permission denied, mkdir '/srv/app/cache'",
            "deploy script",
            "permission denied",
        ),
        (
            "running pytest gives me\nModuleNotFoundError: No module named 'app'",
            "pytest",
            "No module named",
        ),
        (
            "kubectl apply keeps saying error: unable to recognize \"deploy.yaml\": no matches for kind \"Ingress\"",
            "kubectl apply",
            "no matches for kind",
        ),
    ] {
        reads_task(text, target, change);
    }
}

/// A compiler's line with a level and a code anywhere on it is an error; a route the user
/// names around a paste is its thing; a line that ends "with" leaves the problem to the paste.
#[test]
fn coded_levels_routes_and_problems_told_by_the_paste() {
    for (text, target, change) in [
        (
            "npm run build\n\nsrc/api/client.ts:14:7 - error TS2322: Type 'string' is not assignable to type 'number'.",
            "npm run build",
            "Type 'string' is not assignable",
        ),
        (
            "getting this on every request to /orders\n\nsqlalchemy.exc.IntegrityError: null value in column \"customer_id\" violates not-null constraint",
            "/orders",
            "violates not-null constraint",
        ),
        (
            "my docker build stops at step 5 with\nE: Unable to locate package libpq-dev",
            "my docker build",
            "Unable to locate package",
        ),
    ] {
        reads_task(text, target, change);
    }
}

/// Pastes of more tools: a line after the paste saying when it happens, MySQL's coded level
/// in the user's sentence, a line opening with a place, a context before the thing, an error
/// asked about with "why".
#[test]
fn pastes_of_more_tools() {
    for (text, target, change) in [
        (
            "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON\nwhen the dashboard loads",
            "dashboard",
            "Unexpected token",
        ),
        (
            "mysql keeps saying ERROR 1040 (HY000): Too many connections",
            "mysql",
            "Too many connections",
        ),
        (
            "in the checkout page i see\nTypeError: undefined is not an object (evaluating 'cart.items.length')",
            "checkout page",
            "undefined is not an object",
        ),
        (
            "why am I getting 'Permission denied (publickey)' when pushing to github",
            "github",
            "Permission denied (publickey)",
        ),
    ] {
        reads_task(text, target, change);
    }
}

#[test]
fn an_error_led_in_on_its_own_line_and_a_status_code_with_its_reason() {
    // The user's words and a colon before an error on the same line lead it in.
    reads_task(
        "xcode archive fails: Command PhaseScriptExecution failed with a nonzero exit code",
        "xcode archive",
        "Command PhaseScriptExecution failed",
    );
    // A status code belongs to its reason.
    reads_task(
        "getting a 413 Request Entity Too Large from nginx when uploading videos",
        "nginx",
        "413 Request Entity Too Large",
    );
}

#[test]
fn error_headings_quoted_errors_bracketed_codes_and_nouns_before_a_modal() {
    // A heading that is only a marker leaves the error to the line that states it.
    let mut s = Session::new();
    s.user("Unhandled Runtime Error\nError: Hydration failed because the initial UI does not match what was rendered on the server.");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        has(&s.slot("desired_change"), "Hydration failed because"),
        "{}",
        s.slot("desired_change")
    );
    // An error the user quotes in a sentence: the quotes hold it, the words before lead it in.
    reads_task(
        "why does my build say \"Module not found: Can't resolve 'fs'\" when I import the pdf library",
        "my build",
        "Module not found: Can't resolve 'fs'",
    );
    // A bracketed code goes, a quoted name after the message is what it concerns.
    reads_task(
        "PermissionError: [Errno 13] Permission denied: '/var/log/app/worker.log'",
        "/var/log/app/worker.log",
        "Permission denied",
    );
    // (A word in parentheses stays with the message.)
    reads_task(
        "ssh into the runner fails:\nuser@10.0.3.14: Permission denied (publickey).",
        "ssh",
        "Permission denied (publickey)",
    );
    // A plural in -s before a modal is the subject's noun, not a verb.
    reads_task(
        "the invoice emails should include a pdf copy",
        "invoice emails",
        "include a pdf copy",
    );
    // Titles without their copula: "focus ring invisible on the dark theme".
    reads_task(
        "[a11y] focus ring invisible on the dark theme",
        "focus ring",
        "invisible on the dark theme",
    );
}

#[test]
fn errors_in_single_quotes_and_codes_with_their_address() {
    reads_task(
        "why do I get 'Uncaught SyntaxError: Unexpected token <' in the console after deploying?",
        "",
        "Unexpected token <",
    );
    let mut s = Session::new();
    s.user(
        "why do I get 'Uncaught SyntaxError: Unexpected token <' in the console after deploying?",
    );
    assert!(!has(&s.slot("desired_change"), "console"));
    reads_task(
        "getting ECONNREFUSED 127.0.0.1:5432 when the app starts inside docker compose",
        "app",
        "ECONNREFUSED 127.0.0.1:5432",
    );
    // (An apostrophe is no quote: "doesn't" opens nothing.)
    reads_task(
        "getting EACCES /var/run/docker.sock when the worker starts",
        "worker",
        "EACCES /var/run/docker.sock",
    );
}

#[test]
fn the_thing_before_an_introducer_is_the_target_of_a_quoted_error() {
    reads_task(
        "flutter run gives me 'Gradle task assembleDebug failed with exit code 1'",
        "flutter run",
        "Gradle task assembleDebug failed",
    );
}

#[test]
fn round_7_errors_particles_persons_and_verbs_in_ies() {
    // A heading that is only the marker, with its colon.
    let mut s = Session::new();
    s.user("stacktrace:\nException in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"name\" is null\n\tat com.acme.App.greet(App.java:14)");
    assert!(
        has(&s.slot("desired_change"), "Cannot invoke"),
        "{}",
        s.slot("desired_change")
    );
    // A request a tool names after a dash.
    let mut s = Session::new();
    s.user("npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fui - Not found");
    assert!(
        !has(&s.slot("desired_change"), "registry"),
        "{}",
        s.slot("desired_change")
    );
    // A particle before the value.
    let mut s = Session::new();
    s.user("turn the hallway light off at 11");
    assert!(has(&s.slot("target"), "hallway light"));
    assert!(has(&s.slot("desired_change"), "off at 11"));
    // A person and a modal before the verb.
    reads_task(
        "it'd be great if we could export the chat history as pdf",
        "chat history",
        "export the chat history as pdf",
    );
    // A verb in -ies.
    reads_task(
        "the webhook retries forever if the endpoint returns 410",
        "webhook",
        "retries forever",
    );
    // Hope as a polite form.
    let mut s = Session::new();
    s.user("hoping you can add shortcuts for bold and italic in the editor");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
}

#[test]
fn a_tools_first_line_in_an_error_block_is_the_cause() {
    let mut s = Session::new();
    s.user("Xcode archive fails with\nld: framework not found Pods_MyApp\nclang: error: linker command failed with exit code 1 (use -v to see invocation)");
    assert!(
        has(&s.slot("desired_change"), "framework not found"),
        "{}",
        s.slot("desired_change")
    );
}

/// A traceback pasted on one line (a chat box that flattens it) states its exception after its
/// frames, and code at the module's top level names its file; read as the same paste on its
/// lines is.
#[test]
fn a_traceback_pasted_on_one_line_states_its_exception_last() {
    reads_task(
        "Traceback (most recent call last): File \"app.py\", line 12, in <module> KeyError: 'DATABASE_URL'",
        "app.py",
        "KeyError: 'DATABASE_URL'",
    );
    let mut s = Session::new();
    s.user(
        "Traceback (most recent call last): File \"etl/run.py\", line 40, in load_rows ValueError: invalid literal for int() with base 10: 'n/a'",
    );
    assert_eq!(s.slot("target"), "load_rows");
    assert!(
        s.slot("desired_change")
            .starts_with("fix: invalid literal for int()"),
        "{}",
        s.slot("desired_change")
    );
}

/// A no-break space before the exception of a flattened traceback is whitespace of two bytes;
/// an exception on the last line of a traceback on its lines keeps its own name.
#[test]
fn a_flattened_traceback_with_wide_spaces_and_one_on_its_lines() {
    let mut s = Session::new();
    s.user("Traceback (most recent call last): File \"app.py\", line 12, in <module>\u{a0}KeyError: 'DATABASE_URL'");
    assert!(
        has(&s.slot("desired_change"), "KeyError"),
        "{}",
        s.slot("desired_change")
    );
    let mut s = Session::new();
    s.user("Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n    main()\nRuntimeError: task failed, cause was ConnectionError: refused");
    assert!(
        has(&s.slot("desired_change"), "RuntimeError"),
        "{}",
        s.slot("desired_change")
    );
}

/// An error quoted in the user's sentence, then what they were doing: the doing's object is
/// the thing, before a place after it; a thing named before the doing stays first.
#[test]
fn an_inline_error_while_doing_something_is_the_problem_of_what_was_done() {
    for (text, target) in [
        (
            "i get 'access denied' when running the backup script on the nas",
            "backup script",
        ),
        (
            "seeing 'connection reset by peer' while uploading the backup to the bucket",
            "backup",
        ),
        (
            "we keep getting a 504 Gateway Timeout from the proxy when exporting reports",
            "proxy",
        ),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("target", target)]);
    }
}

/// An exception's name dotted with its module opens the error's line: it is the error's,
/// no thing of the user's, and the trace's frame names the thing.
#[test]
fn a_dotted_exception_name_is_no_thing() {
    let mut s = Session::new();
    s.user(
        "Traceback (most recent call last):\n  File \"jobs.py\", line 12, in nightly_export\n    \
         upload(path)\nbotocore.exceptions.NoCredentialsError: Unable to locate credentials",
    );
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "nightly_export");
    assert!(
        has(&s.slot("desired_change"), "Unable to locate credentials"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn a_problem_the_user_meets_is_the_problem() {
    // What the user gets or sees names a problem: the problem is that noun phrase, the thing
    // the sentence names (or what the user was doing) the target.
    reads_task(
        "i get an error when i open the invoices page",
        "invoices page",
        "error",
    );
    reads_task(
        "we're seeing a 503 from the image proxy every few minutes",
        "image proxy",
        "503",
    );
    reads_task(
        "after the upgrade i keep getting timeouts from the search service",
        "search service",
        "timeouts",
    );
    reads_task(
        "when i click refresh on /reports in staging i get a 404",
        "/reports in staging",
        "404",
    );
    reads_task(
        "getting a blank screen after login on the android app",
        "android app",
        "blank screen",
    );
    reads_task(
        "I see duplicated rows in the export since yesterday",
        "export",
        "duplicated rows",
    );
    reads_task(
        "ive been getting random logouts on the staff portal",
        "staff portal",
        "random logouts",
    );
    // Punctuation ends the problem; a line break before the introducer opens a sentence.
    let mut s = Session::new();
    s.user("i get an error, no idea why");
    assert_eq!(s.slot("desired_change"), "fix: error");
    reads_task("hi\ngetting a 502 from the gateway", "gateway", "502");
    // What the user does not meet, and what names no problem, report nothing.
    for text in [
        "i see no errors in the console",
        "i don't get any warnings when i build",
        "i never see a warning when i build",
        "i get the idea",
        "we get a lot of traffic on mondays",
        "I get an email from the scheduler every morning",
        "i see what you mean",
        // (A number with a sign after it is no status: no slicing inside the sign.)
        "i get a 4€ discount on every order",
    ] {
        reads_goal(text, None);
    }
}

#[test]
fn an_error_in_a_code_span_or_block_is_pasted() {
    // A fenced line is pasted even when it reads like a sentence: its message is read past
    // the exception's dotted name and its level.
    let mut s = Session::new();
    s.user("seeing this when the worker boots since the upgrade\n```\ncom.acme.jobs.QueueConfigException: error: cannot bind the retry queue to the default exchange\n```");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(
        &s.slot("desired_change"),
        "cannot bind the retry queue to the default exchange"
    ));
    assert!(!has(&s.slot("desired_change"), "error:"));
    // In backticks the error ends where they close; the words after them name the thing.
    reads_task(
        "`TimeoutError: operation timed out after 30000ms` coming from the billing worker",
        "billing worker",
        "operation timed out after 30000ms",
    );
}

#[test]
fn the_users_line_with_an_inflected_problem_verb_wins_over_the_paste() {
    // "panics", "panicked", "stalls": problem words in every form, so the user's own line
    // above a paste is the report and the paste its evidence.
    reads_task(
        "the resize worker panics on images over 40 megapixels\n\n```\nthread 'worker-3' panicked at src/resize.rs:88:14:\ncapacity overflow\n```",
        "resize worker",
        "panics on images over 40 megapixels",
    );
}

#[test]
fn a_component_tag_after_an_error_is_the_thing_and_ends_the_message() {
    // "... in <CartDrawer> when ...": the user names the component as a tag after the error.
    reads_task(
        "TypeError: Cannot read properties of null (reading 'length') in <CartDrawer> when the cart is empty",
        "CartDrawer",
        "Cannot read properties of null",
    );
    let mut s = Session::new();
    s.user("Uncaught RangeError: Invalid time value inside <DatePicker /> on safari");
    assert_eq!(s.slot("target"), "DatePicker");
    assert!(!has(&s.slot("desired_change"), "DatePicker"));
}

#[test]
fn an_error_told_in_a_sentence_is_about_its_subject() {
    // (Round 23: an error line that reads as a report names its thing as a report does:
    // "Pod stuck in CrashLoopBackOff"; a tool's own words name none, "TypeError: ...".)
    for (text, target) in [
        (
            "Pod stuck in CrashLoopBackOff, last state Terminated with exit code 137",
            "pod",
        ),
        (
            "nightly import job dies with exit code 137 around 3am",
            "import job",
        ),
        (
            "npm install fails with ERESOLVE unable to resolve dependency tree",
            "npm install",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            has(&s.slot("target"), target),
            "{text}: {}",
            s.slot("target")
        );
    }
    let mut s = Session::new();
    s.user("TypeError: Cannot read properties of null (reading 'addEventListener')");
    assert!(
        !s.slot("target").contains("TypeError"),
        "{}",
        s.slot("target")
    );
}

#[test]
fn a_constants_code_opening_a_line_marks_an_error_and_a_thousands_comma_ends_nothing() {
    reads_holding(
        "ERR_QUEUE_FULL: upload queue rejected the file after 500 entries",
        GoalType::TaskExecution,
        &[("desired_change", "upload queue rejected the file")],
    );
    // A label of a list is no error.
    let mut s = Session::new();
    s.user("SHOPPING_LIST: milk, eggs");
    assert_ne!(s.slot("desired_change"), "fix: milk, eggs");
    reads_task(
        "the invoice total shows $12,500 instead of the $1,250 we billed",
        "invoice total",
        "shows $12,500 instead of the $1,250 we billed",
    );
}

/// Round 27: a panic line that ends with its source location and a colon goes on with its
/// message on the next line; a plea under a trace ("any idea why??") names no thing.
#[test]
fn a_panic_message_on_the_next_line_is_the_problem_and_a_plea_names_nothing() {
    let mut s = Session::new();
    s.user(
        "thread 'main' panicked at src/ledger/import.rs:212:9:\n\
         index out of bounds: the len is 3 but the index is 7\n\
         note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\
         only when i run `ledger import` on an empty csv",
    );
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        s.slot("desired_change").contains("index out of bounds"),
        "{}",
        s.slot("desired_change")
    );
    assert!(
        s.slot("target").contains("ledger import"),
        "{}",
        s.slot("target")
    );
    let mut s = Session::new();
    s.user(
        "Exception in thread \"main\" java.lang.IllegalStateException: queue already closed\n\
         \tat com.parcelly.Dispatcher.send(Dispatcher.java:88)\n\n\
         any idea why??",
    );
    assert!(!s.slot("target").contains("idea"), "{}", s.slot("target"));
    // (A remark after a comma on the line under a paste names nothing: the thing is in its
    // first clause.)
    let mut s = Session::new();
    s.user(
        "ValueError: could not convert string to float: 'n/a'\n\n\
         getting this in step 4 of the pricing notebook, the price column is definitely numeric \
         in the source table",
    );
    assert!(
        s.slot("target").contains("pricing notebook"),
        "{}",
        s.slot("target")
    );
}

#[test]
fn a_title_of_the_users_own_above_a_paste_names_the_thing() {
    let mut s = Session::new();
    s.user(
        "Self-hosted runner container keeps restarting with exit code 137 after ~10 min\n\n\
         ```\nrunner-1  | [2024-05-14 09:12:44Z] Listening for Jobs\n\
         runner-1 exited with code 137\n```\nhost has 4GB RAM",
    );
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        has(&s.slot("target"), "runner container"),
        "{}",
        s.slot("target")
    );
}

#[test]
fn a_repair_of_a_demonstrative_above_a_paste_fixes_its_error() {
    let mut s = Session::new();
    s.user(
        "can you fix this?\n\nTypeError: Cannot read properties of undefined (reading 'id')\n    \
         at render (app.js:12:5)",
    );
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(
        has(
            &s.slot("desired_change"),
            "cannot read properties of undefined"
        ),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn a_compilers_numbered_source_line_names_no_thing() {
    let mut s = Session::new();
    s.user(
        "error[E0502]: cannot borrow `inventory` as mutable because it is also borrowed as \
         immutable\n  --> src/main.rs:42:9\n   |\n40 |     let slot = inventory.first_free();\n   \
         |                --------- immutable borrow occurs here\n41 |     if let Some(s) = slot \
         {\n42 |         inventory.stack(s, item, 64);\n   |         ^^^^^^^^^ mutable borrow \
         occurs here",
    );
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_ne!(s.slot("target"), "40");
}
