//! A plain verb of the vocabulary that no lead group holds, after a wish or at a sentence's
//! start (rule 2): a request of what it says.

use super::*;

impl View<'_> {
    /// Rule 2 for a request led by a plain verb of the vocabulary that no lead group holds,
    /// past the intents before it: the change is the verb and what follows, the target the
    /// last thing named with a determiner, else the verb's object.
    pub(super) fn imperative(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let start = self.skip(span.start, |m| {
            matches!(m, Meaning::Filler | Meaning::Ack | Meaning::Intent)
        });
        // (A verb's word heading a thing something happened to is its noun: "Import job
        // killed with exit code 137".)
        let mut ws = words(self.text, start..span.end);
        let verb = ws.next()?;
        let object = ws.next()?;
        // (A verb inside a signal's phrase asks for nothing: "go ahead", "go for it".)
        let signalled = self
            .at(verb.start, |m| {
                matches!(m, Meaning::Signal(_) | Meaning::SmallTalk)
            })
            .is_some();
        // (After an impersonal wish any verb is what is wished for: "it'd be cool to see the
        // commit history in the file viewer".)
        let wished = {
            let skipped = self.text[span.start..start].trim_end().to_ascii_lowercase();
            skipped.ends_with(" to") && skipped.contains(" be ")
        };
        if signalled
            || !(wished || cls.lower_in(&cls.words.verbs, &self.text[verb.clone()]))
            || self.text[span.clone()].trim_end().ends_with('?')
            || cls.lower_in(&cls.words.auxiliaries, &self.text[object.clone()])
            || cls.lower_in(&cls.words.non_subjects, &self.text[object.clone()])
            || count_words(&self.text[start..span.end]) > 16
        {
            return None;
        }
        let task = cls.goal_index(GoalType::TaskExecution)?;
        // The verb's word heading a noun that has a verb in -s of its own ("share link opens a
        // blank page", "print preview cuts off the last column") is the subject of a report.
        if let Some(v) = ws.next() {
            let t = self.text[v.clone()].to_ascii_lowercase();
            let after = words(self.text, v.end..span.end).next();
            let s_verb =
                t.len() >= 4 && t.ends_with('s') && !t.ends_with("ss") && !t.ends_with("us");
            // (Or a verb in -s known as one, "Run button stays disabled after a failed run",
            // "Upload queue stalls when ..."; or a plain verb after a plural, "Invite emails
            // link to the old domain".)
            let known = s_verb
                && (self.is_predicate(v.clone())
                    || cls.lower_in(&cls.words.verbs, &t[..t.len() - 1])
                    || after.as_ref().is_some_and(|a| {
                        WHEN.iter()
                            .any(|w| self.text[a.clone()].eq_ignore_ascii_case(w))
                    }));
            let plural_verb = cls.plural(&self.text[object.clone()])
                && cls.lower_in(&cls.words.verbs, &t)
                && after.is_some();
            if known
                || plural_verb
                || s_verb
                    && after.is_some_and(|a| {
                        let a = &self.text[a];
                        cls.lower_in(&cls.words.determiners, a)
                            || PARTICLES.iter().any(|p| a.eq_ignore_ascii_case(p))
                    })
            {
                let problem = cls.clean(self.text, v.start..span.end, false);
                return Some(report(
                    task,
                    Some(verb.start..object.end),
                    problem,
                    cls.clean(self.text, start..span.end, false),
                    v,
                    Found::ProblemReport,
                ));
            }
        }
        let change = cls.clean(self.text, verb.start..span.end, false);
        let target = self
            .last_definite(object.start..span.end)
            .or_else(|| self.thing(object.start..span.end, false));
        Some(task_by_verb(
            task,
            target,
            change,
            verb,
            0..0,
            Found::Nominal,
        ))
    }
}

/// A task read by its verb: its description and change the verb with its object, its target
/// the thing acted on, when one is named.
pub(super) fn task_by_verb(
    task: usize,
    target: Option<Range<usize>>,
    change: Range<usize>,
    lead: Range<usize>,
    wrapper: Range<usize>,
    rule: Found,
) -> GoalLead {
    let mut details = SmallVec::new();
    if let Some(t) = target {
        details.push(detail(0, t));
    }
    details.push(detail(1, change.clone()));
    GoalLead {
        goal: task,
        description: change,
        lead,
        wrapper,
        rule,
        details,
    }
}
