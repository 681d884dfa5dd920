//! Rule 6 for titles that ask without a question word: a comparison ("Rust vs Go for a CLI
//! tool"), a topic "explained", and a verb's -ing form opening a title ("Parsing dates in Go").

use super::*;

/// Words of mood that open a question of their own ("should I ... or ...").
const MODAL_WORDS: [&str; 8] = [
    "should", "would", "can", "could", "will", "shall", "must", "do",
];

impl View<'_> {
    /// Rule 6 for titles: a comparison ("Rust vs Go for a CLI tool", "tabs versus spaces")
    /// or a topic followed by "explained" asks a question.
    pub(in crate::conversation) fn comparison(&self, span: Range<usize>) -> Option<GoalLead> {
        let q = self.cls.goal_index(GoalType::QuestionAnswer)?;
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(17).collect();
        if ws.len() < 2 || ws.len() > 16 {
            return None;
        }
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        };
        let versus = ws[1..ws.len() - 1]
            .iter()
            .find(|w| is(w, &["vs", "vs.", "versus"]));
        let explained = ws.last().filter(|w| is(w, &["explained", "explainer"]));
        let mark = versus.or(explained)?.clone();
        let description = self.cls.clean(self.text, span, false);
        Some(GoalLead {
            goal: q,
            description,
            lead: mark,
            wrapper: 0..0,
            rule: Found::Lead,
            details: SmallVec::new(),
        })
    }

    /// Rule 6 for a choice asked without a question word: a sentence that ends with a
    /// question mark and opens with two alternatives of one to three words joined by "or",
    /// with nothing before them ("tabs or spaces?", "jest or vitest for a new vite project?",
    /// "practise or practice when it's a verb?"), or after a question's label ("Q: ..."). It
    /// asks which.
    pub(in crate::conversation) fn choice(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        // (Only where the sentence asks: its question mark ends it.)
        let asked = self.text[span.clone()].trim_end().ends_with('?')
            || self.text[span.end..].starts_with('?');
        if !asked {
            return None;
        }
        let q = cls.goal_index(GoalType::QuestionAnswer)?;
        let ws: SmallVec<[Range<usize>; 8]> = words(self.text, span.clone()).take(8).collect();
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        };
        // (Past a question's label: "Q: tabs or spaces?".)
        let from = usize::from(
            ws.first()
                .is_some_and(|w| is(w, &["q", "question"]) && self.text[w.end..].starts_with(':')),
        );
        let or = ws
            .iter()
            .skip(from + 1)
            .take(3)
            .position(|w| is(w, &["or"]))?
            + from
            + 1;
        let after = ws.get(or + 1)?;
        // (Alternatives are names: no word of a clause, a person or a lead among the first.)
        let plain = |w: &Range<usize>| {
            let t = &self.text[w.clone()];
            !cls.lower_in(&cls.words.non_subjects, t)
                && !cls.lower_in(&cls.words.auxiliaries, t)
                && !cls.lower_in(&cls.words.determiners, t)
                && !MODAL_WORDS.iter().any(|m| t.eq_ignore_ascii_case(m))
                && self
                    .at(w.start, |m| {
                        matches!(m, Meaning::Lead(_) | Meaning::Intent | Meaning::SmallTalk)
                    })
                    .is_none()
        };
        if !ws[from..or].iter().all(plain) || !plain(after) {
            return None;
        }
        let description = self.cls.clean(self.text, ws[from].start..span.end, false);
        Some(GoalLead {
            goal: q,
            description,
            lead: ws[or].clone(),
            wrapper: 0..0,
            rule: Found::Lead,
            details: SmallVec::new(),
        })
    }

    /// Where a problem may stand as the object of a title's -ing form: its next two words,
    /// before any place or condition word, when no determiner opens them. A problem there is
    /// what the title asks how to handle ("Removing duplicates from a list while keeping
    /// order", "Debugging memory leaks in Node"); after a determiner it tells what the thing
    /// does ("Scrolling the feed jumps to the top").
    pub(in crate::conversation) fn gerund_object(
        &self,
        gerund_end: usize,
        end: usize,
    ) -> Range<usize> {
        let mut object_end = gerund_end;
        for w in words(self.text, gerund_end..end).take(2) {
            if self.word_in(&w, &PLACES)
                || self.word_in(&w, &CONDITIONS)
                || self
                    .cls
                    .lower_in(&self.cls.words.determiners, &self.text[w.clone()])
            {
                break;
            }
            object_end = w.end;
        }
        gerund_end..object_end
    }

    /// Rule 6 for titles: a title that opens with a verb's -ing form and states nothing else
    /// ("Reading a large CSV file in chunks with pandas", "Parsing dates in Go") asks how; a
    /// problem (other than the verb's object), a wish, a modal or a verb describing behaviour
    /// makes it a statement ("Sorting is broken", "Scrolling feels janky"), and small talk, a filler or an acknowledgement
    /// anywhere in it makes it conversation ("just looking around tbh"). The caller asks that
    /// the form open the sentence.
    pub(in crate::conversation) fn how_to_title(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let first = words(self.text, span.clone()).next()?;
        // (Most sentences open with no -ing form: their first word's end is looked at first.)
        let raw = self.text[first.clone()].as_bytes();
        if raw.len() < 6 || !raw[raw.len() - 3..].eq_ignore_ascii_case(b"ing") {
            return None;
        }
        let verb = cls.ing_of_verb(&self.text[first.clone()].to_ascii_lowercase());
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(15).collect();
        if !verb || !(3..=14).contains(&ws.len()) || self.text[span.clone()].contains('?') {
            return None;
        }
        let object = self.gerund_object(first.end, span.end);
        let from = self.hits.partition_point(|h| h.start() < span.start);
        let stated = self.hits[from..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| {
                self.meanings(*h).iter().any(|m| {
                    (*m == Meaning::Problem
                        && !(object.start <= h.start() && h.end() <= object.end))
                        || matches!(
                            m,
                            Meaning::Modal
                                | Meaning::Wish
                                | Meaning::Signal(_)
                                | Meaning::SmallTalk
                                | Meaning::Ack
                                | Meaning::Filler
                        )
                })
            })
            || ws[1..].iter().any(|w| {
                self.is_predicate(w.clone())
                    || cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()])
            });
        if stated {
            return None;
        }
        Some(GoalLead {
            goal: cls.goal_index(GoalType::QuestionAnswer)?,
            description: cls.clean(self.text, span, false),
            lead: first,
            wrapper: 0..0,
            rule: Found::Lead,
            details: SmallVec::new(),
        })
    }
}
