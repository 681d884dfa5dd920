//! Feature requests named without a verb: a feature and the means it should use, a feature
//! scoped to each of something, and wishes with an intensifier after the speaker.

use convstate::conversation::GoalType;

use super::session::{Session, has, reads_goal, reads_holding, reads_task};

#[test]
fn a_feature_and_its_means_name_the_target_and_the_change() {
    for (text, target, change) in [
        (
            "Login via magic link instead of passwords",
            "login",
            "via magic link",
        ),
        (
            "Notifications for new comments via Slack",
            "notifications for new comments",
            "via slack",
        ),
        ("Payouts through Wise", "payouts", "through wise"),
        (
            "Calendar sync using CalDAV",
            "calendar sync",
            "using caldav",
        ),
        (
            "Sign in with a passkey instead of SMS codes",
            "sign in",
            "with a passkey",
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
fn with_names_a_means_only_before_the_alternative_it_replaces() {
    // What the feature has stays with the feature.
    reads_holding(
        "Feature request: recurring tasks with custom intervals",
        GoalType::TaskExecution,
        &[("desired_change", "recurring tasks with custom intervals")],
    );
    // "with" and a definite thing names no means: there is nothing asked.
    let mut s = Session::new();
    s.user("Problems with the login page");
    assert_eq!(s.goal(), None);
}

#[test]
fn a_feature_scoped_to_each_of_something_is_asked_for() {
    for text in [
        "Per-tenant rate limits",
        "Per-user notification preferences",
        "per project api keys",
        "Custom domains per workspace",
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("desired_change", text)]);
    }
    // A number before it is a rate, no feature.
    let mut s = Session::new();
    s.user("3 per page");
    assert_eq!(s.goal(), None);
}

#[test]
fn an_intensifier_after_the_speaker_keeps_the_phrase() {
    for (text, change) in [
        (
            "honestly i just want to be able to mute a thread without leaving it",
            "mute",
        ),
        ("we really need audit logs for role changes", "audit logs"),
        (
            "i'd honestly love a compact view for the inbox",
            "compact view",
        ),
        ("we badly need a bulk import for contacts", "bulk import"),
        ("tbh i kinda want a way to pin notes", "pin notes"),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("desired_change", change)]);
    }
}

#[test]
fn a_control_named_with_its_purpose_asks_for_it() {
    // An -ing form before "to" and a verb is a noun, no question title.
    for (text, change) in [
        (
            "Setting to skip the intro video on every launch",
            "skip the intro video",
        ),
        (
            "a toggle to hide archived projects",
            "hide archived projects",
        ),
        (
            "checkbox to remember my last filter",
            "remember my last filter",
        ),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("desired_change", change)]);
    }
    // A title that opens with an -ing form still asks how.
    let mut s = Session::new();
    s.user("Setting up nginx as a reverse proxy on ubuntu");
    assert_eq!(s.goal(), Some(GoalType::QuestionAnswer));
}

#[test]
fn let_and_any_plural_it_lets_leads_the_request() {
    for (text, change) in [
        (
            "let dispatchers reassign a delivery to a different driver mid-route",
            "reassign a delivery",
        ),
        ("let librarians renew a loan twice", "renew a loan"),
        (
            "let admins impersonate a user for debugging",
            "impersonate a user",
        ),
    ] {
        reads_holding(text, GoalType::TaskExecution, &[("desired_change", change)]);
    }
    // Not before a pronoun: nothing is asked of the product.
    for text in [
        "let it run overnight",
        "let me think about it",
        "let us know",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), None, "{text}");
    }
}

#[test]
fn a_quoted_name_is_part_of_its_thing_and_a_counting_label_names_none() {
    reads_holding(
        "change the 'Save' button to green",
        GoalType::TaskExecution,
        &[("target", "'Save' button"), ("desired_change", "green")],
    );
    let mut s = Session::new();
    s.user("Two things: rename the 'Inbox' tab to 'Requests' and hide the beta badge");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "'Inbox' tab");
}

#[test]
fn the_result_a_change_is_for_and_a_feature_labelled_lead() {
    reads_holding(
        "Could you refactor the payment service so each provider lives in its own module",
        GoalType::TaskExecution,
        &[
            ("target", "payment service"),
            ("desired_change", "each provider lives in its own module"),
        ],
    );
    reads_holding(
        "Feature: snooze a task until a chosen date",
        GoalType::TaskExecution,
        &[("desired_change", "snooze a task until a chosen date")],
    );
}

#[test]
fn means_scopes_lets_and_counts_name_no_feature_where_they_mean_something_else() {
    for text in [
        // A participle or a time with "through" or "via".
        "Installed through Homebrew",
        "Sunday through Thursday",
        // "per" as "according to", and rates.
        "Per my last email",
        "As per the docs",
        "Once per day",
        // "let" before someone who does nothing with an object.
        "Please let others know",
        "Let kids be kids",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), None, "{text}");
    }
    // A plural in another script does not stretch the lead (nor panic).
    let mut s = Session::new();
    s.user("let ユーザーs export their invoices");
    // A number before a singular names a thing, not a count.
    reads_holding(
        "404 page: add a search box",
        GoalType::TaskExecution,
        &[("target", "404 page")],
    );
}

