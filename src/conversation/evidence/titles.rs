//! Rule 8 for titles: where a label ends (a tag in brackets, a label before a colon or a dash
//! that names a task or a place), and the change a feature's label or a wish asks for.

use super::*;

impl View<'_> {
    /// Rule 8: a short label before a colon ("Bug:", "feat(ui):", "Feature request:"): where
    /// the sentence goes on, and whether the label names a task.
    pub(in crate::conversation) fn title(&self, span: Range<usize>) -> Option<(usize, bool)> {
        let text = &self.text[span.clone()];
        // A tag in brackets: "[Bug] ...", "[feature request] ...".
        if let Some(inner) = text.strip_prefix('[')
            && let Some(close) = inner.find(']').filter(|c| *c <= 30)
        {
            let label = &inner[..close];
            if !label.is_empty()
                && count_words(label) <= 3
                && label
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'))
            {
                let task = label
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| self.cls.lower_in(&self.cls.words.task_titles, w));
                // (Tags in a row are one label: "[Bug][iOS] Share sheet crashes on iPad". At
                // most four are looked at, each of at most 30 bytes.)
                let mut after = close + 2;
                for _ in 0..3 {
                    let rest = &text[after..];
                    let gap = rest.len() - rest.trim_start().len();
                    let Some(close) = rest[gap..]
                        .strip_prefix('[')
                        .and_then(|t| t.find(']').filter(|c| *c <= 30))
                    else {
                        break;
                    };
                    after += gap + close + 2;
                }
                // (The position of the bracket: the caller skips the character there.)
                return Some((span.start + after, task));
            }
        }
        // A colon, or a dash after a label that names a task ("Bug report - ...").
        // (Only a label that names a task may stand before a dash: its first word is looked
        // up before the dash is looked for.)
        let first_titled = text
            .split_whitespace()
            .next()
            .is_some_and(|w| self.cls.lower_in(&self.cls.words.task_titles, w));
        let dash = first_titled
            .then(|| find_first_of(text, &[" - ", " — ", " – "]))
            .flatten()
            .filter(|(p, _)| {
                text[..*p]
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| self.cls.lower_in(&self.cls.words.task_titles, w))
            });
        if let Some((p, n)) = dash
            && count_words(&text[..p]) <= 4
            && text.find(':').is_none_or(|c| c > p)
        {
            return Some((span.start + p + n - 1, true));
        }
        // A short label of plain words before a dash, then a sentence ("Login page - forgot
        // password link does nothing", "mobile - the hamburger icon is misaligned"): a title
        // whose label is the place. (No phrase of the vocabulary in the label: "fix the header
        // - it overlaps" is a request, "hi - can you help" a greeting.)
        if !first_titled
            && let Some((p, n)) = find_first_of(text, &[" - ", " — ", " – "])
            && (1..=3).contains(&count_words(&text[..p]))
            && count_words(&text[p + n..]) >= 3
            && text.find(':').is_none_or(|c| c > p)
        {
            let first = self.hits.partition_point(|h| h.start() < span.start);
            let plain = self.hits[first..]
                .iter()
                .take_while(|h| h.start() < span.start + p)
                .next()
                .is_none();
            if plain {
                return Some((span.start + p + n - 1, false));
            }
        }
        let colon = text.find(':')?;
        let label = &text[..colon];
        let after = text[colon + 1..].chars().next();
        // A label introducing what follows on the next line ("git push rejected:") is a
        // sentence of its own.
        if text[colon + 1..].trim().is_empty() {
            return None;
        }
        // A label names a task when it is one ("Feature request", "bug") or ends with one
        // ("UI bug"); "request timeout" names a setting.
        // A compound of two words names a thing ("request timeout", "build cache") unless
        // its last word is a task's too.
        let lower = label.trim().to_ascii_lowercase();
        let label_words: SmallVec<[&str; 6]> = label.split_whitespace().take(6).collect();
        let is_title = |w: &str| self.cls.lower_in(&self.cls.words.task_titles, w);
        let titled = self.cls.words.task_titles.contains(&lower)
            || label_words.last().is_some_and(|w| is_title(w))
            || (label_words.first().is_some_and(|w| is_title(w)) && label_words.len() != 2);
        // (A setting's name may hold its scope when its value is a quantity: "retention for
        // the audit logs: 90 days", "max retries for failed jobs: 3".)
        let value = text[colon + 1..].trim();
        let quantity = value.starts_with(|c: char| c.is_ascii_digit()) && count_words(value) <= 3;
        // (A label that counts what follows may say whose it is: "Two things from our team:
        // please add ...", "3 small requests for the editor: ...".)
        let counts = label_words.first().is_some_and(|w| {
            w.bytes().all(|b| b.is_ascii_digit())
                || requests::NUMBER_WORDS
                    .iter()
                    .any(|n| w.eq_ignore_ascii_case(n))
        }) && label_words
            .iter()
            .skip(1)
            .take(2)
            .any(|w| w.len() > 3 && w.ends_with('s'));
        // (A topic in brackets after the label is not counted: "Exercise 4.2 (recursion):".)
        let counted = label
            .trim_end()
            .strip_suffix(')')
            .and_then(|l| l.rsplit_once('('))
            .map_or(label, |(l, _)| l);
        if colon == 0
            || colon > 60
            || count_words(counted) > if titled || quantity || counts { 6 } else { 3 }
            || !label.chars().all(|c| {
                c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '(' | ')' | '/' | '.')
            })
            || after.is_some_and(|c| !c.is_whitespace())
        {
            return None;
        }
        let kind = label.split('(').next().unwrap_or(label).trim();
        let task = titled || self.cls.lower_in(&self.cls.words.task_titles, kind);
        Some((span.start + colon + 1, task))
    }

    /// A task lead no extractor reads, after a feature's label or a wish, asks for the
    /// feature its verb and object say, on the thing it names: "Feature request: split one
    /// transaction across several categories", "It would be great to review only the words I
    /// got wrong".
    pub(super) fn feature_change(&self, g: &mut GoalLead) {
        let cls = self.cls;
        if cls.goals[g.goal].goal_type != GoalType::TaskExecution
            || g.details.iter().any(|d| d.slot == 1)
            || g.description.end <= g.lead.end
        {
            return;
        }
        // (To the end of its clause: what follows a comma is the user's reason.)
        let end = self.text[g.lead.end..g.description.end]
            .find([',', ';'])
            .map_or(g.description.end, |c| g.lead.end + c);
        if !g.details.iter().any(|d| d.slot == 0)
            && let Some(t) = self
                .last_definite(g.lead.end..end)
                .or_else(|| self.thing(g.lead.end..end, false))
        {
            g.details.push(detail(0, t));
        }
        g.details
            .push(detail(1, cls.clean(self.text, g.lead.start..end, false)));
    }
}
