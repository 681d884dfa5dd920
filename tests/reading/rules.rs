//! The reader's rules, one class of messages per test, each with messages of its class.

use convstate::conversation::{GoalType, SlotStatus};

use super::session::{Session, has, reads_goal, reads_holding, reads_task};

/// A target keeps the place or owner after it; "to" brings the value.
#[test]
fn a_target_keeps_its_place_and_the_value_follows_to() {
    let mut s = Session::new();
    s.user("lower the volume on the bedroom speaker to 20");
    assert_eq!(s.slot("target"), "volume on the bedroom speaker");
    assert_eq!(s.slot("desired_change"), "20");
}

/// Rule 5: "it" refers to the active goal's work; with no goal active, a task lead and "it"
/// with words after it starts a task whose target is still open.
#[test]
fn it_with_no_goal_active_starts_a_task_with_its_target_open() {
    let mut s = Session::new();
    s.user("update it to use the new logo");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "");
    assert!(
        has(&s.slot("desired_change"), "use the new logo"),
        "{}",
        s.slot("desired_change")
    );
    // "Fix it" alone says nothing to start from.
    let mut s = Session::new();
    s.user("Fix it");
    assert_eq!(s.goal(), None);
}

/// A condition that is not asked ("when I ... the X freezes") reports its main clause's
/// problem; a question opened by "when" stays a question.
#[test]
fn a_condition_not_asked_reports_the_problem_of_its_main_clause() {
    let mut s = Session::new();
    s.user("when you scroll down the header disappears");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "header");
    assert!(
        has(&s.slot("desired_change"), "disappears"),
        "{}",
        s.slot("desired_change")
    );
    let mut s = Session::new();
    s.user("when does the store open");
    assert_eq!(s.goal(), Some(GoalType::QuestionAnswer));
}

/// Rule 1 for a contrast: a clause after "but" with no subject of its own shares the one
/// before it; its problem is the report.
#[test]
fn a_clause_after_but_without_a_subject_shares_the_one_before() {
    for (text, target, change) in [
        (
            "the build passes locally but fails on CI",
            "build",
            "fails on CI",
        ),
        (
            "the app works fine on wifi but crashes on 4g",
            "app",
            "crashes on 4g",
        ),
        (
            "login works but it doesn't remember me",
            "login",
            "remember me",
        ),
    ] {
        reads_task(text, target, change);
    }
}

/// An opening context ("since the update", "ever since yesterday") is no part of the
/// subject.
#[test]
fn an_opening_context_is_no_part_of_the_subject() {
    for (text, target) in [
        (
            "since the last release the login page loads forever",
            "login page",
        ),
        (
            "ever since yesterday my phone drains battery really fast",
            "phone",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert_eq!(s.slot("target"), target, "{text}");
    }
}

/// A feature named with its purpose after a lead ("add an option to ...", "can we get a way
/// to ..."): the whole phrase is the change, the purpose's thing the target.
#[test]
fn a_feature_with_its_purpose_after_a_lead_targets_what_the_purpose_names() {
    let mut s = Session::new();
    s.user("can we get a way to export the chart as png");
    assert_eq!(s.slot("target"), "chart");
    assert!(
        has(&s.slot("desired_change"), "export the chart as png"),
        "{}",
        s.slot("desired_change")
    );
    let mut s = Session::new();
    s.user("add a field to the signup form");
    assert_eq!(s.slot("target"), "signup form");
}

/// A topic, a comma, then a request that refers back to it: the request decides, the topic
/// is its target.
#[test]
fn a_request_after_a_topic_and_a_comma_targets_the_topic() {
    for (text, target, change) in [
        (
            "those warnings in the console, can we get rid of them",
            "those warnings in the console",
            "get rid of them",
        ),
        (
            "the reporting queries use a lot of GROUP_CONCAT, can you rewrite them",
            "reporting queries",
            "rewrite them",
        ),
    ] {
        reads_task(text, target, change);
    }
}

/// A lead holding its own demonstrative ("clean this up") states a task on it; "fix" with a
/// problem named as a noun and a place ("fix the typo in the footer") targets the place.
#[test]
fn demonstrative_leads_and_problems_named_as_nouns() {
    let mut s = Session::new();
    s.user("can you clean this up");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "this");
    for (text, target, change) in [
        ("fix the typo in the footer", "footer", "typo"),
        (
            "fix the 404 on the about page, then add a link to it from the footer",
            "about page",
            "404",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.slot("target"), target, "{text}");
        assert_eq!(s.slot("desired_change"), change, "{text}");
    }
}

/// A correction may restate its value with a lead ("no wait, make it a bar chart").
#[test]
fn a_correction_restated_with_a_lead_replaces_the_kind() {
    let mut s = Session::new();
    s.user("make a pie chart of monthly expenses");
    s.user("no wait, make it a bar chart");
    assert!(
        has(&s.slot("component_type"), "bar chart"),
        "{}",
        s.slot("component_type")
    );
    // A switch marker inside the correction ("actually", "instead") is the correction's.
    for reply in [
        "actually make it a weekly summary instead",
        "actually a weekly summary instead",
    ] {
        let mut s = Session::new();
        s.user("write a daily report email for the sales team");
        s.user(reply);
        assert_eq!(s.slot("component_type"), "weekly summary", "{reply}");
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation), "{reply}");
    }
}

