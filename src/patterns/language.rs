//! The language file (`language.toml`): its word lists, required and optional, checked
//! item by item.

use super::files::{Cx, Table};
use super::*;

impl Cx<'_> {
    pub(super) fn language(&mut self, doc: &Table<'_>) -> Language {
        const KEYS: [&str; 72] = [
            "fillers",
            "acknowledgements",
            "intents",
            "small_talk",
            "negations",
            "clause_breaks",
            "non_answers",
            "articles",
            "trailing",
            "pronouns",
            "noun_phrase_ends",
            "contrast_markers",
            "deferrals",
            "action_questions",
            "known_words",
            "problems",
            "non_subjects",
            "auxiliaries",
            "determiners",
            "modals",
            "error_markers",
            "addressee",
            "persona",
            "task_titles",
            "corrections",
            "waivers",
            "sequencers",
            "predicates",
            "verbs",
            "wishes",
            "conjunctions",
            "introducers",
            "breakers",
            "contractions",
            "context_labels",
            "feature_heads",
            "problem_modifiers",
            "singular_in_s",
            "feature_titles",
            "times",
            "time_prepositions",
            "means",
            "intensifiers",
            "feature_scopes",
            "subordinators",
            "quantities",
            "opener_modifiers",
            "fine_states",
            "ability_verbs",
            "negated_instructions",
            "restatements",
            "spoken_numbers",
            "people",
            "met_problems",
            "repairs",
            "reporting_verbs",
            "having",
            "code_languages",
            "exercise_openers",
            "exercise_verbs",
            "computations",
            "hesitations",
            "participles",
            "elided_subjects",
            "exercise_inputs",
            "made_results",
            "message_kinds",
            "pleas",
            "reasons",
            "compared",
            "choices",
            "permitted",
        ];
        self.known_keys(doc, &KEYS, "the language file");
        // Optional: "short = long" pairs.
        let contractions = self.optional_phrases(doc, "contractions");
        let contractions = contractions
            .into_iter()
            .filter_map(|(pair, span)| match pair.split_once(" = ") {
                Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                    Some((a.trim().to_lowercase(), b.trim().to_lowercase()))
                }
                _ => {
                    self.error(
                        span,
                        format!("`{pair}` is no contraction: write \"it'd = it would\""),
                    );
                    None
                }
            })
            .collect();
        // (Optional lists: empty when absent.)
        let mut optional = |key: &str| -> Vec<String> {
            self.optional_phrases(doc, key)
                .into_iter()
                .map(|(s, _)| s)
                .collect()
        };
        let context_labels = optional("context_labels");
        let feature_heads = optional("feature_heads");
        let problem_modifiers = optional("problem_modifiers");
        let singular_in_s = optional("singular_in_s");
        let feature_titles = optional("feature_titles");
        let times = optional("times");
        let time_prepositions = optional("time_prepositions");
        let means = optional("means");
        let intensifiers = optional("intensifiers");
        let feature_scopes = optional("feature_scopes");
        let subordinators = optional("subordinators");
        let quantities = optional("quantities");
        let opener_modifiers = optional("opener_modifiers");
        let fine_states = optional("fine_states");
        let ability_verbs = optional("ability_verbs");
        let negated_instructions = optional("negated_instructions");
        let restatements = optional("restatements");
        let spoken_numbers = optional("spoken_numbers");
        let people = optional("people");
        let met_problems = optional("met_problems");
        let repairs = optional("repairs");
        let reporting_verbs = optional("reporting_verbs");
        let having = optional("having");
        let code_languages = optional("code_languages");
        let exercise_openers = optional("exercise_openers");
        let exercise_verbs = optional("exercise_verbs");
        let computations = optional("computations");
        let hesitations = optional("hesitations");
        let participles = optional("participles");
        let elided_subjects = optional("elided_subjects");
        let exercise_inputs = optional("exercise_inputs");
        let made_results = optional("made_results");
        let message_kinds = optional("message_kinds");
        let pleas = optional("pleas");
        let reasons = optional("reasons");
        let compared = optional("compared");
        let choices = optional("choices");
        let permitted = optional("permitted");
        let mut lists: Vec<Vec<String>> = KEYS[..KEYS.len() - 35]
            .iter()
            .map(|k| {
                self.phrases(doc, 0..0, k, "the language file")
                    .into_iter()
                    .map(|(s, _)| s)
                    .collect()
            })
            .collect();
        let mut next = || std::mem::take(&mut lists.remove(0));
        Language {
            fillers: next(),
            acknowledgements: next(),
            intents: next(),
            small_talk: next(),
            negations: next(),
            clause_breaks: next(),
            non_answers: next(),
            articles: next(),
            trailing: next(),
            pronouns: next(),
            noun_phrase_ends: next(),
            contrast_markers: next(),
            deferrals: next(),
            action_questions: next(),
            known_words: next(),
            problems: next(),
            non_subjects: next(),
            auxiliaries: next(),
            determiners: next(),
            modals: next(),
            error_markers: next(),
            addressee: next(),
            persona: next(),
            task_titles: next(),
            corrections: next(),
            waivers: next(),
            sequencers: next(),
            predicates: next(),
            verbs: next(),
            wishes: next(),
            conjunctions: next(),
            introducers: next(),
            breakers: next(),
            contractions,
            context_labels,
            feature_heads,
            problem_modifiers,
            singular_in_s,
            feature_titles,
            times,
            time_prepositions,
            means,
            intensifiers,
            feature_scopes,
            subordinators,
            quantities,
            opener_modifiers,
            fine_states,
            ability_verbs,
            negated_instructions,
            restatements,
            spoken_numbers,
            people,
            met_problems,
            repairs,
            reporting_verbs,
            having,
            code_languages,
            exercise_openers,
            exercise_verbs,
            computations,
            hesitations,
            participles,
            elided_subjects,
            exercise_inputs,
            made_results,
            message_kinds,
            pleas,
            reasons,
            compared,
            choices,
            permitted,
        }
    }

    /// An optional list of the language file: empty when absent, checked like any when given.
    fn optional_phrases(&mut self, doc: &Table<'_>, key: &str) -> Vec<(String, Range<usize>)> {
        match doc.get(key) {
            Some(_) => self.phrases(doc, 0..0, key, "the language file"),
            None => Vec::new(),
        }
    }
}
