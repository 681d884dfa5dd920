//! Rule 9 for context under a label: a sentence under a label that introduces context, the
//! numbered steps that follow it (an issue's "Steps to reproduce: 1. open settings 2. reload"),
//! and an issue template's headings and the sections under the context ones.

use super::*;

/// The most lists of numbered steps a message has set aside (each sentence is looked up in
/// them).
const MAX_STEP_LISTS: usize = 8;

impl View<'_> {
    /// Whether a heading's words are a context label, or open with one before a question
    /// mark or a period ("Is your feature request related to a problem? Please describe").
    fn is_context_label(&self, label: &str) -> bool {
        let first = label.split(['?', '.']).next().unwrap_or(label).trim();
        self.cls.lower_in(&self.cls.words.context_labels, label)
            || self.cls.lower_in(&self.cls.words.context_labels, first)
    }

    /// Whether `sentence` only names the setup a report happens on ("android 14, pixel 7,
    /// latest version from the play store", "Firefox 125 on Ubuntu 22.04"): short parts
    /// between commas, at least half of them holding a number, and no problem word or modal.
    /// After the report, such a sentence is its environment, no statement of its own.
    pub(in crate::conversation) fn environment_line(&self, sentence: Range<usize>) -> bool {
        let text = &self.text[sentence.clone()];
        // (Most sentences hold no number: that is looked at first.)
        if !text.bytes().any(|b| b.is_ascii_digit()) {
            return false;
        }
        let parts: SmallVec<[&str; 8]> = text.split(',').take(9).collect();
        if parts.len() > 8 || parts.iter().any(|p| count_words(p) > 6) {
            return false;
        }
        let numbered = parts
            .iter()
            .filter(|p| {
                p.split_whitespace()
                    .any(|w| w.starts_with(|c: char| c.is_ascii_digit()))
            })
            .count();
        // (A part opened by a lead asks for something: "make an itinerary for 4 days".)
        let part_starts: SmallVec<[usize; 8]> = {
            let mut at = sentence.start;
            parts
                .iter()
                .map(|p| {
                    let start = at + (p.len() - p.trim_start().len());
                    at += p.len() + 1;
                    start
                })
                .collect()
        };
        let first = self.hits.partition_point(|h| h.start() < sentence.start);
        numbered >= 1
            && numbered * 2 >= parts.len()
            && !self.hits[first..]
                .iter()
                .take_while(|h| h.start() < sentence.end)
                .any(|h| {
                    self.meanings(*h).iter().any(|m| match m {
                        Meaning::Problem | Meaning::Modal => true,
                        Meaning::Lead(_) => part_starts.contains(&h.start()),
                        _ => false,
                    })
                })
    }

    /// A sentence under a label that introduces context (`context_labels`: "Context: b2b saas,
    /// 200 customers.", "Steps to reproduce: 1. open settings"): it states no goal; the next
    /// one may.
    pub(in crate::conversation) fn context_labelled(&self, sentence: Range<usize>) -> bool {
        let start = skip_soft(self.text, sentence.start).min(sentence.end);
        // (A label is short: its colon is looked for in the first 24 bytes.)
        self.text.as_bytes()[start..sentence.end.min(start + 24)]
            .iter()
            .position(|&b| b == b':')
            .is_some_and(|colon| {
                self.cls.lower_in(
                    &self.cls.words.context_labels,
                    self.text[start..start + colon].trim(),
                )
            })
    }

    /// The numbered steps after a context label, where the text has them: after a labelled
    /// sentence that ends with "1", a sentence that ends with "2" opens a list of steps, and
    /// each sentence is a step while the one before ends with the next number ("Steps to
    /// reproduce: 1. open settings 2. change the language 3. reload": the dots after the
    /// numbers end sentences). They are the context's, no request of the user's. ("Context:
    /// a team of 1. Build me a pricing page." lists no step.) One pass over the sentences; at
    /// most `MAX_STEP_LISTS` lists, each one range.
    pub(in crate::conversation) fn context_steps(&self) -> SmallVec<[Range<usize>; 2]> {
        let mut out: SmallVec<[Range<usize>; 2]> = SmallVec::new();
        // (A label has a colon: most messages have none.)
        let labelled = self.text.contains(':');
        // The sentence after a labelled "1", while it may open a list.
        let mut first: Option<Range<usize>> = None;
        // The number the last step ended with, inside a list.
        let mut last: Option<u32> = None;
        // Whether the sentence before was a labelled one ending with "1".
        let mut opened = false;
        for s in sentences(self.text).filter(|_| labelled) {
            let number = list_number(&self.text[s.clone()]);
            if let Some(n) = last {
                // A step of the list (the last one ends with no number).
                if let Some(list) = out.last_mut() {
                    list.end = s.end;
                }
                last = (number == Some(n + 1)).then_some(n + 1);
                continue;
            }
            if let Some(f) = first.take() {
                // The sentence after the first step: the list holds when the first ended
                // with "2" (checked below), so this one is the second step.
                if out.len() < MAX_STEP_LISTS {
                    out.push(f.start..s.end);
                    last = (number == Some(3)).then_some(3);
                }
                continue;
            }
            if opened && number == Some(2) {
                first = Some(s.clone());
                opened = false;
                continue;
            }
            opened = number == Some(1) && self.context_labelled(s.clone());
        }
        // (A list that ends with its second step.)
        if let Some(f) = first
            && out.len() < MAX_STEP_LISTS
        {
            out.push(f);
        }
        // Steps on lines of their own: a line that is a context label alone ("Steps:",
        // "Steps to reproduce:"), then the list's lines ("1. enable 2FA", "- log out") up to
        // the first line that is none. And a template's headings ("**Describe the bug**",
        // "## Environment"): a heading is no sentence of the user's, and the section under
        // one that is a context label is context, up to the next heading. One pass over the
        // lines.
        let mut under_label = false;
        let mut in_section = false;
        let mut at = 0;
        // (The line pass keeps its own ranges, in order, joined to the following line across
        // blank lines only; once it holds its most and a line joins none, it stops: each gap
        // is looked at once.)
        let mut lines: SmallVec<[Range<usize>; 2]> = SmallVec::new();
        let push = |out: &mut SmallVec<[Range<usize>; 2]>, span: Range<usize>| -> bool {
            let joins = out.last().is_some_and(|list| {
                list.end <= span.start && self.text[list.end..span.start].trim().is_empty()
            });
            if joins {
                if let Some(list) = out.last_mut() {
                    list.end = span.end;
                }
                true
            } else if out.len() < MAX_STEP_LISTS {
                out.push(span);
                true
            } else {
                false
            }
        };
        // (A message of one line has no list on lines of its own, and no section.)
        let lined = self.text.contains('\n');
        for line in self.text.split_inclusive('\n').filter(|_| lined) {
            let span = at..at + line.trim_end().len();
            at += line.len();
            let t = line.trim();
            if let Some((label, rest)) = heading(t) {
                let context = self.is_context_label(label);
                // ("**Version**: 1.9.4": a heading with its value on its line.)
                if (rest.is_empty() || context) && !push(&mut lines, span) {
                    break;
                }
                in_section = context && rest.is_empty();
                under_label = false;
                continue;
            }
            if in_section && !t.is_empty() {
                if !push(&mut lines, span) {
                    break;
                }
                continue;
            }
            if bullet(t) {
                if under_label && !push(&mut lines, span) {
                    break;
                }
                continue;
            }
            under_label = t.ends_with(':') && self.context_labelled(span);
        }
        out.extend(lines);
        out
    }
}

