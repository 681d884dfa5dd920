//! The language file (`language.toml`): its word lists, required and optional, checked
//! item by item.

use super::files::{Cx, Table};
use super::*;

impl Cx<'_> {
    pub(super) fn language(&mut self, doc: &Table<'_>) -> Language {
        const KEYS: [&str; 48] = [
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
        let context_labels = self.optional_phrases(doc, "context_labels");
        let feature_heads = self.optional_phrases(doc, "feature_heads");
        let problem_modifiers = self.optional_phrases(doc, "problem_modifiers");
        let singular_in_s = self.optional_phrases(doc, "singular_in_s");
        let feature_titles = self.optional_phrases(doc, "feature_titles");
        let times = self.optional_phrases(doc, "times");
        let time_prepositions = self.optional_phrases(doc, "time_prepositions");
        let means = self.optional_phrases(doc, "means");
        let intensifiers = self.optional_phrases(doc, "intensifiers");
        let feature_scopes = self.optional_phrases(doc, "feature_scopes");
        let subordinators = self.optional_phrases(doc, "subordinators");
        let quantities = self.optional_phrases(doc, "quantities");
        let opener_modifiers = self.optional_phrases(doc, "opener_modifiers");
        let fine_states = self.optional_phrases(doc, "fine_states");
        let mut lists: Vec<Vec<String>> = KEYS[..KEYS.len() - 15]
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
            context_labels: context_labels.into_iter().map(|(s, _)| s).collect(),
            feature_heads: feature_heads.into_iter().map(|(s, _)| s).collect(),
            problem_modifiers: problem_modifiers.into_iter().map(|(s, _)| s).collect(),
            singular_in_s: singular_in_s.into_iter().map(|(s, _)| s).collect(),
            feature_titles: feature_titles.into_iter().map(|(s, _)| s).collect(),
            times: times.into_iter().map(|(s, _)| s).collect(),
            time_prepositions: time_prepositions.into_iter().map(|(s, _)| s).collect(),
            means: means.into_iter().map(|(s, _)| s).collect(),
            intensifiers: intensifiers.into_iter().map(|(s, _)| s).collect(),
            feature_scopes: feature_scopes.into_iter().map(|(s, _)| s).collect(),
            subordinators: subordinators.into_iter().map(|(s, _)| s).collect(),
            quantities: quantities.into_iter().map(|(s, _)| s).collect(),
            opener_modifiers: opener_modifiers.into_iter().map(|(s, _)| s).collect(),
            fine_states: fine_states.into_iter().map(|(s, _)| s).collect(),
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
