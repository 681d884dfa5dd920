//! The values a message gives a goal's slots: the extractors and the reply read as an answer,
//! a waiver (rule 13), a correction that replaces a value (rule 12), and keeping them on the
//! goal.

use super::*;

impl Engine {
    /// The current goal stays: it takes this turn's slot values, asked slots and counters.
    pub(super) fn keep(
        &self,
        conv: &mut Conversation,
        said: &Said<'_>,
        reading: &Reading,
        fills: &Fills,
        understanding_turns: u32,
    ) {
        let in_understanding = conv.phase == Phase::Understanding;
        let gathering = matches!(conv.phase, Phase::Understanding | Phase::Planning);
        let Some(goal) = &mut conv.current_goal else {
            return;
        };
        if in_understanding {
            goal.understanding_turns = understanding_turns;
        }
        for (i, fill) in fills {
            let slot = &mut goal.required_info[*i];
            let value = match fill {
                Fill::Waived => {
                    slot.status = SlotStatus::Waived;
                    slot.value = None;
                    continue;
                }
                Fill::Span(span) => &*said.value_text(span.clone()),
                Fill::Text(text) => {
                    // A correction: the description follows when it named the replaced value.
                    if let Some(old) = slot.value.as_deref()
                        && !old.is_empty()
                    {
                        // Whole words only ("app" is not replaced inside "happy").
                        let replaced = replace_words(&goal.description, old, text);
                        if replaced != *text {
                            goal.description =
                                capped(&replaced, self.settings.max_description_chars).into_owned();
                        }
                    }
                    text.as_str()
                }
            };
            slot.status = SlotStatus::Provided;
            set_value(
                &mut slot.value,
                &capped(value, self.settings.max_value_chars),
            );
        }
        if reading.asks != 0 {
            for slot in &mut goal.required_info {
                let index = self.slot_index(&slot.name);
                let asked = index.is_some_and(|i| reading.asks & (1 << i) != 0);
                let asked_again = index.is_some_and(|i| {
                    let mask = if in_understanding {
                        reading.asks
                    } else {
                        reading.asks_in_question
                    };
                    mask & (1 << i) != 0
                });
                // Asked again before the work starts (`understanding`; in `planning`, by a
                // question), a provided slot is open to a new answer (the assistant wants more
                // than it has).
                let open = slot.status == SlotStatus::Unknown
                    || (gathering && asked_again && slot.status == SlotStatus::Provided);
                if asked && open {
                    slot.status = SlotStatus::Asked;
                }
            }
        }
    }