/// A scope in a task's label is its target; "allow" names whom or what the doing is done to;
/// a cause's past verb breaks its object; a problem word heading a subject is a noun; "and"
/// with a pronoun after a task starts a further task.
#[test]
fn scopes_allowances_causes_and_problem_nouns() {
    for (text, target) in [
        ("feat(cli): add a --dry-run flag", "cli"),
        (
            "allow guests to check out without creating an account",
            "guests",
        ),
        ("[Feature] Allow exporting invoices as PDF", "invoices"),
        ("the update from friday broke the export", "export"),
        (
            "the fix for the timezone bug didn't work",
            "fix for the timezone bug",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert_eq!(s.slot("target"), target, "{text}");
    }
    let mut s = Session::new();
    s.user("fix the login redirect and deploy it to staging");
    assert_eq!(s.slot("target"), "login redirect");
    assert_eq!(s.conv.queued_goals.len(), 1);
}

/// Requests in their everyday forms: a noun phrase asked for with a courtesy, "what about
/// adding", "it should be possible to", "i'm missing a way to", a problem phrase "isn't
/// working".
#[test]
fn everyday_forms_of_requests_and_reports() {
    for (text, target, change) in [
        ("dark mode please", "", "dark mode"),
        ("csv export pls", "", "csv export"),
        (
            "what about adding a search bar to the header",
            "header",
            "search bar",
        ),
        (
            "it should be possible to undo a deleted comment",
            "deleted comment",
            "undo a deleted comment",
        ),
        (
            "i'm missing a way to bulk delete photos",
            "photos",
            "way to bulk delete photos",
        ),
        ("the sidebar isn't working", "sidebar", "isn't working"),
        ("polish the checkout flow", "checkout flow", ""),
    ] {
        reads_task(text, target, change);
    }
    // A lead inside a deferral is the user's own doing.
    let mut s = Session::new();
    s.user("let me check on my phone");
    assert_eq!(s.goal(), None);
}

/// A waiver whose words an extractor also matches waives the asked slot; a lead after a
/// contrast decides when the clause before it states no goal; npm's detail lines leave the
/// error to the line that states it; Python's top-level frame names its file.
#[test]
fn waivers_contrasts_and_tool_details() {
    let mut s = Session::new();
    s.user("create a contact form");
    s.assistant("What should it do? Which features do you need?");
    s.user("go with whatever is standard");
    assert_eq!(s.status("requirements"), Some(SlotStatus::Waived));
    let mut s = Session::new();
    s.user("npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree");
    assert!(has(
        &s.slot("desired_change"),
        "unable to resolve dependency tree"
    ));
    for (text, target, change) in [
        (
            "love the app but please add a widget for the home screen",
            "home screen",
            "widget",
        ),
        (
            "Traceback (most recent call last):\n  File \"app.py\", line 7, in <module>\n    import pandas as pd\nModuleNotFoundError: No module named 'pandas'",
            "app.py",
            "No module named 'pandas'",
        ),
        (
            "Chore - remove the unused lodash dependency",
            "unused lodash dependency",
            "remove",
        ),
    ] {
        reads_task(text, target, change);
    }
}

/// Settings in their everyday forms: a cap, a value asked as a question, a quantity that is
/// no place, an adverb that is the verb's.
#[test]
fn settings_in_everyday_forms() {
    for (text, target, change) in [
        ("cap the retries at 3", "retries", "3"),
        (
            "can the timeout be 60 seconds instead of 30",
            "timeout",
            "60 seconds",
        ),
        ("sort the list alphabetically", "list", "alphabetically"),
    ] {
        reads_task(text, target, change);
    }
    let mut s = Session::new();
    s.user("keep backups for 30 days instead of 7");
    assert_ne!(s.slot("target"), "30 days");
}

/// A short label of plain words before a dash is a title; a label's value that is a sentence
/// is a problem report, not a setting.
#[test]
fn dash_labels_and_sentences_after_a_label() {
    for (text, target, change) in [
        (
            "Login page - forgot password link does nothing",
            "forgot password link",
            "does nothing",
        ),
        (
            "mobile - the hamburger icon is misaligned",
            "hamburger icon",
            "misaligned",
        ),
        (
            "iOS: keyboard covers the message input",
            "keyboard",
            "covers the message input",
        ),
    ] {
        reads_task(text, target, change);
    }
    let mut s = Session::new();
    s.user("prettier: single quotes and no semicolons");
    assert_eq!(s.slot("target"), "prettier");
}

#[test]
fn wishes_with_contractions_demand_and_a_quoted_key_after_an_error_name() {
    // A phrase of the pattern files stands with its contractions swapped: "it'd" for "it
    // would", "doesn't" for "does not".
    reads_task(
        "it'd be useful to have an undo button in the editor",
        "editor",
        "undo button",
    );
    reads_task(
        "it would help to have a search box on the orders page",
        "orders page",
        "search box",
    );
    // A wish before the request itself, and demand reported for a feature.
    reads_task(
        "any chance we could get keyboard shortcuts in the editor?",
        "editor",
        "keyboard shortcuts",
    );
    reads_task(
        "customers keep asking for a dark theme in the mobile app",
        "mobile app",
        "dark theme",
    );
    // A message that opens with a quoted key keeps the error's name.
    reads_task(
        "the webhook handler throws KeyError: 'customer_id' when stripe sends a refund event",
        "webhook handler",
        "KeyError: 'customer_id'",
    );
    reads_task(
        "the importer raises KeyError: \"sku\" on the second sheet",
        "importer",
        "KeyError: \"sku\"",
    );
    // "drop" and "ditch" remove, as a task and as a change in review.
    reads_task(
        "drop the legacy_orders table",
        "legacy_orders table",
        "drop",
    );
    let mut s = Session::new();
    s.user("write a landing page for my yoga studio")
        .assistant("I'll start on it now.")
        .assistant("Here it is: <artifact>...</artifact>")
        .user("ditch the testimonials section");
    let goal = s.conv.current_goal.as_ref().unwrap();
    assert!(
        goal.requested_changes
            .last()
            .is_some_and(|c| has(c, "testimonials section")),
        "{:?}",
        goal.requested_changes
    );
}

#[test]
fn a_name_and_its_version_describe_and_more_actions_and_waivers() {
    // "X is vue 2" describes the stack; the report is the sentence after it.
    reads_task(
        "quick background: the frontend is vue 2 and we can't upgrade yet. the date picker shows the wrong week start",
        "date picker",
        "shows the wrong week start",
    );
    // (A number after an adverb is a value: this still reports.)
    reads_task(
        "I have an express app behind nginx. req.ip is always 127.0.0.1",
        "req.ip",
        "always 127.0.0.1",
    );
    // Actions that are their own change queue a second goal after "then".
    let mut s = Session::new();
    s.user("resize all the images in /static to 800px wide, then regenerate the sitemap");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.conv.queued_goals.len(), 1);
    // Leaving it to the assistant, in more words.
    for waiver in ["i'll leave that to you", "dunno, you tell me"] {
        let mut s = Session::new();
        s.user("make the onboarding flow better")
            .assistant("What should be different afterwards?")
            .user(waiver);
        assert_eq!(
            s.status("desired_change"),
            Some(SlotStatus::Waived),
            "{waiver}"
        );
    }
}

