//! Rule 10 for code asked for in a language: a request for an indefinite thing "in" a
//! programming language ("reverse a linked list in place in c++") or under one as a title
//! ("rust: parse a duration string ...") asks for code in it, not a change to what exists.

use super::*;

impl View<'_> {
    /// A task read from a lead, asked "in" a language of `code_languages` (or under one as a
    /// title, `label`): the artifact whose kind is the language and whose requirements are the
    /// request up to it. Not when the object is a thing that exists ("rewrite this in go",
    /// "fix the parser in rust").
    pub(super) fn as_code(&self, g: &GoalLead, label: Option<Range<usize>>) -> Option<GoalLead> {
        let cls = self.cls;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
        if g.goal != task || cls.goals[artifact].slots.len() < 2 {
            return None;
        }
        let object = g.description.clone();
        // (A repair is of something that exists: "fix a memory leak in go"; a title opened
        // by a verb in -ing asks how: "Converting a string to a date in Swift".)
        if words(self.text, g.lead.clone()).last().is_some_and(|w| {
            cls.lower_in(&cls.words.repairs, &self.text[w.clone()])
                || self.text[w].to_ascii_lowercase().ends_with("ing")
        }) {
            return None;
        }
        let first = self.text[g.lead.end..object.end.max(g.lead.end)]
            .split_whitespace()
            .next()?;
        if [
            "this", "these", "that", "those", "the", "my", "our", "your", "their", "it", "them",
            "its", "his", "her",
        ]
        .iter()
        .any(|d| first.eq_ignore_ascii_case(d))
            // (A part of an indefinite thing names none that exists: "reverse the order of
            // words in a sentence in C".)
            && !(first.eq_ignore_ascii_case("the") && {
                let t = &self.text[object.clone()];
                let mut cut = t.len().min(48);
                while !t.is_char_boundary(cut) {
                    cut -= 1;
                }
                let head = &t[..cut];
                [" of a ", " of an ", " in a ", " in an "]
                    .iter()
                    .any(|p| find_bytes(&head.to_ascii_lowercase(), p).is_some())
            })
        {
            return None;
        }
        let language = |t: &str| {
            let t = t.trim_end_matches([',', '.', ';', ':', '!', '?']);
            !t.is_empty() && cls.lower_in(&cls.words.code_languages, t)
        };
        let (lang, cut) = match label {
            Some(l) => {
                if !language(&self.text[l.clone()]) {
                    return None;
                }
                (l, object.end)
            }
            None => {
                // The first " in " followed by a language that ends the request or stands
                // before a comma or a condition of how ("in go without using sort").
                let text = &self.text[object.clone()];
                let lower = text.to_ascii_lowercase();
                lower.match_indices(" in ").find_map(|(p, _)| {
                    let rest = &text[p + 4..];
                    let word = rest.split_whitespace().next()?;
                    let after = rest[word.len()..].split_whitespace().next();
                    let ends = word.ends_with([',', '.', ';'])
                        || after.is_none_or(|a| {
                            [
                                "without", "using", "with", "no", "please", "pls", "only", "and",
                            ]
                            .iter()
                            .any(|x| a.eq_ignore_ascii_case(x))
                        });
                    let start = object.start + p + 4;
                    let len = word.trim_end_matches([',', '.', ';', ':', '!', '?']).len();
                    (language(word) && ends).then_some((start..start + len, object.start + p))
                })?
            }
        };
        let requirements = cls.clean(self.text, g.lead.start..cut, false);
        if requirements.is_empty() {
            return None;
        }
        Some(GoalLead {
            goal: artifact,
            description: object,
            lead: g.lead.clone(),
            wrapper: g.wrapper.clone(),
            rule: g.rule,
            details: SmallVec::from_iter([detail(0, lang), detail(1, requirements)]),
        })
    }
}
