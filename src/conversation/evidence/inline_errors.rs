//! Rule 1 for an error told in the user's own sentence ("i keep getting 'permission denied
//! (publickey)' when i clone from our gitlab"): the quoted words or the marker are the
//! problem, the thing the sentence names (or what the user was doing) the target.

use super::*;

impl View<'_> {
    /// Rule 1 for an error told in the user's own sentence that no other rule reads ("i keep
    /// getting 'permission denied (publickey)' when i clone from our gitlab", "OOMKilled
    /// again on the image worker pod"): the quoted words or the marker are the problem, the
    /// thing the sentence names the target.
    /// Whether the sentence holding `at` opens with "what" and an auxiliary ("what does",
    /// "what will", "what should"): it asks what something gives.
    fn asks_what_it_gives(&self, at: usize) -> bool {
        // (The sentence found among the sentence ends by a binary search: a message of many
        // quotes stays linear.)
        let ends = &self.sentence_ends;
        let i = ends.partition_point(|e| (*e as usize) < at);
        let start = i.checked_sub(1).map_or(0, |p| ends[p] as usize + 1);
        let start = self.skip(start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        let mut ws = words(self.text, start..at);
        ws.next()
            .is_some_and(|w| self.text[w].eq_ignore_ascii_case("what"))
            && ws.next().is_some_and(|w| {
                [
                    "does", "do", "did", "will", "would", "should", "can", "could",
                ]
                .iter()
                .any(|a| self.text[w.clone()].eq_ignore_ascii_case(a))
            })
    }

    pub(in crate::conversation) fn inline_error(&self) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        let h = self
            .hits
            .iter()
            .find(|h| self.meanings(**h).contains(&Meaning::ErrorMarker))
            .or_else(|| {
                // Or words in quotes right after getting or throwing them ("I keep getting
                // 'ECONNRESET' from the payments service"); not after a question of what a
                // thing gives, whose quote is the thing asked about ("what does this query
                // return `orders.GroupBy(...)`").
                self.hits.iter().find(|h| {
                    self.meanings(**h)
                        .iter()
                        .any(|m| matches!(m, Meaning::Introducer | Meaning::Problem))
                        && self.text[h.end()..]
                            .trim_start()
                            .starts_with(['\'', '"', '`'])
                        && !self.asks_what_it_gives(h.start())
                })
            })
            .map(|h| h.start()..h.end());
        // Or an exception's name and its message in the user's sentence ("running migrations
        // gives me django.db.utils.OperationalError: no such column: orders.discount"): the
        // message is the line's, read as a pasted one's.
        let (h, named) = match h {
            Some(h) => (h, false),
            None => (camel_error(self.text)?, true),
        };
        let sentence = sentences(self.text).find(|s| s.start <= h.start && h.end <= s.end)?;
        if named {
            let message = self.error_message(h.start..sentence.end);
            let target = self
                .definite_named(sentence.start..h.start)
                .or_else(|| self.doing(sentence.start..h.start));
            return Some(report(
                task,
                target,
                message,
                self.cls.clean(self.text, sentence, false),
                h,
                Found::PastedError,
            ));
        }
        let quoted = quoted(self.text, h.end..sentence.end.max(h.end))
            .or_else(|| quoted(self.text, sentence.clone()));
        // (A marker keeps the address or path it names: "ECONNREFUSED 127.0.0.1:5432",
        // "EACCES /var/run/docker.sock".)
        let next = self.text[h.end..sentence.end.max(h.end)]
            .strip_prefix(' ')
            .and_then(|t| t.split(char::is_whitespace).next())
            .map(|t| t.trim_end_matches([',', '.', ';', ')']))
            .filter(|t| {
                t.len() <= 64
                    && t.contains([':', '/', '.'])
                    && t.contains(|c: char| c.is_ascii_digit() || c == '/')
            });
        let marker = h.start..h.end + next.map_or(0, |t| t.len() + 1);
        let message = self.with_status_code(quoted.unwrap_or(marker));
        let outside = |t: &Range<usize>| !(message.start <= t.start && t.end <= message.end);
        // (What the user was doing names it too: "... when pushing to github"; its object
        // before any place after it, "when running the deploy script on the server", and a
        // thing named before the message before both: "the worker throws ...".)
        let named = self.definite_named(sentence.clone()).filter(outside);
        // (Where the condition starts, if it does.)
        let cond = words(self.text, message.end..sentence.end.max(message.end))
            .take(16)
            .find(|w| {
                ["when", "while", "whenever"]
                    .iter()
                    .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
            })
            .map(|w| w.start);
        let target = named
            .clone()
            .filter(|t| t.end <= cond.unwrap_or(message.start))
            .or_else(|| cond.and_then(|c| self.bare_place_thing(message.end..c)))
            .or_else(|| self.doing(message.end..sentence.end))
            .or(named)
            .or_else(|| self.bare_place_thing(message.end..sentence.end))
            .filter(outside)
            .or_else(|| self.subject_before_introducer(sentence.start..message.start));
        Some(report(
            task,
            target,
            message,
            self.cls.clean(self.text, sentence, false),
            h,
            Found::PastedError,
        ))
    }

    /// The words that open `span` before an introducer ("flutter run gives me ...", "the
    /// worker throws ..."): one to four words, no pronoun first.
    pub(super) fn subject_before_introducer(&self, span: Range<usize>) -> Option<Range<usize>> {
        let first = self.hits.partition_point(|h| h.start() < span.start);
        let intro = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .find(|h| self.meanings(**h).contains(&Meaning::Introducer))?;
        let subject = self.cls.clean(self.text, span.start..intro.start(), true);
        let n = count_words(&self.text[subject.clone()]);
        let pronoun = words(self.text, subject.clone()).next().is_some_and(|w| {
            self.cls.is_pronoun(&self.text[w.clone()])
                || self
                    .cls
                    .lower_in(&self.cls.words.non_subjects, &self.text[w])
        });
        ((1..=4).contains(&n) && !pronoun).then_some(subject)
    }
}
