//! Rule 2 for a phrase that a wish closes: "an undo button after archiving an email would be
//! great", "drag and drop reordering in the playlist would be amazing".

use super::super::Signal;
use super::*;

impl View<'_> {
    /// Rule 2: a phrase closed by a wish in "would" ("... would be great", "... would help"),
    /// after a comma of context if one comes first ("I keep deleting tasks by accident, an
    /// undo button would be great"), asks for what it names: the phrase is the change, the
    /// thing it calls by a determiner or after a place the target. Its words before a
    /// condition (`CONDITIONS`: "a preview of the email before it gets sent") hold no verb, problem, modal or signal; the condition may. `ws` are the
    /// sentence's words without the wishes' (16 at most).
    pub(in crate::conversation) fn wished_phrase(
        &self,
        ws: &[Range<usize>],
        wishes: &[Range<usize>],
        end: usize,
    ) -> Option<(Option<Range<usize>>, Range<usize>)> {
        let cls = self.cls;
        // (The span may end before a later wish: "... would save me pls".)
        let wish = wishes.iter().rev().find(|x| x.end <= end)?;
        // The wish closes the sentence and says "would".
        if self.text[wish.end..end].chars().any(char::is_alphanumeric)
            || !self.text[wish.clone()]
                .get(..5)
                .is_some_and(|w| w.eq_ignore_ascii_case("would"))
        {
            return None;
        }
        let before = ws.iter().take_while(|w| w.end <= wish.start).count();
        let ws = &ws[..before];
        // (From the last comma: what comes before it is context.)
        let from = (1..ws.len())
            .rev()
            .find(|&i| self.text[ws[i - 1].end..ws[i].start].contains(','))
            .unwrap_or(0);
        let phrase = &ws[from..];
        if !(2..=14).contains(&phrase.len()) {
            return None;
        }
        let condition = phrase
            .iter()
            .position(|w| self.word_in(w, &CONDITIONS))
            .unwrap_or(phrase.len());
        let head = &phrase[..condition];
        if head.is_empty()
            || head.iter().any(|w| {
                let t = &self.text[w.clone()];
                self.is_predicate(w.clone())
                    || cls.lower_in(&cls.words.auxiliaries, t)
                    || (cls.lower_in(&cls.words.non_subjects, t) && !t.eq_ignore_ascii_case("and"))
                    || self
                        .at(w.start, |m| match m {
                            Meaning::Problem
                            | Meaning::Modal
                            | Meaning::SmallTalk
                            | Meaning::Ack
                            | Meaning::Addressee => true,
                            // (A change request's word names the feature: "bulk delete".)
                            Meaning::Signal(i) => {
                                cls.signals[i as usize].signal != Signal::ChangeRequest
                            }
                            _ => false,
                        })
                        .is_some()
            })
        {
            return None;
        }
        let head_span = head[0].start..head[head.len() - 1].end;
        let change = cls.clean(
            self.text,
            phrase[0].start..phrase[phrase.len() - 1].end,
            true,
        );
        let target = self
            .definite_thing(head_span.clone())
            .or_else(|| self.bare_place_thing(head_span));
        (!change.is_empty()).then_some((target, change))
    }
}