#[test]
fn abilities_asked_for_and_a_known_verb_inflected_after_the_thing() {
    // "be able to" is the request's intent.
    reads_task("I want to be able to pin messages", "messages", "pin");
    // A known verb in -s or -ed after the thing starts its result.
    reads_task(
        "Would be cool if the map showed traffic",
        "map",
        "showed traffic",
    );
    reads_task(
        "i wish the calendar synced with outlook",
        "calendar",
        "synced with outlook",
    );
}

#[test]
fn dislike_of_the_work_in_review_is_a_change_request() {
    for text in [
        "i don't like the green",
        "not a fan of the layout, can you try a two column version",
        "i do not like the footer",
    ] {
        let mut s = Session::new();
        s.user("build a landing page for my coffee shop")
            .user("go ahead")
            .assistant("Starting now.")
            .assistant("Here it is: <artifact>page</artifact>")
            .user(text);
        let goal = s.conv.current_goal.as_ref().unwrap();
        assert_eq!(goal.requested_changes.len(), 1, "{text}");
    }
}

#[test]
fn what_follows_a_demonstrative_lead_says_how_and_a_last_on_or_off_is_the_state() {
    reads_task(
        "rewrite this in a friendlier tone",
        "this",
        "in a friendlier tone",
    );
    reads_task("I'd like the dark theme on", "dark theme", "on");
    reads_task("i want the autosave off", "autosave", "off");
    // (Round 26: a noun right after the demonstrative is what it points at.)
    reads_task(
        "rewrite this loop so it stops allocating on every pass",
        "this loop",
        "stops allocating",
    );
}

#[test]
fn the_users_own_inability_is_a_problem_unless_it_asks_for_help() {
    let mut s = Session::new();
    s.user("I can't upload files larger than 10MB");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(
        &s.slot("desired_change"),
        "can't upload files larger than 10MB"
    ));
    reads_task(
        "nothing happens when I press the submit button",
        "submit button",
        "nothing happens",
    );
    reads_task(
        "we're unable to connect to the staging database",
        "staging database",
        "unable to connect",
    );
    // Not knowing how is a question; not being able to choose, an exploration.
    let mut s = Session::new();
    s.user("I can't figure out how to configure CORS in express");
    assert_eq!(s.goal(), Some(GoalType::QuestionAnswer));
    let mut s = Session::new();
    s.user("I can't decide between react and vue");
    assert_eq!(s.goal(), Some(GoalType::Exploration));
}

#[test]
fn a_plain_verb_after_a_plural_or_a_plural_and_its_place_reports() {
    reads_task("the emails go to spam", "emails", "go to spam");
    reads_task(
        "Emails from the contact form go to spam",
        "Emails from the contact form",
        "go to spam",
    );
    reads_task(
        "links in the footer open in a new tab",
        "links in the footer",
        "open in a new tab",
    );
    // (A noun phrase asked for stays a request.)
    reads_task(
        "keyboard shortcuts for the editor",
        "editor",
        "keyboard shortcuts",
    );
}