    /// The values a user message gives for the goal's slots. Every extractor match counts,
    /// except while a slot is asked for: a reply that the asked slot's extractors do not match is
    /// read as the answer ("A signup form and a pricing table" answers "What features?"), so it
    /// replaces no value already provided, and fills the asked slot with itself when no missing
    /// slot matched. A reply that is a non-answer, a signal or a goal answers nothing; one that
    /// leaves it to the assistant waives the asked slot (rule 13). A short correction replaces
    /// the value it competes with and fills nothing else (rule 12).
    pub(super) fn read_slots(&self, goal: &Goal, said: &Said<'_>, reading: &Reading) -> Fills {
        let text = &*said.text;
        let mut fills = Fills::new();
        let asked = goal
            .required_info
            .iter()
            .position(|s| s.status == SlotStatus::Asked);
        // (A switch marker inside a correction is the correction's: "actually make it a weekly
        // summary instead".)
        let plain = !reading.question
            && !reading.waiver
            && !reading.non_answer
            && reading
                .signals
                .without(Signal::ChangeRequest)
                .without(Signal::Switch)
                .is_empty()
            && (!reading.signals.has(Signal::Switch) || reading.goal.is_none());
        if reading.goal.as_ref().is_none_or(|g| !g.by_lead())
            && plain
            && let Some(fill) = self.correction(goal, said, reading)
        {
            fills.push(fill);
            return fills;
        }
        for (i, slot) in goal.required_info.iter().enumerate() {
            if let Some(span) = self.slot_index(&slot.name).and_then(|s| {
                self.classifier
                    .extract_replacing(text, s, slot.status == SlotStatus::Provided)
            }) {
                fills.push((i, Fill::Span(span)));
            }
        }
        // (A waiver with no slot asked, the assistant having asked in words of its own ("Tell
        // me what it needs to handle: mood, tempo ...?"), leaves the goal's first missing slot
        // to the assistant: "up to you, surprise me".)
        let unasked_waiver = || {
            (reading.waiver && reading.goal.is_none() && !reading.question)
                .then(|| {
                    goal.required_info
                        .iter()
                        .position(|s| s.status == SlotStatus::Unknown)
                })
                .flatten()
        };
        let Some(asked) = asked.or_else(unasked_waiver) else {
            return fills;
        };
        // What blocks an answer is what a rule of `understanding` acts on: approval, a cancel, a
        // switch (a new goal replaces the current one only with a switch or cancel marker).
        // Words that are signals or leads elsewhere ("add, delete ...") do not; nor does a
        // question answer by its position ("What would you suggest?").
        let acted_on = [Signal::Approve, Signal::Cancel, Signal::Switch];
        let blocked = reading.question || acted_on.iter().any(|s| reading.signals.has(*s));
        // "whatever you think makes sense" leaves it to the assistant: the approval in a
        // waiver's words is the waiver.
        let blocked_waiver = reading.question
            || [Signal::Cancel, Signal::Switch]
                .iter()
                .any(|s| reading.signals.has(*s));
        // (An extractor's match that overlaps the waiver's words is the waiver: "go with
        // whatever is standard".)
        let overlaps_waiver = |f: &(usize, Fill)| {
            matches!(&f.1, Fill::Span(s) if reading
                .waiver_at
                .as_ref()
                .is_some_and(|w| s.start < w.end && w.start < s.end))
        };
        // (A reply that opens with the waiver leaves it to the assistant whatever follows:
        // "you decide what makes sense, I'm clueless with this stuff".)
        let leads_with_waiver = reading
            .waiver_at
            .as_ref()
            .is_some_and(|w| text[..w.start].trim().is_empty());
        if reading.waiver
            && !blocked_waiver
            && (leads_with_waiver || !fills.iter().any(|f| f.0 == asked && !overlaps_waiver(f)))
        {
            fills.retain(|f| f.0 != asked);
            fills.push((asked, Fill::Waived));
            return fills;
        }
        let answers = !reading.non_answer && !blocked;
        if !answers {
            return fills;
        }
        // The answer to a question is the reply: when the asked slot's extractors read only a
        // small part of it ("my socials" of a list of parts) or not its beginning in a reply
        // that is a list ("photos" of "recipe cards with photos, a timer"; not "I need ..."),
        // the whole reply is its value.
        let whole = self.classifier.answer_span(text);
        if let Some(k) = fills.iter().position(|f| f.0 == asked) {
            if let Fill::Span(span) = &fills[k].1
                && !whole.is_empty()
                && (span.len() * 2 < whole.len()
                    || (span.start > whole.start
                        && !self
                            .classifier
                            .has_subject_word(&text[whole.start..span.start])))
            {
                fills[k].1 = Fill::Span(whole);
            }
            return fills;
        }
        fills.retain(|f| goal.required_info[f.0].status != SlotStatus::Provided);
        if fills.is_empty() && !whole.is_empty() {
            fills.push((asked, Fill::Span(whole)));
        }
        fills
    }

