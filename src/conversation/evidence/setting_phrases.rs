//! Rule 3 without a verb, a setting named beside where it goes: a direction at the phrase's end
//! ("ringer volume all the way down", "brightness way up") or a value beside it ("volume 30
//! please", "font size 14px", "thermostat up to 21"). `nominal.rs` asks these of the words of a
//! noun phrase.

use super::*;

impl View<'_> {
    /// Whether a word of a noun phrase is a verb: a problem's, a modal's or small talk's word,
    /// a predicate, an auxiliary, or a word that never starts a subject.
    pub(super) fn phrase_verb(&self, w: &Range<usize>) -> bool {
        let cls = self.cls;
        self.at(w.start, |m| {
            matches!(m, Meaning::Problem | Meaning::Modal | Meaning::SmallTalk)
        })
        .is_some()
            || self.is_predicate(w.clone())
            || cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()])
            || cls.lower_in(&cls.words.non_subjects, &self.text[w.clone()])
    }

    /// Whether no word of `ws` is a verb. (An arrow or an equals sign assigns a value, "font
    /// size -> 16px on the blog": it wins over a preposition before it, "sampling rate on the
    /// exporter → 0.1".)
    pub(super) fn verbless(&self, ws: &[Range<usize>]) -> bool {
        !ws.iter().any(|w| self.phrase_verb(w))
    }

    fn lower_word(&self, w: &Range<usize>) -> String {
        self.text[w.clone()].to_ascii_lowercase()
    }

    /// A setting of one to three words and a direction at the end ("up", "down", "off",
    /// "on", after "way" or "all the way"): the setting and the direction, cleaned.
    pub(super) fn setting_direction(
        &self,
        ws: &[Range<usize>],
    ) -> Option<(Range<usize>, Range<usize>)> {
        let cls = self.cls;
        let word = |w: &Range<usize>| self.lower_word(w);
        let last = ws.last()?;
        if !["up", "down", "off", "on"].contains(&word(last).as_str()) {
            return None;
        }
        let n = ws.len();
        let from = if n >= 5
            && ws[n - 4..n - 1]
                .iter()
                .map(&word)
                .eq(["all", "the", "way"].iter().map(|w| w.to_string()))
        {
            n - 4
        } else if n >= 3 && word(&ws[n - 2]) == "way" {
            n - 2
        } else {
            n - 1
        };
        if !(1..=3).contains(&from) || !self.verbless(&ws[..from]) {
            return None;
        }
        let target = cls.clean(self.text, ws[0].start..ws[from - 1].end, true);
        let value = cls.clean(self.text, ws[from].start..last.end, true);
        (!target.is_empty() && !value.is_empty()).then_some((target, value))
    }

    /// A setting of one to three words and a value starting with a digit, at most one word
    /// after it: the setting and the value, cleaned. ("Up" or "down" before "to" is the way
    /// it goes, the value's: "thermostat up to 21", "kitchen speaker down to 4"; "to" or "at"
    /// joins the value, no part of the setting: "font size to 16".)
    pub(super) fn setting_value(
        &self,
        ws: &[Range<usize>],
    ) -> Option<(Range<usize>, Range<usize>)> {
        let cls = self.cls;
        let word = |w: &Range<usize>| self.lower_word(w);
        let way = |n: usize| {
            n >= 3
                && word(&ws[n - 1]) == "to"
                && ["up", "down"].contains(&word(&ws[n - 2]).as_str())
        };
        let n = ws
            .iter()
            .position(|w| self.text[w.clone()].starts_with(|c: char| c.is_ascii_digit()))?;
        // (A time may run on after its number: "alarm 5 30 am tomorrow", "alarm 6 45 pm on
        // friday".)
        let timed = ws.len() <= n + 5
            && ws[n + 1..].iter().all(|w| {
                let t = &self.text[w.clone()];
                t.starts_with(|c: char| c.is_ascii_digit())
                    || ["am", "pm", "on", "a.m.", "p.m."]
                        .iter()
                        .any(|x| t.eq_ignore_ascii_case(x))
                    || cls.lower_in(&cls.words.times, t)
            });
        if !(1..=3 + usize::from(way(n))).contains(&n)
            || ws.len() > n + 2 && !timed
            || !self.verbless(&ws[..n - 2 * usize::from(way(n))])
        {
            return None;
        }
        let joined = n >= 2 && ["to", "at"].contains(&word(&ws[n - 1]).as_str());
        let way = way(n);
        let named = if way {
            n - 3
        } else if joined {
            n - 2
        } else {
            n - 1
        };
        let target = cls.clean(self.text, ws[0].start..ws[named].end, true);
        let from = if way { ws[n - 2].start } else { ws[n].start };
        let value = cls.clean(self.text, from..ws[ws.len() - 1].end, true);
        (!target.is_empty() && !value.is_empty()).then_some((target, value))
    }
}