#[test]
fn a_lead_of_three_words_or_more_is_no_noun() {
    reads_task(
        "customers are asking for apple pay at checkout",
        "checkout",
        "apple pay",
    );
    // (A one-word lead before a predicate still is: "Deploy to staging keeps failing".)
    reads_task(
        "Deploy to staging keeps failing",
        "Deploy to staging",
        "keeps failing",
    );
}

#[test]
fn to_be_ends_the_thing_and_by_a_number_is_the_change() {
    reads_task(
        "I want the default sort to be newest first",
        "default sort",
        "newest first",
    );
    reads_task("reduce the logo size by half", "logo size", "by half");
    reads_task("raise prices by 5%", "prices", "by 5%");
}

#[test]
fn context_labels_and_how_a_thing_is_made_state_no_problem() {
    reads_task(
        "Context: b2b saas, 200 customers. the invoices page takes 10s to load",
        "invoices page",
        "takes 10s to load",
    );
    reads_task(
        "Our app is built with flutter. the splash screen stays white for 3 seconds",
        "splash screen",
        "stays white for 3 seconds",
    );
    reads_task(
        "the site is hosted on netlify. the forms don't submit",
        "forms",
        "don't submit",
    );
}

#[test]
fn a_verb_word_heading_a_noun_with_its_own_verb_is_a_subject() {
    reads_task(
        "share link opens a blank page",
        "share link",
        "opens a blank page",
    );
    reads_task(
        "print preview cuts off the last column",
        "print preview",
        "cuts off the last column",
    );
    // (A verb and its object stay a request: "export invoices as csv".)
    let mut s = Session::new();
    s.user("export invoices as csv");
    assert!(has(&s.slot("desired_change"), "export invoices as csv"));
}

#[test]
fn a_short_name_of_a_feature_alone_asks_for_it() {
    for text in ["SSO support", "Slack integration", "CSV export option"] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(has(&s.slot("desired_change"), text), "{text}");
    }
    // (Thanks for a thing asks for nothing.)
    let mut s = Session::new();
    s.user("thanks for the support");
    assert_eq!(s.goal(), None);
}

#[test]
fn a_plain_verb_after_a_plural_belongs_to_the_problem() {
    // (Before a problem word, and after a plural that follows a word of its own and a place.)
    reads_task(
        "after upgrading to v4 the charts render blank",
        "charts",
        "render blank",
    );
    reads_task(
        "the user avatars load slow on the team page",
        "user avatars",
        "load slow",
    );
}

#[test]
fn a_demand_lead_ending_in_to_is_who_wants_it() {
    reads_task(
        "users want to be able to change their username after signup",
        "their username",
        "change their username",
    );
    let mut s = Session::new();
    s.user("customers want to export their invoices as pdf");
    let change = s.slot("desired_change");
    assert!(has(&change, "export their invoices"), "{change:?}");
    assert!(!has(&change, "customers"), "{change:?}");
}

#[test]
fn a_comparison_is_a_result_and_a_word_before_a_modal_is_the_things() {
    reads_task(
        "make these buttons the same height",
        "these buttons",
        "the same height",
    );
    reads_task(
        "it would help a lot if the csv import could skip duplicate rows",
        "csv import",
        "skip duplicate rows",
    );
}

#[test]
fn a_filler_word_that_opens_a_longer_lead_is_the_lead() {
    // "look" alone is a filler ("look, I need ..."); "look at" leads a task.
    reads_task("look at the deploy script", "deploy script", "");
    let mut s = Session::new();
    s.user("look, I need a landing page for my bakery");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
}

#[test]
fn a_lead_word_before_a_plural_and_a_plain_verb_names_the_thing() {
    reads_task(
        "Profile pictures upload sideways on iPhone",
        "Profile pictures",
        "upload sideways",
    );
    // (A compound noun after the verb keeps the lead a verb.)
    let mut s = Session::new();
    s.user("change pandas display options so it shows all columns");
    assert!(
        has(&s.slot("target"), "display options"),
        "{}",
        s.slot("target")
    );
}

#[test]
fn what_should_exist_and_an_exception_named_in_a_sentence() {
    let mut s = Session::new();
    s.user("there should be a confirmation step before deleting a workspace");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("desired_change"), "confirmation step"));
    reads_task(
        "running migrations gives me django.db.utils.OperationalError: no such column: orders.discount_code",
        "migrations",
        "no such column",
    );
    // (A compiler's code alone opens an error line.)
    let mut s = Session::new();
    s.user("TS2339: Property 'userId' does not exist on type 'Request'");
    assert!(has(
        &s.slot("desired_change"),
        "Property 'userId' does not exist"
    ));
}

