//! "make the thing its result": where the thing ends and the result starts.

use super::session::reads_task;

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
