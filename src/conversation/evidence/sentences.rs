//! The sentences a message is read in: a request after a spaced dash is one of its own, and a
//! thing asked to be made after a wish of the thing decides.

use super::*;

impl View<'_> {
    /// A sentence split where a spaced dash stands before a request addressed to the
    /// assistant: the request is a sentence of its own, what comes before it context ("we
    /// have a cron job that pulls rates every hour - can you make it retry on a 503").
    pub(super) fn dash_split(&self, s: Range<usize>) -> SmallVec<[Range<usize>; 2]> {
        let mut out = SmallVec::new();
        // (Looked for at the sentence's hits of intent or wish, few: no byte is scanned.)
        let first = self.hits.partition_point(|h| h.start() <= s.start);
        let split = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < s.end)
            .find(|h| {
                self.meanings(**h)
                    .iter()
                    .any(|m| matches!(m, Meaning::Intent | Meaning::Wish | Meaning::Lead(_)))
                    && {
                        let before = self.text[s.start..h.start()].trim_end();
                        ["-", "—", "–"].iter().any(|d| {
                            before
                                .strip_suffix(d)
                                .is_some_and(|b| b.ends_with(' ') && count_words(b) >= 3)
                        })
                    }
                    && {
                        let mut next = self.text[h.start()..s.end]
                            .split_whitespace()
                            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''));
                        let (a, b) = (next.next().unwrap_or(""), next.next().unwrap_or(""));
                        run_ons::addresses(a, b)
                            || ["please", "pls", "plz"]
                                .iter()
                                .any(|x| a.eq_ignore_ascii_case(x))
                    }
            });
        match split {
            // (The request first: it states the goal, the words before the dash its context,
            // "my pre-commit hook is too slow — pls make it skip merge commits".)
            Some(h) => {
                let dash = self.text[..h.start()].trim_end();
                let dash = dash.len() - dash.chars().next_back().map_or(1, char::len_utf8);
                out.push(h.start()..s.end);
                out.push(s.start..dash);
            }
            None => out.push(s),
        }
        out
    }

    /// A thing asked to be made by a lead in one of the two sentences after `s`.
    pub(super) fn made_after(
        &self,
        owns: &[Range<usize>],
        s: &Range<usize>,
    ) -> Option<(GoalLead, Range<usize>)> {
        let artifact = self.cls.goal_index(GoalType::ArtifactCreation)?;
        owns.iter()
            .skip_while(|o| o.start <= s.start)
            .take(2)
            .find_map(|o| {
                // (Only a sentence holding an artifact's lead is read again.)
                let first = self.hits.partition_point(|h| h.start() < o.start);
                let leads = self.hits[first..]
                    .iter()
                    .take_while(|h| h.start() < o.end)
                    .any(|h| {
                        self.meanings(*h).iter().any(|m| {
                            matches!(m, Meaning::Lead(id)
                                if self.cls.leads[*id as usize].goal as usize == artifact)
                        })
                    });
                if !leads {
                    return None;
                }
                self.statement(o.clone(), false)
                    .filter(|g| g.goal == artifact && g.rule == Found::Lead)
                    .map(|g| (g, o.clone()))
            })
    }

    /// Whether `span` holds a word of the user's own ("i", "we", "my", "our" ...): a story
    /// without one is told of others.
    pub(super) fn holds_own_words(&self, span: Range<usize>) -> bool {
        words(self.text, span).any(|w| {
            [
                "i", "we", "my", "our", "me", "us", "i'm", "we're", "i've", "we've", "im", "ive",
                "mine", "ours",
            ]
            .iter()
            .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        })
    }
}
