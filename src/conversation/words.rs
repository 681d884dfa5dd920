//! The language file's lists the reader looks single words up in, as hash sets with a fixed,
//! cheap hasher: built once with the classifier, read for many words of every message.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::lexicon::Language;

/// A set of words with a fixed, cheap hasher (FNV-1a): lookups of short words cost the same
/// in every process and little in any.
pub(super) type Words = HashSet<String, BuildHasherDefault<Fnv>>;

/// FNV-1a, for the word sets' short keys (not for keys a peer chooses to collide: the sets
/// are the pattern files' words, and a lookup's key is one word).
#[derive(Debug)]
pub(super) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The language file's lists the reader looks words up in, one word each.
#[derive(Clone, Debug, Default)]
pub(super) struct WordSets {
    pub(super) auxiliaries: Words,
    pub(super) determiners: Words,
    pub(super) non_subjects: Words,
    pub(super) task_titles: Words,
    /// The object's connectors after an artifact's kind that start its requirements.
    pub(super) ends: Words,
    /// Plain verbs, where a thing ends and its result starts.
    pub(super) verbs: Words,
    /// Verbs describing behaviour (`predicates`).
    pub(super) predicates: Words,
    /// Problem verbs whose object is what broke (`breakers`).
    pub(super) breakers: Words,
    /// Labels that introduce context (`context_labels`).
    pub(super) context_labels: Words,
    /// Last words of a feature asked for by its name (`feature_heads`).
    pub(super) feature_heads: Words,
    /// How often or how badly, before a problem opening a title (`problem_modifiers`).
    pub(super) problem_modifiers: Words,
    /// Words in -s that are no plurals (`singular_in_s`).
    pub(super) singular_in_s: Words,
    /// Label words naming a feature asked for (`feature_titles`).
    pub(super) feature_titles: Words,
    /// Words of time (`times`).
    pub(super) times: Words,
    /// Prepositions that open a time (`time_prepositions`).
    pub(super) time_prepositions: Words,
    /// Prepositions of the means a feature uses (`means`).
    pub(super) means: Words,
    /// Words that scope a feature to each of something (`feature_scopes`).
    pub(super) feature_scopes: Words,
    /// Words that count (`quantities`).
    pub(super) quantities: Words,
    /// Words before an opener that leave it the opener (`opener_modifiers`).
    pub(super) opener_modifiers: Words,
    /// Words that say a thing works (`fine_states`).
    pub(super) fine_states: Words,
    /// Past participles not in "-ed" (`participles`).
    pub(super) participles: Words,
    /// Verbs after an auxiliary with no subject (`elided_subjects`).
    pub(super) elided_subjects: Words,
    /// Words of spoken numbers and times (`spoken_numbers`).
    pub(super) numbers: Words,
    /// Words of degree (`intensifiers`).
    pub(super) intensifier_words: Words,
    /// Verbs of ability after "can you" (`ability_verbs`).
    pub(super) ability_verbs: Words,
    /// Nouns that name people (`people`).
    pub(super) people: Words,
    /// Nouns of problems a user meets (`met_problems`).
    pub(super) met_problems: Words,
    /// Lead words that ask for a repair (`repairs`).
    pub(super) repairs: Words,
    /// Verbs that report what a person said (`reporting_verbs`).
    pub(super) reporting_verbs: Words,
    /// What the user says to tell they have or find a thing (`having`).
    pub(super) having: Words,
    /// Programming languages (`code_languages`).
    pub(super) code_languages: Words,
    /// What opens a programming exercise's statement (`exercise_openers`).
    pub(super) exercise_openers: Words,
    /// Verbs that state what an exercise's code must do (`exercise_verbs`).
    pub(super) exercise_verbs: Words,
    /// The abstract inputs of an algorithm's exercise (`exercise_inputs`).
    pub(super) exercise_inputs: Words,
    /// States a thing is made to take (`made_results`).
    pub(super) made_results: Words,
    /// Words naming a message sent to someone (`message_kinds`).
    pub(super) message_kinds: Words,
    /// Pleas for a look at what was told (`pleas`).
    pub(super) pleas: Words,
    /// A reason's opener and its subject (`reasons`).
    pub(super) reasons: Words,
    /// The first words of `reasons` ("because", "since" ...), looked up before a pair is.
    pub(super) reason_heads: Words,
    /// Words of a question that compares (`compared`).
    pub(super) compared: Words,
    /// Words that pick among things compared (`choices`).
    pub(super) choices: Words,
    /// Verbs a user asks to be let do (`permitted`).
    pub(super) permitted: Words,
    /// Verbs that ask for a computed answer before a quantity (`computations`).
    pub(super) computations: Words,
}

