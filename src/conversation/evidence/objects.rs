//! Rule 10: what a request's object holds besides its thing: what the thing is to be in ("in
//! Kotlin"), whom to tell ("Jamie that dinner is at 7"), the verb's own object after "let" or
//! "to", the problem a clause after the object reports (rule 1), the result after "so".

use super::*;

/// The endings of file names that name no technology: "cron.yaml" is a file, "Node.js" a
/// runtime.
const FILE_EXTENSIONS: [&str; 26] = [
    "yaml", "yml", "json", "toml", "ini", "cfg", "conf", "py", "ps1", "sh", "rb", "go", "rs", "ts",
    "tsx", "jsx", "txt", "csv", "md", "xml", "html", "css", "sql", "env", "lock", "php",
];

impl View<'_> {
    /// "in Kotlin", "in plain English" after a thing and nothing else (a courtesy aside): what
    /// the thing is to be in. Not a place named with a determiner ("in the footer").
    pub(super) fn in_what(&self, span: Range<usize>) -> Option<Range<usize>> {
        let cls = self.cls;
        let ws: SmallVec<[Range<usize>; 6]> = words(self.text, span.clone()).take(6).collect();
        let first = ws.first()?;
        if !self.text[first.clone()].eq_ignore_ascii_case("in") || !(2..=4).contains(&ws.len()) {
            return None;
        }
        let named = &ws[1];
        // (A file or a path is a place: "fix the cron expression in cron.yaml"; "in Node.js"
        // names a technology.)
        let name = &self.text[named.clone()];
        let file = name.contains('/')
            || name.rsplit_once('.').is_some_and(|(a, ext)| {
                !a.is_empty() && FILE_EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e))
            });
        if file
            || cls.lower_in(&cls.words.determiners, &self.text[named.clone()])
            || cls.lower_in(&cls.words.non_subjects, &self.text[named.clone()])
        {
            return None;
        }
        let value = cls.clean(self.text, first.start..span.end, false);
        (!value.is_empty() && count_words(&self.text[value.clone()]) <= 3).then_some(value)
    }

    /// A name, then "that" and what to tell them ("Jamie that dinner is at 7"): the name and
    /// the clause.
    pub(super) fn whom_that(&self, span: Range<usize>) -> Option<(Range<usize>, Range<usize>)> {
        let mut ws = words(self.text, span.clone());
        let (mut name, mut that) = (ws.next()?, ws.next()?);
        // (A person named by whose they are: "text my mum tell her ...".)
        if ["my", "our"]
            .iter()
            .any(|x| self.text[name.clone()].eq_ignore_ascii_case(x))
        {
            name = name.start..that.end;
            that = ws.next()?;
        }
        let clause = ws.next()?;
        // ("that", or the message itself opening with its speaker: "text sarah im running
        // late", "tell dave ill be there in ten".)
        let opens = |w: &Range<usize>| {
            [
                "that", "i", "im", "i'm", "ill", "i'll", "ive", "i've", "we", "we're", "we'll",
                "you", "you're", "u",
            ]
            .iter()
            .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        // (Or relayed: "text maria tell her i'm running late", "message dad let him know
        // the car is ready", "email the landlord saying the boiler is fixed".)
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        let relayed = is(&that, &["tell", "ask", "let", "say", "saying"]);
        let clause = if relayed {
            let mut c = clause;
            for skip in [
                &["her", "him", "them", "everyone"][..],
                &["know"],
                &["that"],
            ] {
                if is(&c, skip) {
                    c = ws.next()?;
                }
            }
            c
        } else if self.text[that.clone()].eq_ignore_ascii_case("that") {
            clause
        } else {
            that.clone()
        };
        let owned = name.start < that.start && words(self.text, name.clone()).nth(1).is_some();
        ((opens(&that) || relayed)
            && (owned
                || !self
                    .cls
                    .lower_in(&self.cls.words.non_subjects, &self.text[name.clone()])
                    && !self
                        .cls
                        .lower_in(&self.cls.words.determiners, &self.text[name.clone()])))
        .then(|| {
            let said = self.cls.clean(self.text, clause.start..span.end, false);
            (name, said)
        })
        .filter(|(_, s)| !s.is_empty())
    }

    /// A message sent and what it says: "a message to the on call channel saying the deploy
    /// is on hold", "a quick note to jo that the keys are under the mat": whom it goes to
    /// (the words between "to" and "saying" or "that") and what it says.
    pub(super) fn message_to(&self, span: Range<usize>) -> Option<(Range<usize>, Range<usize>)> {
        let ws: SmallVec<[Range<usize>; 12]> = words(self.text, span.clone()).take(12).collect();
        let is = |w: &Range<usize>, list: &[&str]| {
            list.iter()
                .any(|x| self.text[w.clone()].eq_ignore_ascii_case(x))
        };
        let to = ws.iter().position(|w| is(w, &["to"]))?;
        if !(1..=4).contains(&to)
            || !self.cls.lower_in(
                &self.cls.words.message_kinds,
                &self.text[ws[to - 1].clone()],
            )
        {
            return None;
        }
        let says = ws[to + 1..]
            .iter()
            .position(|w| is(w, &["saying", "that", "telling"]))
            .map(|p| p + to + 1)
            .filter(|&p| p > to + 1)?;
        let whom = self.cls.clean(self.text, ws[to].end..ws[says].start, true);
        let said = self.cls.clean(self.text, ws[says].end..span.end, false);
        (!whom.is_empty() && !said.is_empty()).then_some((whom, said))
    }

    /// The object of the verb that opens a request's object after "let" and whom it lets or
    /// after a lead that ends in "to" ("let managers approve time off requests from their
    /// phone": time off requests; "option to export the guest list as a CSV": guest list):
    /// a thing right after the verb, with a determiner or of three words at most, not a
    /// pronoun, a person or a place; and whether its determiner is a definite one.
    pub(super) fn verb_object(
        &self,
        lead: Range<usize>,
        raw: usize,
        end: usize,
    ) -> Option<(Range<usize>, bool)> {
        let cls = self.cls;
        let lead_text = self.text[lead].trim_end();
        let verb_first = lead_text
            .get(..4)
            .is_some_and(|l| l.eq_ignore_ascii_case("let "))
            || ends_with_word(lead_text, "to");
        if !verb_first {
            return None;
        }
        let mut ws = words(self.text, raw..end);
        let verb = ws.next()?;
        // (A gerund or a word of no verb is no verb: "ability to schedule posts" has one.)
        let v = self.text[verb.clone()].to_ascii_lowercase();
        if v.ends_with("ing") || cls.lower_in(&cls.words.determiners, &v) {
            return None;
        }
        let first = ws.next()?;
        let f = &self.text[first.clone()];
        if cls.lower_in(&cls.words.non_subjects, f)
            || cls.lower_in(&cls.words.people, f)
            || PLACES.iter().any(|p| f.eq_ignore_ascii_case(p))
            || cls.is_pronoun(f)
        {
            return None;
        }
        let t = self.thing(first.start..end, false)?;
        let t = cls.clean(self.text, t, true);
        let n = count_words(&self.text[t.clone()]);
        let determined = cls.lower_in(&cls.words.determiners, f);
        let definite = determined
            && !["a", "an", "some", "any"]
                .iter()
                .any(|a| f.eq_ignore_ascii_case(a));
        (!t.is_empty() && (determined || n <= 3)).then_some((t, definite))
    }

    /// Rule 1 after a lead: the problem the clause after a lead's object reports, after
    /// "where" or "when" when the object names a problem ("fix the bug where the cart
    /// empties on refresh": the cart, "empties on refresh"), after "that" or "which" when it
    /// names a thing (by a problem word, or by any verb after a lead of `repairs`: "fix the
    /// DAG that keeps retrying forever"). The target and the change.
    pub(super) fn reported_after(
        &self,
        task: usize,
        lead: Range<usize>,
        np: Range<usize>,
        end: usize,
    ) -> Option<SmallVec<[Detail; 2]>> {
        let rel = words(self.text, np.end..end).next()?;
        let rel_word = self.text[rel.clone()].to_ascii_lowercase();
        let clause = rel.end..end;
        let g = if self.names_problem(np.clone())
            && ["where", "when", "whenever"].contains(&rel_word.as_str())
        {
            self.evidence(clause, Strength::Suffix)?
        } else if ["that", "which"].contains(&rel_word.as_str()) && !self.names_problem(np.clone())
        {
            let repair = words(self.text, lead)
                .last()
                .is_some_and(|w| self.cls.lower_in(&self.cls.words.repairs, &self.text[w]));
            [Strength::Problem, Strength::Predicate, Strength::Suffix]
                .into_iter()
                .filter(|s| repair || *s == Strength::Problem)
                .find_map(|s| self.clause_within(task, clause.clone(), end, s, Some(np.clone())))?
        } else {
            return None;
        };
        let change = g.details.iter().find(|d| d.slot == 1)?.clone();
        let target = g
            .details
            .iter()
            .find(|d| d.slot == 0)
            .cloned()
            .unwrap_or_else(|| detail(0, np));
        Some(SmallVec::from_iter([target, change]))
    }

    /// The result a change is made for, right after its thing: "so" or "so that" and a clause
    /// of two words at least ("... so each provider lives in its own module").
    pub(super) fn so_that(&self, span: Range<usize>) -> Option<Range<usize>> {
        let mut ws = words(self.text, span.clone());
        let so = ws.next()?;
        if !self.text[so.clone()].eq_ignore_ascii_case("so")
            || !self.text[span.start..so.start].trim().is_empty()
        {
            return None;
        }
        let mut from = so.end;
        if let Some(that) = ws.next()
            && self.text[that.clone()].eq_ignore_ascii_case("that")
        {
            from = that.end;
        }
        let aim = self.cls.clean(
            self.text,
            skip_soft(self.text, from).min(span.end)..span.end,
            false,
        );
        (count_words(&self.text[aim.clone()]) >= 2).then_some(aim)
    }
}