#[test]
fn an_approval_before_a_contrast_in_review_is_a_change_request() {
    for text in [
        "ok but use metric units please",
        "sure, but keep it under 200 words",
    ] {
        let mut s = Session::new();
        s.user("write a recipe card for banana bread")
            .user("go ahead")
            .assistant("Starting now.")
            .assistant("Here it is: <artifact>card</artifact>")
            .user(text);
        let goal = s.conv.current_goal.as_ref().unwrap();
        assert_eq!(goal.requested_changes.len(), 1, "{text}");
    }
    // (A plain approval still approves nothing new and changes nothing.)
    let mut s = Session::new();
    s.user("write a recipe card for banana bread")
        .user("go ahead")
        .assistant("Starting now.")
        .assistant("Here it is: <artifact>card</artifact>")
        .user("ok");
    let goal = s.conv.current_goal.as_ref().unwrap();
    assert!(goal.requested_changes.is_empty());
}

#[test]
fn nouns_by_their_ending_quantities_and_another_thing_after_also() {
    reads_task("Emoji reactions on comments", "comments", "Emoji reactions");
    reads_task(
        "half the images on the gallery page are missing alt text",
        "images on the gallery page",
        "missing alt text",
    );
    let mut s = Session::new();
    s.user("write a short bio for the conference site and also a one line tagline");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert_eq!(s.conv.queued_goals.len(), 1);
}

#[test]
fn a_kind_inside_a_longer_phrase_is_followed_by_its_description() {
    for (text, kind, req) in [
        (
            "draft a message announcing the new on-call rotation",
            "message",
            "announcing the new on-call rotation",
        ),
        (
            "generate a changelog from the last 20 commits",
            "changelog",
            "from the last 20 commits",
        ),
        (
            "could you write a quiz on the water cycle",
            "quiz",
            "on the water cycle",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
        assert!(has(&s.slot("component_type"), kind), "{text}");
        assert!(
            has(&s.slot("requirements"), req),
            "{text}: {}",
            s.slot("requirements")
        );
    }
}

#[test]
fn after_an_impersonal_wish_any_verb_is_wished_for() {
    let mut s = Session::new();
    s.user("it'd be cool to see the commit history right in the file viewer");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("desired_change"), "see the commit history"));
}

