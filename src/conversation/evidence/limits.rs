//! The reader's closed word lists of grammar (places, particles, conditions ...) and its
//! bounds (the most words of a subject, bytes of an error line ...).

/// The most words a subject may have (a longer run before a predicate is no subject).
pub(super) const MAX_SUBJECT_WORDS: usize = 6;
/// The longest reply read as a correction, in bytes.
pub(super) const MAX_CORRECTION: usize = 120;
/// Prepositions before a thing: "in the editor", "for the dashboard".
pub(super) const PLACES: [&str; 9] = [
    "in", "on", "to", "from", "for", "into", "across", "at", "of",
];
/// Where something is put, not a thing ("to the top", "at the bottom of the list").
pub(super) const POSITIONS: [&str; 11] = [
    "top",
    "bottom",
    "end",
    "beginning",
    "start",
    "front",
    "back",
    "left",
    "right",
    "side",
    "middle",
];
/// Words that mark a line as the user's own prose rather than a tool's output.
pub(super) const PROSE: [&str; 18] = [
    "i", "we", "you", "my", "our", "your", "the", "a", "an", "me", "us", "it", "i'm", "im",
    "we're", "it's", "their", "they",
];
/// Words after a verb that belong to it: "starts over", "hides behind the indicator".
pub(super) const PARTICLES: [&str; 14] = [
    "over", "behind", "out", "off", "up", "down", "back", "away", "around", "through", "under",
    "past", "again", "twice",
];
/// Words only a verb is followed by: a reflexive object of one ("the sheet dismisses
/// itself"; "the uploads themselves work" stresses a plural) or an adverb of duration ("slot
/// filling loops forever").
pub(super) const AFTER_VERB: [&str; 5] = ["itself", "himself", "herself", "forever", "endlessly"];
/// Words after an artifact's kind that open what describes it, kept with their words ("a form
/// with email validation"; "a line chart of weekly signups": what it shows or holds).
pub(super) const DESCRIBERS: [&str; 10] = [
    "for",
    "with",
    "about",
    "using",
    "on",
    "from",
    "including",
    "featuring",
    "containing",
    "of",
];
/// Where work on a thing spreads it: "sync the blocklist across devices", "split one
/// transaction across several categories".
pub(super) const SPREADS: [&str; 5] = ["across", "between", "among", "over", "per"];
/// Words that open a phrase of manner, means or place before a request and its comma: "In
/// Python, write ...", "Using React, build ...", "Without any libraries, implement ...".
pub(super) const MANNERS: [&str; 8] = [
    "in", "using", "with", "without", "via", "for", "on", "through",
];
/// Words of degree between a verb and its result: "images load super blurry".
pub(super) const DEGREES: [&str; 9] = [
    "super",
    "very",
    "too",
    "way",
    "so",
    "extremely",
    "pretty",
    "right",
    "straight",
];
/// Words of time after a verb: "failed twice today", "broke again overnight".
pub(super) const WHEN: [&str; 8] = [
    "today",
    "yesterday",
    "tonight",
    "overnight",
    "again",
    "recently",
    "lately",
    "sometimes",
];
/// Words that open a condition after what they qualify: "Crash when opening the settings
/// screen", "TypeError ... when the path is None".
pub(super) const CONDITIONS: [&str; 8] = [
    "when", "whenever", "if", "after", "before", "while", "since", "until",
];
/// Words that assign a value to a setting: "font size -> 16px", "retention = 10 tags".
pub(super) const ASSIGNS: [&str; 4] = ["->", "=>", "→", "="];
/// The most bytes before a predicate a subject may start at.
pub(super) const MAX_SUBJECT_BYTES: usize = 160;
/// The most bytes of a pasted error line kept as a description.
pub(super) const MAX_ERROR_LINE: usize = 160;

/// The inputs of a story told before an exercise's ask, beside `exercise_inputs` ("Each
/// morning she gets the pre-orders as a list of cookie counts"): in a story, unlike in a
/// request ("add milk to the list"), they name data a program is given.
pub(super) const STORY_INPUTS: [&str; 8] = [
    "list", "lists", "grid", "grids", "pair", "pairs", "tuple", "tuples",
];
