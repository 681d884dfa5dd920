//! "make the thing its result": where the thing ends and the result starts.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal, reads_task};

#[test]
fn a_place_inside_the_thing_before_a_last_result_word() {
    reads_task(
        "Make the font size in the settings screen bigger",
        "font size in the settings screen",
        "bigger",
    );
    reads_task(
        "can you make the gap between the cards on mobile bigger",
        "gap between the cards on mobile",
        "bigger",
    );
    reads_task(
        "make the text in the sidebar smaller",
        "text in the sidebar",
        "smaller",
    );
}

#[test]
fn degree_words_before_the_result_are_the_results() {
    reads_task(
        "make the logo in the header a bit smaller",
        "logo in the header",
        "a bit smaller",
    );
    reads_task(
        "make the intro paragraph a lot shorter",
        "intro paragraph",
        "a lot shorter",
    );
    reads_task(
        "make these tests less brittle",
        "these tests",
        "less brittle",
    );
}

#[test]
fn what_happens_now_after_instead_of_is_no_part_of_the_change() {
    reads_task(
        "we need the export endpoint to stream the csv instead of building it in memory",
        "export endpoint",
        "stream the csv",
    );
    let mut s = Session::new();
    s.user("it'd be really handy to duplicate a survey instead of rebuilding it from scratch");
    assert_eq!(s.slot("desired_change"), "duplicate a survey");
    let mut s = Session::new();
    s.user("the importer should skip bad rows instead of failing the whole batch");
    assert_eq!(s.slot("desired_change"), "skip bad rows");
    // (A contrast of values stays: it is what the change is.)
    reads_task(
        "make the api return 404 instead of 500 for missing users",
        "api",
        "404 instead of 500",
    );
}

#[test]
fn a_hyphen_between_letters_joins_the_words() {
    // "fine" is an acknowledgement, "down" a particle: neither inside a compound.
    let mut s = Session::new();
    s.user("fine-tuning script dies with an out of memory error");
    assert_eq!(s.slot("target"), "fine-tuning script");
    reads_task(
        "the drop-down menu closes by itself on ipad",
        "drop-down menu",
        "closes by itself",
    );
}

#[test]
fn a_wish_closing_the_sentence_is_no_part_of_the_object() {
    let mut s = Session::new();
    s.user("Support for importing bookmarks from Firefox would be nice");
    assert_eq!(
        s.slot("desired_change"),
        "Support for importing bookmarks from Firefox"
    );
    assert!(!s.slot("target").contains("would"), "{}", s.slot("target"));
}

#[test]
fn a_position_is_where_a_thing_is_put_not_the_thing() {
    // The lead with its position is the change; the thing is its object.
    let mut s = Session::new();
    s.user("make it possible to pin a chat to the top");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("target"), "chat");
    assert_eq!(s.slot("desired_change"), "pin a chat to the top");
    let mut s = Session::new();
    s.user("let users pin their favourite projects to the top");
    assert!(
        s.slot("target").contains("favourite projects"),
        "{}",
        s.slot("target")
    );
    reads_task(
        "pin the release notes to the top of the channel",
        "release notes",
        "pin the release notes to the top",
    );
}

