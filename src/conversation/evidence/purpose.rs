//! Rule 2 for a feature named with its purpose ("a button to copy the invite link", "a way to
//! duplicate a whole board", "option to snooze reminders").

use super::*;

impl View<'_> {
    /// A feature and what it is for ("a button to copy the invite link", "a way to duplicate a
    /// whole board", "option to snooze reminders"), in the words `ws` of a phrase from
    /// `start` to `end`: a noun, then "to" and a plain verb within its first five words. The
    /// whole phrase (to a comma) is the change; the thing the purpose names (its last thing
    /// called by a determiner, else its object) the target.
    pub(in crate::conversation) fn purpose(
        &self,
        ws: &[Range<usize>],
        start: usize,
        end: usize,
    ) -> Option<(Option<Range<usize>>, Range<usize>)> {
        let cls = self.cls;
        let p = ws
            .iter()
            .take(5)
            .position(|w| self.text[w.clone()].eq_ignore_ascii_case("to"))?;
        // (A verb may have a modifier before it: "a way to bulk delete photos".)
        // (Where "to" ends, for a lead that ends with it.)
        let to_end = ws[p].end;
        let p = if ws.get(p + 1).is_some_and(|m| {
            ["bulk", "batch", "mass", "auto", "quickly", "easily", "also"]
                .iter()
                .any(|x| self.text[m.clone()].eq_ignore_ascii_case(x))
        }) && ws.len() > p + 2
        {
            p + 1
        } else {
            p
        };
        // (After a lead that ends in "to" any word is the verb: "add a way to favourite
        // recipes", "an option to unpin all".)
        // (Such a lead is short: it starts within 24 bytes before its "to".)
        let near = self.hits.partition_point(|h| h.start() + 24 < to_end);
        let led = self.hits[near..]
            .iter()
            .take_while(|h| h.start() < to_end)
            .any(|h| {
                h.end() == to_end
                    && self
                        .meanings(*h)
                        .iter()
                        .any(|m| matches!(m, Meaning::Lead(_)))
            });
        if p == 0
            || !ws.get(p + 1).is_some_and(|v| {
                let t = &self.text[v.clone()];
                cls.lower_in(&cls.words.verbs, t)
                    || self
                        .at(v.start, |m| matches!(m, Meaning::Lead(_)))
                        .is_some()
                    || (led
                        && t.chars().all(|c| c.is_alphabetic() || c == '-')
                        && !cls.lower_in(&cls.words.determiners, t)
                        && !cls.lower_in(&cls.words.non_subjects, t))
            })
            || ws[..p].iter().any(|w| {
                self.is_predicate(w.clone())
                    || cls.lower_in(&cls.words.non_subjects, &self.text[w.clone()])
                    || cls.lower_in(&cls.words.verbs, &self.text[w.clone()])
            })
        {
            return None;
        }
        let after = ws[p + 1].end;
        let clause = self.text[after..end]
            .find([',', ';'])
            .map_or(end, |c| after + c);
        // (A reason after "so" and a subject is no part of it: "a way to favourite recipes so
        // i can find them again".)
        let said: SmallVec<[Range<usize>; 16]> = words(self.text, after..clause).take(16).collect();
        let clause = said
            .windows(2)
            .find(|w| {
                self.text[w[0].clone()].eq_ignore_ascii_case("so")
                    && ["i", "we", "you", "they", "it", "that", "users", "people"]
                        .iter()
                        .any(|x| self.text[w[1].clone()].eq_ignore_ascii_case(x))
            })
            .map_or(clause, |w| w[0].start);
        let target = self
            .last_definite(after..clause)
            .or_else(|| self.thing(after..clause, false));
        let change = cls.clean(self.text, start..clause, true);
        (!change.is_empty()).then_some((target, change))
    }
}