impl WordSets {
    pub(super) fn new(lang: &Language) -> WordSets {
        let words = |lists: &[&Vec<String>]| {
            lists
                .iter()
                .flat_map(|l| l.iter())
                .map(|p| super::text::normalize_phrase(p))
                .filter(|p| !p.contains(' '))
                .collect()
        };
        // (Lists looked up whole, phrases of several words too.)
        let phrases = |list: &Vec<String>| {
            list.iter()
                .map(|p| super::text::normalize_phrase(p))
                .collect()
        };
        WordSets {
            auxiliaries: words(&[&lang.auxiliaries]),
            determiners: words(&[&lang.determiners]),
            non_subjects: words(&[&lang.non_subjects]),
            task_titles: lang
                .task_titles
                .iter()
                .map(|t| super::text::normalize_phrase(t))
                .collect(),
            ends: words(&[&lang.noun_phrase_ends]),
            verbs: words(&[&lang.verbs]),
            predicates: words(&[&lang.predicates]),
            breakers: words(&[&lang.breakers]),
            context_labels: lang
                .context_labels
                .iter()
                .map(|t| super::text::normalize_phrase(t))
                .collect(),
            feature_heads: words(&[&lang.feature_heads]),
            problem_modifiers: words(&[&lang.problem_modifiers]),
            singular_in_s: words(&[&lang.singular_in_s]),
            feature_titles: words(&[&lang.feature_titles]),
            times: words(&[&lang.times]),
            time_prepositions: words(&[&lang.time_prepositions]),
            means: words(&[&lang.means]),
            feature_scopes: words(&[&lang.feature_scopes]),
            quantities: words(&[&lang.quantities]),
            opener_modifiers: words(&[&lang.opener_modifiers]),
            fine_states: words(&[&lang.fine_states]),
            participles: words(&[&lang.participles]),
            elided_subjects: words(&[&lang.elided_subjects]),
            ability_verbs: words(&[&lang.ability_verbs]),
            intensifier_words: words(&[&lang.intensifiers]),
            numbers: words(&[&lang.spoken_numbers]),
            people: words(&[&lang.people]),
            met_problems: words(&[&lang.met_problems]),
            repairs: words(&[&lang.repairs]),
            reporting_verbs: words(&[&lang.reporting_verbs]),
            having: lang
                .having
                .iter()
                .map(|t| super::text::normalize_phrase(t))
                .collect(),
            code_languages: lang
                .code_languages
                .iter()
                .map(|t| super::text::normalize_phrase(t))
                .collect(),
            exercise_openers: lang
                .exercise_openers
                .iter()
                .map(|t| super::text::normalize_phrase(t))
                .collect(),
            exercise_verbs: words(&[&lang.exercise_verbs]),
            // (Phrases of two words too: "linked list", "binary tree".)
            exercise_inputs: lang
                .exercise_inputs
                .iter()
                .map(|t| super::text::normalize_phrase(t))
                .collect(),
            computations: words(&[&lang.computations]),
            made_results: words(&[&lang.made_results]),
            message_kinds: words(&[&lang.message_kinds]),
            pleas: phrases(&lang.pleas),
            reasons: phrases(&lang.reasons),
            reason_heads: lang
                .reasons
                .iter()
                .filter_map(|p| {
                    super::text::normalize_phrase(p)
                        .split(' ')
                        .next()
                        .map(String::from)
                })
                .collect(),
            compared: words(&[&lang.compared]),
            choices: words(&[&lang.choices]),
            permitted: words(&[&lang.permitted]),
        }
    }
}