    /// Rule 12: a short reply correcting a value ("no, I meant Vue", "not the header, the
    /// footer"). It competes with the slot whose value holds the word it replaces, else with
    /// the goal's first slot (the kind or the target); in that value it replaces the word of
    /// the same sort (a technology a technology) or, failing that, the whole value.
    pub(super) fn correction(
        &self,
        goal: &Goal,
        said: &Said<'_>,
        reading: &Reading,
    ) -> Option<(usize, Fill)> {
        let (new, old) = reading.correction.clone()?;
        let new = said.original_text(new).to_string();
        let old = old.map(|o| said.original_text(o).to_string());
        let holds = |value: &str, word: &str| {
            let v = value.to_lowercase();
            let w = word.to_lowercase();
            v.split(|c: char| !c.is_alphanumeric() && c != '.')
                .any(|x| x == w)
                || v == w
        };
        fn provided(s: &Slot) -> Option<&str> {
            s.value.as_deref().filter(|_| s.status.is_settled())
        }
        // The slot the correction competes with: the one holding the replaced words, else
        // the one whose value is of the new value's sort (read as that slot when stated as
        // one, "use Vue"; a number for a number), else the goal's first.
        let digits = |t: &str| t.chars().any(|c| c.is_ascii_digit());
        let score = |(i, s): (usize, &Slot)| {
            let Some(v) = provided(s) else {
                return (0, usize::MAX - i);
            };
            let mut n = 0;
            if old
                .as_ref()
                .is_some_and(|o| holds(v, o) || v.to_lowercase().contains(&o.to_lowercase()))
            {
                n += 8;
            }
            if self.slot_index(&s.name).is_some_and(|k| {
                self.classifier
                    .extract_replacing(&format!("use {new}"), k, true)
                    .is_some()
            }) {
                n += 4;
            }
            if digits(&new) && digits(v) {
                n += 3;
            }
            n += new
                .split_whitespace()
                .filter(|w| w.len() > 2 && holds(v, w))
                .count();
            // (The same head noun: a thing replaces a thing, "the billing service" for "the
            // request timeout on the payments service".)
            let head = |t: &str| {
                t.split_whitespace()
                    .next_back()
                    .map(|w| {
                        w.trim_matches(|c: char| !c.is_alphanumeric())
                            .to_lowercase()
                    })
                    .filter(|w| w.len() > 2 && !w.chars().any(|c| c.is_ascii_digit()))
            };
            if head(&new).is_some_and(|h| head(v).as_deref() == Some(h.as_str())) {
                n += 5;
            }
            // A value as long as the replaced one ("sunday" for "saturday").
            let words = |t: &str| t.split_whitespace().count();
            if words(&new) <= 2 && words(&new) == words(v) {
                n += 2;
            }
            (n, usize::MAX - i)
        };
        // Nothing of its sort: the first slot still open takes it ("sorry, I meant 6:30" for
        // an alarm whose time was not given), else the goal's first.
        let open = goal
            .required_info
            .iter()
            .position(|s| !s.status.is_settled());
        let slot = goal
            .required_info
            .iter()
            .enumerate()
            .max_by_key(|x| score(*x))
            .filter(|x| score(*x).0 >= 2 || open.is_none())
            .filter(|x| score(*x).0 > 0)
            .map(|(i, _)| i)
            .or(open)
            .unwrap_or(0);
        let current = goal.required_info.get(slot)?;
        let value = match (provided(current), &old) {
            (Some(v), Some(o)) if v.to_lowercase().contains(&o.to_lowercase()) => {
                replace_words(v, o, &new)
            }
            (Some(v), None) => {
                // The word of the old value that reads as the new one's sort ("React" in
                // "React dashboard" for "Vue").
                let sort = |w: &str| {
                    self.slot_index(&current.name).is_some_and(|i| {
                        self.classifier
                            .extract_replacing(&format!("use {w}"), i, true)
                            .is_some()
                    })
                };
                match v.split_whitespace().find(|w| sort(w)) {
                    Some(w) if sort(&new) && !v.eq_ignore_ascii_case(w) => {
                        replace_words(v, w, &new)
                    }
                    _ => new.clone(),
                }
            }
            _ => new.clone(),
        };
        Some((slot, Fill::Text(value)))
    }

    pub(super) fn slot_index(&self, name: &str) -> Option<usize> {
        self.classifier
            .slots()
            .iter()
            .position(|s| &*s.name == name)
    }
}

/// `value` with the first whole-word `old` (ASCII case aside) replaced by `new`; `new` alone
/// when `value` does not hold it. ASCII lowercasing keeps every byte where it was, so the
/// positions found are positions of `value`.
pub(super) fn replace_words(value: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        return new.to_string();
    }
    let lower = value.to_ascii_lowercase();
    let o = old.to_ascii_lowercase();
    for (at, _) in lower.match_indices(&o) {
        let end = at + o.len();
        let before = value[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after = value[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        if before && after {
            // A noun the new words share with what follows the old ones is kept once: "print
            // button" for "export" in "export button on the reports screen".
            let next = value[end..].split_whitespace().next();
            let new = match new.rsplit_once(' ') {
                Some((head, last)) if next.is_some_and(|n| n.eq_ignore_ascii_case(last)) => head,
                _ => new,
            };
            return format!("{}{new}{}", &value[..at], &value[end..]);
        }
    }
    new.to_string()
}

/// Sets a slot value, reusing the old value's buffer.
pub(super) fn set_value(value: &mut Option<String>, new: &str) {
    match value {
        Some(old) => {
            old.clear();
            old.push_str(new);
        }
        None => *value = Some(new.to_string()),
    }
}