#[test]
fn a_contrast_of_values_after_instead_of_stays() {
    // "padding" and "string" are no verbs of the vocabulary: values contrasted.
    let mut s = Session::new();
    s.user("use margin instead of padding on the cards");
    assert!(
        s.slot("desired_change").contains("instead of padding"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn a_position_before_a_noun_is_an_adjective() {
    let mut s = Session::new();
    s.user("Crash when I tap the back button");
    assert_eq!(s.slot("target"), "back button");
}

#[test]
fn a_verbs_prefix_before_a_hyphen_keeps_the_verb() {
    let mut s = Session::new();
    s.user("re-enable the nightly cron job");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
}

#[test]
fn wishes_with_it_and_an_intensifier_open_a_request() {
    reads_task(
        "it would be really nice if the gallery remembered my sort order",
        "gallery",
        "remembered my sort order",
    );
}

#[test]
fn a_degree_at_the_end_is_no_change() {
    let mut s = Session::new();
    s.user("can you clean this up a bit\n\nfor i in range(len(xs)):\n    if xs[i] != None:\n        out.append(xs[i])");
    assert_eq!(s.slot("desired_change"), "clean this up");
}

#[test]
fn edits_of_a_text_named_by_their_verb_are_the_change() {
    reads_task(
        "proofread this cover letter",
        "this cover letter",
        "proofread",
    );
    // (A text after a colon is what the request is about, no value of it.)
    let mut s = Session::new();
    s.user("shorten this paragraph: Our team is excited to announce that starting next month we will be offering extended support hours.");
    assert_eq!(s.slot("target"), "this paragraph");
    assert_eq!(s.slot("desired_change"), "shorten");
    // ("log level: debug" stays a label and its value.)
    let mut s = Session::new();
    s.user("log level: debug pls");
    assert!(
        s.slot("desired_change").ends_with("debug"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn make_it_with_no_goal_active_states_a_change_of_a_thing_not_yet_named() {
    let mut s = Session::new();
    s.user("make it more responsive on phones");
    assert_eq!(s.goal(), Some(GoalType::TaskExecution));
    assert_eq!(s.slot("desired_change"), "more responsive on phones");
    assert_eq!(s.slot("target"), "");
}

#[test]
fn a_lead_ending_with_its_determiner_is_a_verb_not_a_subject() {
    // "make the cards" is no subject of "stack": the lead asks for the result.
    reads_task("make the cards stack on mobile", "cards", "stack on mobile");
    reads_task(
        "make the header stick to the top",
        "header",
        "stick to the top",
    );
    reads_task(
        "make the footer stay at the bottom",
        "footer",
        "stay at the bottom",
    );
}

#[test]
fn having_a_thing_in_a_place_adds_the_thing_to_the_place() {
    // After a lead that asks to have a thing (not "make"), the first thing is the change and
    // the place named with a determiner the target.
    reads_task(
        "Can we have the invoice number in the email subject line?",
        "email subject line",
        "invoice number",
    );
    reads_task(
        "i'd like the company logo in the footer",
        "footer",
        "company logo",
    );
    // A position is where: the thing is the target.
    reads_task("i want the logo on the left", "logo", "on the left");
    // A verb before the place keeps the result reading.
    reads_task(
        "would be nice if the cli printed a summary at the end",
        "cli",
        "printed a summary",
    );
}

#[test]
fn whom_a_request_lets_act_is_no_target_and_a_purpose_is_no_place() {
    // "let admins" is whom it lets; "for debugging" is what for: the user is the target.
    reads_task(
        "Let admins impersonate a user for debugging",
        "user",
        "impersonate a user",
    );
    // After an ability asked for, a lead that is its own change keeps its object.
    let mut s = Session::new();
    s.user("i want to be able to mute a thread without leaving it");
    assert_eq!(s.slot("desired_change"), "mute a thread without leaving it");
    let mut s = Session::new();
    s.user("mute the family group chat");
    assert_eq!(s.slot("desired_change"), "mute");
}

#[test]
fn directions_and_reading_out_state_their_object_as_the_change() {
    for (text, change) in [
        ("navigate to the nearest gas station", "nearest gas station"),
        ("read me my last text message", "my last text message"),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert!(s.slot("desired_change").contains(change), "{text}");
    }
}

#[test]
fn a_kind_before_nouns_of_its_own_and_a_request_after_the_users_situation() {
    use convstate::conversation::GoalType;
    let mut s = Session::new();
    s.user("we run a small clinic and patients keep missing appointments. could you build a reminder sms flow?");
    assert_eq!(s.slot("component_type"), "reminder sms flow");
    let mut s = Session::new();
    s.user("write a poem tomorrow");
    assert_eq!(s.slot("component_type"), "poem");
    let mut s = Session::new();
    s.user("my landlord wants a signed lease renewal by friday, can you draft a short email asking for two more weeks");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
    assert!(s.slot("component_type").contains("email"));
    // A task after its topic stays the report's: "..., can you fix it".
    reads_task("the export is broken, can you fix it", "export", "broken");
}

#[test]
fn plans_asked_about_and_money_offered_ask_for_the_feature() {
    use convstate::conversation::GoalType;
    for (text, change) in [
        ("Is there any plan to support SAML?", "SAML"),
        (
            "I'd pay for an ios widget that shows today's tasks",
            "ios widget",
        ),
    ] {
        let mut s = Session::new();
        s.user(text);
        assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
        assert!(s.slot("desired_change").contains(change), "{text}");
    }
}

#[test]
fn a_conjunction_before_a_request_to_the_assistant_opens_a_further_goal() {
    use convstate::conversation::GoalType;
    let mut s = Session::new();
    s.user("what's a webhook? and could you set one up for our stripe payments afterwards");
    assert_eq!(s.goal(), Some(GoalType::QuestionAnswer));
    let queued: Vec<GoalType> = s.conv.queued_goals.iter().map(|g| g.goal_type).collect();
    assert_eq!(queued, [GoalType::TaskExecution]);
    // A conjunction alone, with no request after it, queues nothing.
    let mut s = Session::new();
    s.user("what's a webhook? and why do people use them");
    assert!(s.conv.queued_goals.is_empty());
}

#[test]
fn a_message_to_someone_is_whom_then_what_to_tell_them() {
    reads_task("text Jamie that dinner is at 7", "Jamie", "dinner is at 7");
    reads_task(
        "text sarah that I'm running ten minutes late",
        "sarah",
        "I'm running ten minutes late",
    );
    // "tidy up" is upkeep whose name is the change.
    let mut s = Session::new();
    s.user("can you tidy up this function\n\ndef f(a,b):\n  return a+b");
    assert_eq!(s.slot("desired_change"), "tidy up");
}

#[test]
fn a_correction_marker_after_the_new_value_is_no_part_of_it() {
    let mut s = Session::new();
    s.user("the popover on the pricing page is cut off on mobile");
    s.user("the tooltip, I mean, not the popover");
    // (The replaced words are what follows "not": the tooltip takes the popover's place.)
    assert_eq!(s.slot("target"), "tooltip on the pricing page");
    let description = &s.conv.current_goal.as_ref().unwrap().description;
    assert!(
        description.starts_with("tooltip") && !description.contains("popover"),
        "{description}"
    );
    // Wide characters around the marker and the comma read without a panic.
    for reply in [
        "vue,  \u{2014}no not react",
        "vue,\u{3000}\u{3000}no not react",
    ] {
        let mut s = Session::new();
        s.user("build a react dashboard");
        s.user(reply);
        assert!(s.goal().is_some(), "{reply}");
    }
    // An -ing form after a wide character is no doubled letter.
    for text in ["\u{1f618}ing", "\u{4e38}ing the rice"] {
        let mut s = Session::new();
        s.user(text);
    }
    // Deprecating and shuffling are changes named by their verb.
    reads_task(
        "shuffle my workout playlist",
        "my workout playlist",
        "shuffle",
    );
}

#[test]
fn make_before_a_name_and_a_plain_verb_changes_the_named_thing() {
    // Rule 4: "make" + a bare name (no determiner, no kind) + a plain verb is a change of the
    // named thing, no creation.
    for (text, target, change) in [
        (
            "Make Jest ignore test files in the dist folder",
            "Jest",
            "ignore test files",
        ),
        (
            "make eslint ignore generated code",
            "eslint",
            "ignore generated code",
        ),
        (
            "make Vite use port 3000 by default",
            "Vite",
            "use port 3000",
        ),
    ] {
        reads_task(text, target, change);
    }
    // (A kind after "make" is still made.)
    reads_goal("make a todo app", Some(GoalType::ArtifactCreation));
}

#[test]
fn an_adjective_in_able_before_an_adverb_is_the_result() {
    // "make the X configurable globally ...": the -able word starts the result even with an
    // adverb after it, whichever split comes first.
    reads_task(
        "make the retry delay configurable globally instead of per client",
        "retry delay",
        "configurable globally",
    );
}

#[test]
fn to_and_a_plain_verb_end_the_thing_whose_result_is_asked() {
    // Round 16: "I need the ledger export to include ...": "to" before a plain verb ends the
    // thing, whatever verbs its words could be ("export", "report", "upload").
    reads_task(
        "I need the ledger export to include the cost centre",
        "ledger export",
        "include the cost centre",
    );
    reads_task(
        "we want the photo upload to resize images before sending",
        "photo upload",
        "resize images before sending",
    );
}

#[test]
fn make_before_an_identifier_of_code_changes_it() {
    // Round 16: "make fetchInvoices async": a camelCase, snake_case or call identifier after
    // "make" is the thing changed, what follows it the result; no artifact is made.
    reads_task("make loadConfig synchronous", "loadConfig", "synchronous");
    reads_task(
        "make retry_count configurable per queue",
        "retry_count",
        "configurable per queue",
    );
}

#[test]
fn make_before_a_name_and_a_state_it_takes_changes_the_thing() {
    // (Round 23: rule 4 with no article before the thing: a state of `made_results`, a word
    // in -able or -ible, or "the default", last or before a preposition.)
    for (text, target, change) in [
        ("Make autoplay optional", "autoplay", "optional"),
        (
            "make sidebar collapsible, it eats half the screen on my laptop",
            "sidebar",
            "collapsible",
        ),
        (
            "Make email verification mandatory for new accounts",
            "email verification",
            "mandatory",
        ),
        ("make dark mode the default", "dark mode", "the default"),
        (
            "Make `max_retries` configurable per queue",
            "max_retries",
            "configurable per queue",
        ),
        (
            "please make order numbers searchable in the admin",
            "order numbers",
            "searchable",
        ),
    ] {
        reads_task(text, target, change);
    }
    // (An adjective before its noun makes a thing; a comparative after a verb is how the
    // verb goes.)
    reads_goal(
        "make a printable chart of the kids' chores",
        Some(GoalType::ArtifactCreation),
    );
    reads_goal(
        "make me a reusable modal component",
        Some(GoalType::ArtifactCreation),
    );
    reads_task(
        "make the settings page load faster",
        "settings page",
        "load faster",
    );
    let mut s = Session::new();
    s.user("make landing pages for our three products");
    assert_eq!(s.goal(), Some(GoalType::ArtifactCreation));
}
