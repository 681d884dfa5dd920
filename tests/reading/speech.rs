//! Speech as a recogniser writes it: a hesitation inside a sentence ("uh", "um", the language
//! file's `hesitations`) is read as nothing, and the values keep the words around it.

use convstate::conversation::GoalType;

use super::session::{Session, reads_goal, reads_holding};

#[test]
fn a_hesitation_inside_a_sentence_is_read_as_nothing() {
    for (text, target, change) in [
        (
            "set an alarm for uh six forty five",
            "alarm",
            "six forty five",
        ),
        ("turn the porch light um off at ten", "porch light", "off"),
        (
            "move my dentist thing to, uh, thursday",
            "dentist thing",
            "thursday",
        ),
        (
            "set the oven to erm two hundred degrees",
            "oven",
            "two hundred degrees",
        ),
    ] {
        reads_holding(
            text,
            GoalType::TaskExecution,
            &[("target", target), ("desired_change", change)],
        );
    }
    // The value starts after the hesitation, never with it.
    let mut s = Session::new();
    s.user("set a timer for uh twelve minutes");
    assert!(
        !s.slot("desired_change").to_lowercase().starts_with("uh"),
        "{}",
        s.slot("desired_change")
    );
}

#[test]
fn a_hesitation_alone_or_first_is_read_as_before() {
    // Alone it answers nothing; first, the fillers skip it.
    reads_goal("um", None);
    reads_goal("uh... never mind", None);
    reads_holding(
        "um add oat milk to the shopping list",
        GoalType::TaskExecution,
        &[("target", "shopping list")],
    );
    // A word in capitals is a name, no hesitation ("ER" of a hospital).
    let mut s = Session::new();
    s.user("remind me to call the ER desk tomorrow");
    assert!(s.goal().is_some());
}