#[test]
fn after_a_need_a_phrase_without_article_or_verb_is_the_feature() {
    for (text, change) in [
        (
            "we really need audit logs for permission changes",
            "audit logs",
        ),
        (
            "we'd like webhooks when an invoice is paid",
            "webhooks when an invoice is paid",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(has(&s.slot("desired_change"), change), "{text}");
    }
    // ("I need a minute" names nothing.)
    let mut s = Session::new();
    s.user("I need a minute to think");
    assert_eq!(s.goal(), None);
}

#[test]
fn a_wish_that_names_a_benefit_ends_the_phrase() {
    for (text, change) in [
        (
            "having a search bar in the settings would save a lot of scrolling",
            "search bar",
        ),
        (
            "two-factor auth via SMS would make our security team happy",
            "two-factor auth via SMS",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        let read = s.slot("desired_change");
        assert!(has(&read, change), "{text}: {read}");
        assert!(
            !has(&read, "happy") && !has(&read, "scrolling"),
            "{text}: {read}"
        );
    }
}

#[test]
fn a_lead_word_as_a_label_gives_way_to_the_request_after_it() {
    reads_task(
        "refactor: extract the retry logic into a helper",
        "retry logic",
        "helper",
    );
    // (Upkeep named by its lead, and a purpose after it.)
    reads_task(
        "rotate the api keys for the staging env",
        "api keys for the staging env",
        "rotate",
    );
    let mut s = Session::new();
    s.user("clean up the Podfile so it only has the pods we actually use");
    assert!(has(&s.slot("desired_change"), "only has the pods"));
}

#[test]
fn an_artifacts_parts_after_including_or_a_colon_and_a_list_item_is_no_lead() {
    for (text, kind, req) in [
        (
            "design an admin panel including user management and an audit log view",
            "admin panel",
            "user management and an audit log view",
        ),
        (
            "create an onboarding flow: welcome screen, profile step and a short tour",
            "onboarding flow",
            "welcome screen, profile step and a short tour",
        ),
        (
            "a cli tool with subcommands for init, deploy and logs",
            "cli tool",
            "subcommands for init, deploy and logs",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
        assert!(has(&s.slot("component_type"), kind), "{text}");
        assert!(
            has(&s.slot("requirements"), req),
            "{text}: {}",
            s.slot("requirements")
        );
    }
}

#[test]
fn a_plain_verb_after_a_plural_and_its_place_makes_the_plural_its_subject() {
    reads_task(
        "calendar invites from outlook show up an hour off",
        "calendar invites from outlook",
        "show up an hour off",
    );
    reads_task(
        "Filter chips overflow the toolbar on small screens",
        "Filter chips",
        "overflow the toolbar",
    );
}

#[test]
fn a_reply_that_opens_with_a_waiver_waives_whatever_follows() {
    let mut s = Session::new();
    s.user("create a spreadsheet for me")
        .assistant("What should it do? Which features do you need?")
        .user("you decide what makes sense, I'm clueless with this stuff");
    assert_eq!(s.status("requirements"), Some(SlotStatus::Waived));
}

#[test]
fn a_determiner_inside_a_subject_and_a_direction_at_a_settings_end() {
    reads_task(
        "timezone for all reports should be UTC",
        "timezone for all reports",
        "UTC",
    );
    reads_task(
        "ringer volume all the way down",
        "ringer volume",
        "all the way down",
    );
    // (A wish spelled short opens a request of the thing.)
    reads_task(
        "wld be gr8 if the travel planner showed train options not just flights",
        "travel planner",
        "showed train options",
    );
}

#[test]
fn a_feature_verbs_own_short_object_is_the_target() {
    reads_task(
        "it would be really useful to filter invoices by status",
        "invoices",
        "filter invoices by status",
    );
    // (A gerund's object: "allow exporting invoices as PDF".)
    reads_task(
        "allow exporting invoices as PDF",
        "invoices",
        "allow exporting invoices as PDF",
    );
}

#[test]
fn help_asked_with_a_thing_is_a_task_whose_change_is_asked_next() {
    for (text, target) in [
        ("can you help with our logging setup", "logging setup"),
        ("take a look at the checkout flow", "checkout flow"),
        ("can you do something about the footer", "footer"),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(has(&s.slot("target"), target), "{text}");
    }
}

#[test]
fn an_aspect_of_a_thing_is_the_change_when_no_value_is_asked() {
    reads_task(
        "fix the alignment of the footer links",
        "footer links",
        "alignment",
    );
    // (A value after "to" stays the change: "change the color of the header to blue".)
    let mut s = Session::new();
    s.user("change the color of the header to blue");
    assert!(has(&s.slot("desired_change"), "blue"));
}

#[test]
fn a_verb_by_its_form_before_how_often_and_requests_at_a_bare_step() {
    reads_task(
        "[perf] search page re-renders on every keystroke",
        "search page",
        "re-renders on every keystroke",
    );
    reads_task(
        "customers are asking for apple pay at checkout",
        "checkout",
        "apple pay",
    );
    reads_task(
        "ideally the cli would print a summary table at the end",
        "cli",
        "print a summary table",
    );
}

#[test]
fn a_concession_after_the_problem_ends_it() {
    reads_task(
        "the Update Profile button is greyed out even after i change the name",
        "Update Profile button",
        "greyed out",
    );
    let mut s = Session::new();
    s.user("the Update Profile button is greyed out even after i change the name");
    assert!(!has(&s.slot("desired_change"), "change the name"));
}

#[test]
fn an_overview_explores() {
    let mut s = Session::new();
    s.user("give me an overview of the different meal kit services");
    assert_eq!(s.goal(), Some(GoalType::Exploration));
}

#[test]
fn what_a_thing_is_to_be_in_and_a_tour_explores() {
    reads_task(
        "rewrite these lines in Kotlin pls",
        "these lines",
        "in Kotlin",
    );
    // (A place with a determiner is no such thing.)
    let mut s = Session::new();
    s.user("update the readme in the docs folder");
    assert!(!has(&s.slot("desired_change"), "docs folder"));
    let mut s = Session::new();
    s.user("give me a tour of this nginx config");
    assert_eq!(s.goal(), Some(GoalType::Exploration));
}

/// Asking whether the assistant remembers the user is about the assistant.
#[test]
fn asking_what_the_assistant_remembers_states_no_goal() {
    use super::session::reads_goal;
    reads_goal("do you remember what we talked about yesterday?", None);
    reads_goal(
        "remind me to water the plants tomorrow",
        Some(GoalType::TaskExecution),
    );
}

/// A preference denied in other words, or the assistant's judgement named, waives the asked
/// slot.
#[test]
fn preferences_denied_and_judgement_named_waive_the_asked_slot() {
    for answer in [
        "doesn't really matter to me",
        "go with your gut",
        "whichever is easier",
        "no strong feelings either way",
        "just use sensible defaults",
        "whatever is most common",
        "your decision",
        "use your best judgment",
        "you have free rein",
        "make it however you want",
        "i'm not picky",
        "I don't have anything specific in mind",
        "i don't really have a preference",
        "no clue, go for it",
    ] {
        let mut s = Session::new();
        s.user("make a newsletter template");
        s.assistant("What should it include?");
        s.user(answer);
        assert_eq!(
            s.status("requirements"),
            Some(SlotStatus::Waived),
            "{answer}"
        );
    }
    // Parts given are no waiver.
    for answer in [
        "something nice and minimal with a dark theme",
        "an about page, projects, and a blog",
    ] {
        let mut s = Session::new();
        s.user("make a portfolio site");
        s.assistant("What should it include?");
        s.user(answer);
        assert_ne!(
            s.status("requirements"),
            Some(SlotStatus::Waived),
            "{answer}"
        );
    }
}

/// Round 12: a pronoun and its copula frame a correction's value ("it's the print button, not
/// export"), and a noun the new words share with what follows the old ones is kept once.
#[test]
fn a_correction_framed_by_a_pronoun_keeps_a_shared_noun_once() {
    for (reply, target) in [
        (
            "ah wait, it's the print button, not export",
            "print button on the reports screen",
        ),
        ("no, that is the footer", "footer"),
    ] {
        let mut s = Session::new();
        s.user("the export button on the reports screen stays grey after one click");
        s.user(reply);
        assert_eq!(s.slot("target"), target, "{reply}");
        assert!(has(&s.slot("desired_change"), "stays grey"), "{reply}");
    }
    // A complaint about the same thing corrects nothing.
    for reply in ["it is not working", "it's not working at all"] {
        let mut s = Session::new();
        s.user("the export button on the reports screen stays grey after one click");
        s.user(reply);
        assert_eq!(
            s.slot("target"),
            "export button on the reports screen",
            "{reply}"
        );
    }
}

/// Round 12's review: shapes the round's rules first misread, and inputs that made one panic.
#[test]
fn round_twelve_review() {
    // A clause that ends before a setting's value panicked (an index below zero).
    for text in [
        "whenever font size up to 15",
        "Whenever possible, page size to 50",
        "instead retries to 5 for this job",
        "Instead, retries to 5 for this job",
        "instead font size up to 15 for the terminal",
    ] {
        Session::new().user(text);
    }
    // A question followed by a request to act offers both.
    for text in [
        "what does this regex actually match, or can you just rewrite it so it's readable",
        "what's the difference between a mutex and a semaphore or make me a cheat sheet comparing them",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.conv.queued_goals.len(), 2, "{text}");
    }
    // A fine word followed by a condition of its own is a problem.
    for text in [
        "the totals are correct only on page one",
        "the session cookie is valid for just one request",
        "the CI badge is green for failed builds",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
    }
    // A scope needs a value before it; "screen" alone is no kind; a plural before "in" and
    // its place is a noun; "up" after a plural there is a position; "SO" is a site.
    for (text, target, change) in [
        (
            "my slack status to in a meeting until 3",
            "my slack status",
            "in a meeting until 3",
        ),
        (
            "a screen reader label for the search icon",
            "search icon",
            "screen reader label",
        ),
        (
            "thumbnails for recent uploads in the gallery",
            "gallery",
            "thumbnails for recent uploads",
        ),
        (
            "unread badges on the tabs up top",
            "tabs up top",
            "unread badges",
        ),
    ] {
        reads_task(text, target, change);
    }
    let mut s = Session::new();
    s.user("links to SO answers in the FAQ page");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
}

#[test]
fn a_dot_inside_a_word_is_part_of_the_kind() {
    reads_holding(
        "write a Next.js API route that handles stripe webhooks",
        GoalType::ArtifactCreation,
        &[("component_type", "Next.js API route")],
    );
    reads_holding(
        "make me a 6 week intermediate strength plan for the gym",
        GoalType::ArtifactCreation,
        &[("component_type", "intermediate strength plan")],
    );
}

#[test]
fn a_result_after_so_holds_its_own_values() {
    // A value or a particle inside the result the change is made for is the result's.
    reads_task(
        "update the backup job in ops/backup.yml so it runs at 3am instead of midnight",
        "backup job in ops/backup.yml",
        "it runs at 3am instead of midnight",
    );
    reads_task(
        "change the porch light schedule so it turns on at dusk",
        "porch light schedule",
        "it turns on at dusk",
    );
}

#[test]
fn a_verb_after_and_in_an_artifacts_purpose_is_part_of_it() {
    let mut s = Session::new();
    s.user("write a python script to download the daily sales csv and email it to the team");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(has(&s.slot("requirements"), "email it to the team"));
    assert!(s.conv.queued_goals.is_empty());
    // A repair or a question after "and" is a goal of its own.
    let mut s = Session::new();
    s.user("write a python script to resize images and fix the header on the blog");
    assert_eq!(s.conv.queued_goals.len(), 1);
    let mut s = Session::new();
    s.user("write a bash script that backs up my photos and tell me how to schedule it with cron");
    assert_eq!(s.conv.queued_goals.len(), 1);
}

#[test]
fn a_file_after_in_is_a_place_and_a_technology_is_what_it_is_to_be_in() {
    let mut s = Session::new();
    s.user("fix the cron expression in cron.yaml");
    assert_eq!(s.slot("desired_change"), "");
    let mut s = Session::new();
    s.user("rewrite the scraper in Node.js");
    assert_eq!(s.slot("desired_change"), "in Node.js");
}

#[test]
fn a_correction_is_its_first_sentence_and_a_dash_may_join_or_end_it() {
    // What follows the correction tells why; a dash joins "not X" to the new value, and ends
    // the new value otherwise.
    let mut s = Session::new();
    s.user("write a javascript script that renames files by date");
    s.user("no, python not javascript. the team doesn't do node");
    assert!(has(&s.slot("component_type"), "python script"));
    let mut s = Session::new();
    s.user("build a signup form in React");
    s.user("sorry, not React — Vue. the rest of the app is vue");
    assert!(has(
        &s.conv.current_goal.as_ref().unwrap().description,
        "Vue"
    ));
    // With no old value named, a thing replaces the thing with the same head noun.
    let mut s = Session::new();
    s.user("bump the request timeout on the payments service to 30 seconds");
    s.assistant("Sure, I'll set the request timeout on the payments service to 30 seconds.");
    s.user("wait no, I meant the billing service — payments is fine as it is");
    assert_eq!(s.slot("target"), "billing service");
    assert!(has(&s.slot("desired_change"), "30 seconds"));
}

#[test]
fn a_short_preface_before_but_and_a_lead_is_a_courtesy() {
    reads_goal(
        "random question, but how do i center a div",
        Some(GoalType::QuestionAnswer),
    );
    reads_goal(
        "quick one but write me a regex for emails",
        Some(GoalType::ArtifactCreation),
    );
    reads_task("sorry to bug you but can you fix the footer", "footer", "");
    // A report before "but" stays a report.
    reads_task(
        "the header looks fine but the footer overlaps",
        "footer",
        "overlaps",
    );
}

#[test]
fn replies_on_a_tracker_that_state_no_goal() {
    // An agreement with a report ("+1", "same here", "having the same issue"), a superlative
    // of praise.
    for text in [
        "+1",
        "same here",
        "+1, seeing the same thing on my galaxy s23",
        "having the same issue on windows 11",
        "this plugin is honestly the best thing that happened to my vim setup",
    ] {
        reads_goal(text, None);
    }
}

#[test]
fn an_error_marker_with_a_pronoun_object_is_the_users_own_words() {
    // "couldn't find it in the docs" tells what the user did, no tool's error: the question
    // before it stands.
    reads_goal(
        "does the sync client retry on 429s? could not find anything about it in the readme",
        Some(GoalType::QuestionAnswer),
    );
}

#[test]
fn would_you_be_open_to_asks_for_the_request_after_it() {
    reads_goal(
        "would you be open to writing a docker compose file for the whole stack?",
        Some(GoalType::ArtifactCreation),
    );
}

#[test]
fn round_15s_rules_leave_their_neighbours_alone() {
    // Messages next to round 15's rules that must read as they did (found by a review).
    // A demonstrative before "then" leaves the sequencer one.
    let mut s = Session::new();
    s.user("refactor this then add unit tests for it");
    assert_eq!(s.conv.queued_goals.len(), 1);
    // "fixed" describes a header; a fine state's place is still reported.
    reads_goal(
        "Fixed header when scrolling the docs",
        Some(GoalType::TaskExecution),
    );
    reads_goal(
        "the totals are correct on page one only",
        Some(GoalType::TaskExecution),
    );
    // A thing named with a determiner asked about as planned is a question.
    reads_goal(
        "is the outage this morning planned?",
        Some(GoalType::QuestionAnswer),
    );
    // "As a result," names no role.
    reads_goal(
        "As a result, the invoices I export have the wrong totals",
        Some(GoalType::TaskExecution),
    );
    // An owner after "for" in a replacement stays the thing's.
    reads_task(
        "replace the password for the staging database",
        "password for the staging database",
        "replace the password",
    );
    // An elision opens no quote.
    reads_task(
        "add a '90s theme toggle to the customers' profile page",
        "customers' profile page",
        "'90s theme toggle",
    );
    // "half" before "to" is no time.
    let mut s = Session::new();
    s.user("set the volume from half to full");
    assert_eq!(s.slot("desired_change"), "from half to full");
    // A detail after the comma that opens with "it" is kept.
    let mut s = Session::new();
    s.user("add a date filter to the orders table, it should default to the last 7 days");
    assert!(
        has(&s.slot("desired_change"), "last 7 days"),
        "{}",
        s.slot("desired_change")
    );
    // A report after "same problem with" is read.
    reads_goal(
        "same problem with the PDF export, it times out after 30 seconds",
        Some(GoalType::TaskExecution),
    );
}

#[test]
fn round_16s_rules_leave_their_neighbours_alone() {
    // A request the body states with a lead wins over a context line above it.
    reads_goal(
        "Our sprint ends on Friday\nCan you draft the release notes from these tickets?",
        Some(GoalType::ArtifactCreation),
    );
    // "given" with a request of the user's own, a label word that is no label: no exercise.
    for text in [
        "Given a free afternoon, find me a quiet cafe with wifi",
        "Challenge accepted! Find me a good ramen place downtown.",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_ne!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
    }
    // A count of the user's things is work on them, no computation.
    reads_goal(
        "Convert 4 of the legacy screens to compose",
        Some(GoalType::TaskExecution),
    );
    // A product's name is no identifier of code.
    reads_goal(
        "Make iPad stickers from my kid's drawings",
        Some(GoalType::ArtifactCreation),
    );
    // Rearranging what exists is a task.
    reads_goal(
        "Organize the toolbar by frequency of use",
        Some(GoalType::TaskExecution),
    );
    // A version before a verb still reports.
    reads_goal(
        "Safari 17 hides the checkout button",
        Some(GoalType::TaskExecution),
    );
    // "to" and a plain verb after "from" is no destination.
    reads_task(
        "Update the welcome email from support to include the new hours",
        "welcome email from support",
        "include the new hours",
    );
    // A result of the thing after "so that" stays the change.
    let mut s = Session::new();
    s.user("As an editor I want to sort the drafts so that the oldest ones come first");
    assert!(
        has(&s.slot("desired_change"), "oldest ones come first"),
        "{}",
        s.slot("desired_change")
    );
}