/// Round 12: making something quickly, as people say it, is making it; a screen is a kind of
/// thing to make.
#[test]
fn quick_making_and_screens_and_views() {
    for (text, kind) in [
        (
            "throw together a streamlit dashboard with a date picker and a line chart of daily signups",
            "streamlit dashboard",
        ),
        (
            "could you hack together a script that renames my screenshots by date",
            "script",
        ),
        (
            "cook up a quick landing page for the bakery",
            "landing page",
        ),
        ("we need a login screen for the kotlin app", "login screen"),
        (
            "I'd like a SwiftUI view for the settings screen with a notifications toggle and a units picker",
            "SwiftUI view",
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
    }
    // "view" and "screen" as verbs name nothing to make.
    for text in [
        "I'd like to view the logs from yesterday",
        "i want to screen the applicants faster",
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_ne!(s.goal(), Some(GoalType::ArtifactCreation), "{text}");
    }
}

/// Round 12: under a feature label, a request of the thing with a modal reads as it does alone;
/// a purpose after a feature phrase is no part of it.
#[test]
fn a_modal_under_a_feature_label_and_a_purpose_after_the_phrase() {
    for (text, target, change) in [
        (
            "Feature request: latex table exporter should emit booktabs rules instead of \\hline everywhere",
            "latex table exporter",
            "emit booktabs rules",
        ),
        (
            "Feature request: the csv export should include the header row",
            "csv export",
            "include the header row",
        ),
        (
            "offline mode for the field inspection app so techs can keep filling checklists in basements with no signal",
            "field inspection app",
            "offline mode",
        ),
        (
            "dark mode on the dashboard so my eyes stop burning at night",
            "dashboard",
            "dark mode",
        ),
    ] {
        reads_task(text, target, change);
    }
}

#[test]
fn the_verbs_own_object_is_the_thing_after_let_or_to() {
    // After "let" and whom it lets, or a lead ending in "to", the verb's object with a
    // definite determiner is the thing, over a person or a place after it.
    reads_task(
        "option to print the packing slip with gift notes for the warehouse team",
        "packing slip",
        "print the packing slip with gift notes",
    );
    reads_task(
        "Setting to mute the startup chime please",
        "startup chime",
        "mute the startup chime",
    );
    // A short object with no determiner, with no place after it.
    reads_task(
        "let editors schedule newsletters",
        "newsletters",
        "let editors schedule newsletters",
    );
    // An indefinite object gives way to the place it goes to.
    reads_task(
        "let buyers add a gift message at checkout on our store",
        "our store",
        "let buyers add a gift message at checkout",
    );
}

#[test]
fn an_action_lead_keeps_its_verb_in_the_change() {
    // `change = "action"`: the verb says what is done with the object, so the change holds
    // both, and the thing acted on is the target (rule 3). `change = "content"` keeps the
    // object alone, with no target.
    for (text, target, change) in [
        (
            "could we schedule the weekly newsletter ahead of time",
            "weekly newsletter",
            "schedule the weekly newsletter ahead of time",
        ),
        (
            "please reorder the cat litter we got last month",
            "cat litter",
            "reorder the cat litter",
        ),
        (
            "play the rain sounds playlist in the bedroom",
            "rain sounds playlist",
            "play the rain sounds playlist",
        ),
        (
            "navigate to the closest pharmacy that's open",
            "closest pharmacy",
            "navigate to the closest pharmacy",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(
            has(&s.slot("desired_change"), change),
            "{text}: {}",
            s.slot("desired_change")
        );
        assert!(
            has(&s.slot("target"), target),
            "{text}: {}",
            s.slot("target")
        );
    }
    let mut s = Session::new();
    s.user("remind me to water the basil at 6");
    assert_eq!(s.slot("desired_change"), "water the basil at 6");
    assert_eq!(s.slot("target"), "");
}

#[test]
fn a_quoted_label_is_one_name_not_a_purpose_or_a_place() {
    // The words inside quotes name a control; a "to" or "in" among them is part of the name,
    // and the place comes after the closing quote.
    reads_task(
        "please add a 'send to kitchen' button in the waiter app",
        "waiter app",
        "'send to kitchen' button",
    );
    reads_task(
        "add a \"back to results\" link to the product page",
        "product page",
        "\"back to results\" link",
    );
}

#[test]
fn an_exchange_targets_the_thing_replaced() {
    // `change = "exchange"`: the thing before "with" (or "for", "by") is what is replaced;
    // the lead with its object is the change.
    reads_task(
        "replace the cron container with a kubernetes CronJob",
        "cron container",
        "replace the cron container with a kubernetes CronJob",
    );
    reads_task(
        "could you swap requests for httpx in the sync client",
        "requests",
        "swap requests for httpx",
    );
    // (The thing replaced keeps its place.)
    reads_task(
        "replace the logo in the footer with the new svg",
        "logo in the footer",
        "replace the logo in the footer with the new svg",
    );
}

#[test]
fn a_clause_with_its_own_subject_after_the_comma_is_a_reason_not_a_detail() {
    // "add X to Y, D": D is a detail of the change ("20 per page"), unless it opens with a
    // subject of its own ("my manager wants ...", "it ...").
    let mut s = Session::new();
    s.user("add a print button to the invoice page, we need paper copies for audits");
    assert_eq!(s.slot("target"), "invoice page");
    assert_eq!(s.slot("desired_change"), "print button");
    let mut s = Session::new();
    s.user("add a retry button to the upload dialog, max 3 attempts");
    assert!(
        has(&s.slot("desired_change"), "max 3 attempts"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn of_joins_nouns_and_names_no_place() {
    // "the name of the person": "of" is no place, so the place after it is the target; after
    // a position it still names where ("at the bottom of the invoice list").
    reads_task(
        "show the email of the customer who placed the order on the packing slip",
        "packing slip",
        "show the email of the customer",
    );
    reads_task(
        "show the total at the bottom of the invoice list",
        "invoice list",
        "show the total",
    );
}

#[test]
fn a_plural_before_a_word_of_scope_is_a_features_noun() {
    // "overrides per directory", "limits per tenant": no verb in -s before "per".
    reads_task(
        "Linter: allow severity overrides per folder",
        "Linter",
        "allow severity overrides per folder",
    );
}

#[test]
fn a_kind_inside_a_longer_noun_is_no_artifact_asked_for() {
    // Round 16: after "I want" or "we need" the kind is the phrase's head ("a python script
    // quickly" keeps a word of manner after it): "slow query logging" asks for logging that
    // does something, "webhook retries" for retries.
    let mut s = Session::new();
    s.user("I want slow query logging to include the bound parameter values");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    let mut s = Session::new();
    s.user("we need invoice email retries when the mail server is down");
    assert_ne!(s.goal(), Some(GoalType::ArtifactCreation));
    reads_goal(
        "I need a python script quickly",
        Some(GoalType::ArtifactCreation),
    );
    reads_goal(
        "I need a newsletter popup for the blog",
        Some(GoalType::ArtifactCreation),
    );
}

#[test]
fn where_a_moved_thing_goes_is_no_verb_after_to() {
    // (Round 22: after a lead that moves a thing, "to" and a name is a destination; after
    // one that lets someone, a verb.)
    reads_task(
        "Export highlighted passages to Notion",
        "highlighted passages",
        "Export highlighted passages to Notion",
    );
    let mut s = Session::new();
    s.user("allow guests to RSVP");
    assert_eq!(s.slot("target"), "guests");
}

#[test]
fn a_thing_without_a_determiner_before_where_the_work_spreads_it_is_the_target() {
    // (Round 22.)
    reads_task(
        "split expenses across the three cards",
        "expenses",
        "split expenses across the three cards",
    );
}

#[test]
fn after_a_feature_label_a_verb_no_extractor_reads_still_says_the_feature() {
    // (Round 23: a task lead with no change of its own, or a plain verb of the vocabulary,
    // after a feature or task label: the verb and its object are the change, the thing it
    // names the target; a thing the label names wins.)
    reads_task(
        "Feature request: split one transaction across several categories",
        "one transaction",
        "split one transaction across several categories",
    );
    reads_task(
        "Suggestion: merge duplicate contacts automatically",
        "duplicate contacts",
        "merge duplicate contacts automatically",
    );
    reads_task(
        "[Feature] Retry dropped messages after a reconnect",
        "dropped messages",
        "retry dropped messages",
    );
    reads_task(
        "Missing feature in the recipe app: scale a recipe by servings",
        "recipe app",
        "scale a recipe by servings",
    );
}

#[test]
fn a_permission_asked_for_a_verb_of_the_vocabulary_is_a_feature_request() {
    for (text, target, change) in [
        (
            "let me pick a different default reminder for all-day events",
            "different default reminder for all-day events",
            "pick a different default reminder",
        ),
        (
            "please let me choose a ringtone for each contact",
            "ringtone for each contact",
            "choose a ringtone",
        ),
    ] {
        reads_task(text, target, change);
    }
    // (The user's own doing is no feature.)
    reads_goal("let me check the logs and get back to you", None);
}

#[test]
fn sharing_a_thing_with_someone_and_the_users_own_doing_are_no_artifact_or_feature() {
    let mut s = Session::new();
    s.user("share a folder with my wife");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert!(has(&s.slot("desired_change"), "share a folder"));
    reads_goal("let me read it first", None);
    reads_goal("let me finish this email first", None);
}