/// A line that is a template's heading: "**Describe the bug**", "## Expected behavior",
/// "__Environment__", or a bold label and its value ("**Version**: 1.9.4"): the heading's
/// words (without marks and closing punctuation) and what follows it on the line.
fn heading(line: &str) -> Option<(&str, &str)> {
    let (inner, rest) = if let Some(t) = line.strip_prefix("**") {
        let close = t.find("**")?;
        (&t[..close], t[close + 2..].trim_start_matches(':').trim())
    } else if let Some(t) = line.strip_prefix("__") {
        let close = t.find("__")?;
        (&t[..close], t[close + 2..].trim_start_matches(':').trim())
    } else if line.starts_with('#') {
        let t = line.trim_start_matches('#');
        if !t.starts_with(' ') {
            return None;
        }
        (t, "")
    } else {
        return None;
    };
    let label = inner.trim().trim_end_matches([':', '.', '?', '!', ' ']);
    (!label.is_empty() && label.len() <= 80).then_some((label, rest))
}

/// The list number `sentence` ends with: one or two digits after a space, a colon or nothing
/// ("Steps to reproduce: 1", "open settings 2").
fn list_number(sentence: &str) -> Option<u32> {
    let t = sentence.trim_end();
    let digits = t.len() - t.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let before = &t[..t.len() - digits];
    ((1..=2).contains(&digits)
        && before
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == ':'))
    .then(|| t[before.len()..].parse().ok())
    .flatten()
}
