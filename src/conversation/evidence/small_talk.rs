//! Rule 7: small talk and questions about the assistant's own person state no goal.

use super::*;

impl View<'_> {
    /// Whether `span` opens with small talk and says little after it ("how are you?", "how's
    /// it going with you today"): no goal, whatever reads it (rule 7).
    pub(super) fn small_talk_at(&self, span: Range<usize>) -> bool {
        self.at(span.start, |m| m == Meaning::SmallTalk)
            .is_some_and(|h| {
                let tail = &self.text[h.end().min(span.end)..span.end];
                count_words(tail) <= self.cls.small_talk_tail_words as usize
            })
    }

    /// Rule 7: a question addressing the assistant about its own person ("do you ever get
    /// tired", "who trained you"), with no request in it.
    pub(in crate::conversation) fn about_assistant(&self, span: Range<usize>) -> bool {
        // Most sentences address no one: a cheap look for "you" first.
        let first = self.hits.partition_point(|h| h.start() < span.start);
        if !self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| self.meanings(*h).contains(&Meaning::Addressee))
        {
            return false;
        }
        let mut addressed = false;
        let mut persona = false;
        // A lead inside a phrase of the assistant's person ("remember me") is that phrase.
        let mut persona_end = 0;
        let first = self.hits.partition_point(|h| h.start() < span.start);
        for h in &self.hits[first..] {
            if h.start() >= span.end {
                break;
            }
            for m in self.meanings(*h) {
                match m {
                    Meaning::Addressee => addressed = true,
                    Meaning::Persona => {
                        persona = true;
                        persona_end = persona_end.max(h.end());
                    }
                    // (A lead word after a determiner is a noun: "or on my phone".)
                    Meaning::Lead(id) if h.end() > persona_end => {
                        let goal = self.cls.leads[*id as usize].goal as usize;
                        if self.cls.goals[goal].goal_type != GoalType::QuestionAnswer
                            && !self.after_determiner(*h)
                        {
                            return false;
                        }
                    }
                    _ => {}
                }
            }
        }
        let opener = self.skip(span.start, |m| {
            matches!(m, Meaning::Filler | Meaning::Ack | Meaning::Deferral)
        });
        let question = self.text[span.clone()].trim_end().ends_with('?')
            || self
                .at(opener, |m| match m {
                    Meaning::Lead(id) => {
                        self.cls.leads[id as usize].mode == DescriptionMode::Sentence
                    }
                    _ => false,
                })
                .is_some();
        addressed && persona && question
    }

    /// Whether the word before a hit is a determiner ("my phone", "the update"; not a
    /// demonstrative, which may stand alone: "after that make a spreadsheet").
    fn after_determiner(&self, h: Hit) -> bool {
        self.text[..h.start()]
            .split_whitespace()
            .next_back()
            .is_some_and(|w| {
                self.cls.lower_in(&self.cls.words.determiners, w)
                    && !["that", "this", "these", "those"]
                        .iter()
                        .any(|d| w.eq_ignore_ascii_case(d))
            })
    }
}
