//! Rules 1 and 2 without a lead verb: problem reports (a subject and a problem predicate, or
//! a verb describing behaviour), requests of the thing itself (a subject and a modal), and
//! pasted errors.

use super::*;

impl View<'_> {
    /// The predicates of a clause, in order, for a strength of evidence: (where, a modal).
    pub(in crate::conversation) fn predicates(
        &self,
        span: Range<usize>,
        strength: Strength,
    ) -> SmallVec<[(Range<usize>, bool); 4]> {
        let mut out = SmallVec::new();
        match strength {
            // A word of the `predicates` list (looked up by word: they are common words, and
            // only a message with no goal elsewhere needs them), not inside a signal phrase.
            Strength::Predicate => {
                let mut next_hit = self.hits.partition_point(|h| h.start() < span.start);
                let mut signal_end = 0;
                for w in words(self.text, span.clone()) {
                    while let Some(h) = self.hits.get(next_hit).filter(|h| h.start() <= w.start) {
                        if h.start() > span.start
                            && self
                                .meanings(*h)
                                .iter()
                                .any(|m| matches!(m, Meaning::Signal(_)))
                        {
                            signal_end = signal_end.max(h.end());
                        }
                        next_hit += 1;
                    }
                    if w.start > span.start && signal_end < w.end && self.is_predicate(w.clone()) {
                        out.push((w, false));
                        if out.len() >= 4 {
                            break;
                        }
                    }
                }
            }
            Strength::Problem => {
                let want = |m: &Meaning| matches!(m, Meaning::Problem | Meaning::Modal);
                let first = self.hits.partition_point(|h| h.start() < span.start);
                for h in &self.hits[first..] {
                    if h.start() >= span.end {
                        break;
                    }
                    let meanings = self.meanings(*h);
                    // Not inside a signal phrase ("makes sense", "mission accomplished").
                    // (A modal counts inside one: "should be" is a change request's phrase too.)
                    let modal = meanings.contains(&Meaning::Modal);
                    if h.start() > span.start && (!h.shadowed || modal) && meanings.iter().any(want)
                    {
                        out.push((h.start()..h.end(), meanings.contains(&Meaning::Modal)));
                    }
                }
            }
            Strength::Suffix => {
                let mut previous: Option<Range<usize>> = None;
                let mut next_hit = self.hits.partition_point(|h| h.start() < span.start);
                let mut signal_end = 0;
                let all: SmallVec<[Range<usize>; 16]> = words(self.text, span).collect();
                for (i, w) in all.iter().cloned().enumerate() {
                    // The furthest end of the signal phrases started so far (one pass).
                    while let Some(h) = self.hits.get(next_hit).filter(|h| h.start() <= w.start) {
                        if self
                            .meanings(*h)
                            .iter()
                            .any(|m| matches!(m, Meaning::Signal(_)))
                        {
                            signal_end = signal_end.max(h.end());
                        }
                        next_hit += 1;
                    }
                    let word = self.text[w.clone()].to_ascii_lowercase();
                    // A pronoun or a determiner ("this", "its", "his") is neither a plural
                    // nor a verb.
                    let function_word = self.cls.lower_in(&self.cls.words.non_subjects, &word)
                        || self.cls.lower_in(&self.cls.words.determiners, &word)
                        || self.cls.lower_in(&self.cls.words.auxiliaries, &word);
                    let plural = !function_word
                        && word.len() >= 4
                        && word.ends_with('s')
                        && !word.ends_with("ss")
                        && !word.ends_with("us")
                        && !word.ends_with("'s");
                    let verb =
                        plural || (!function_word && word.len() >= 5 && word.ends_with("ed"));
                    let after_thing = previous.as_ref().is_some_and(|p| {
                        !self
                            .cls
                            .lower_in(&self.cls.words.determiners, &self.text[p.clone()])
                    });
                    // What follows a verb: a determiner, a preposition, an adverb, a number
                    // ("closes as soon as", "runs twice", "shows yesterday's date" aside).
                    let next = all.get(i + 1).map(|n| &self.text[n.clone()]);
                    let continues = next.is_some_and(|n| {
                        PARTICLES.iter().any(|p| n.eq_ignore_ascii_case(p))
                            || self.cls.lower_in(&self.cls.words.determiners, n)
                            || self.cls.lower_in(&self.cls.words.ends, n)
                            || self.cls.lower_in(&self.cls.words.auxiliaries, n)
                            || PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                            || n.starts_with(|c: char| c.is_ascii_digit())
                            || n.ends_with("ly")
                    });
                    // A verb with something after it ("closes as soon as ..."), not a signal's
                    // word ("mission accomplished") or a sentence of two words ("greatness
                    // awaits").
                    let in_signal = signal_end >= w.end;
                    if verb && after_thing && continues && all.len() >= i + 3 && !in_signal {
                        out.push((w.clone(), false));
                    }
                    // A plural noun before a bare word: that word is the verb ("my bluetooth
                    // headphones disconnect every few minutes", "reminders show up late").
                    if plural
                        && !continues
                        && !in_signal
                        && all.len() >= i + 3
                        && let Some(n) = all.get(i + 1)
                    {
                        out.push((n.clone(), false));
                    }
                    if out.len() >= 4 {
                        break;
                    }
                    previous = Some(w);
                }
            }
        }
        out
    }

    /// A word of the `predicates` list.
    pub(in crate::conversation) fn is_predicate(&self, w: Range<usize>) -> bool {
        self.cls.lower_in(&self.cls.words.predicates, &self.text[w])
    }

    /// Rules 1 and 2 without a lead verb: in each clause, a subject naming a thing and then a
    /// problem predicate ("the submit button is hidden behind the keyboard") or a modal ("the
    /// export should include archived items"). The last clause that holds one decides: a
    /// detail follows its overview.
    pub(in crate::conversation) fn evidence(
        &self,
        span: Range<usize>,
        weakest: Strength,
    ) -> Option<GoalLead> {
        [Strength::Problem, Strength::Predicate, Strength::Suffix]
            .into_iter()
            .filter(|s| *s <= weakest)
            .find_map(|s| self.evidence_of(span.clone(), s))
    }

    pub(in crate::conversation) fn evidence_of(
        &self,
        span: Range<usize>,
        strength: Strength,
    ) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        if self.cls.goals[task].slots.len() < 2 {
            return None;
        }
        let mut found = None;
        let mut start = span.start;
        let bytes = self.text.as_bytes();
        // Clause ends: clause bytes and clause breaks ("but").
        let first = self.hits.partition_point(|h| h.start() < span.start);
        let mut hits = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .peekable();
        let mut at = span.start;
        while at <= span.end {
            let end_here = at == span.end
                || is_clause_byte(bytes[at])
                    && (bytes[at] != b'.'
                        || at + 1 >= bytes.len()
                        || bytes[at + 1].is_ascii_whitespace());
            let break_hit = hits
                .peek()
                .filter(|h| h.start() == at)
                .is_some_and(|h| self.meanings(**h).contains(&Meaning::ClauseBreak));
            if end_here || break_hit {
                // The last problem clause decides (a detail follows its overview), but a
                // request of the thing wins over problems ("the data catalog needs column
                // lineage, table-level isn't enough").
                if let Some(g) = self.clause(task, start..at, strength) {
                    let request = |f: &Option<GoalLead>| {
                        f.as_ref()
                            .is_some_and(|f: &GoalLead| f.rule == Found::Request)
                    };
                    if !request(&found) || g.rule == Found::Request && found.is_none() {
                        found = Some(g);
                    }
                }
                start = if break_hit {
                    hits.peek().map_or(at + 1, |h| h.end())
                } else {
                    at + 1
                };
            }
            while hits.peek().is_some_and(|h| h.start() <= at) {
                hits.next();
            }
            at += 1;
            while at < span.end && !self.text.is_char_boundary(at) {
                at += 1;
            }
        }
        found
    }

    /// One clause of [`View::evidence`].
    pub(in crate::conversation) fn clause(
        &self,
        task: usize,
        span: Range<usize>,
        strength: Strength,
    ) -> Option<GoalLead> {
        if span.is_empty() {
            return None;
        }
        let cls = self.cls;
        // Fillers, acknowledgements and intents before the subject ("make sure the page
        // loads").
        let start = self.skip(span.start, |m| {
            matches!(
                m,
                Meaning::Filler | Meaning::Ack | Meaning::Sequencer | Meaning::Intent
            )
        });
        if start >= span.end {
            return None;
        }
        for (h, modal) in self.predicates(start..span.end, strength) {
            // A subject is a few words: one that starts further back is none (and the work
            // per predicate stays bounded).
            if h.start - start > MAX_SUBJECT_BYTES {
                continue;
            }
            // A word in -ed before a plain word is an adjective ("retry failed jobs"), no
            // predicate; a predicate is followed by a preposition, a determiner, an adverb,
            // a number or nothing ("the build failed on CI").
            if self.text[h.clone()].to_ascii_lowercase().ends_with("ed")
                && let Some(n) = words(self.text, h.end..span.end).next()
            {
                let n = &self.text[n];
                let continues = cls.lower_in(&cls.words.determiners, n)
                    || cls.lower_in(&cls.words.ends, n)
                    || cls.lower_in(&cls.words.auxiliaries, n)
                    || PLACES.iter().any(|p| n.eq_ignore_ascii_case(p))
                    || n.starts_with(|c: char| c.is_ascii_digit())
                    || n.ends_with("ly")
                    || n.ends_with("ing");
                if !continues {
                    continue;
                }
            }
            // "Our app is a React Native app": a copula before "a" describes, reports nothing.
            if ["is", "are", "was", "were"]
                .iter()
                .any(|c| self.text[h.clone()].eq_ignore_ascii_case(c))
                && words(self.text, h.end..span.end).next().is_some_and(|n| {
                    ["a", "an"]
                        .iter()
                        .any(|a| self.text[n.clone()].eq_ignore_ascii_case(a))
                })
            {
                continue;
            }
            let mut subject: SmallVec<[Range<usize>; 8]> =
                words(self.text, start..h.start).collect();
            // Auxiliaries and adverbs before the predicate are the problem's ("silently fail"),
            // and so is a quantifier after the subject ("my tests all fail").
            let adverb = |w: &Range<usize>| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.auxiliaries, t) || (t.len() > 4 && t.ends_with("ly"))
            };
            while subject.last().is_some_and(|w| {
                adverb(w)
                    || ["all", "both", "each"]
                        .iter()
                        .any(|q| self.text[w.clone()].eq_ignore_ascii_case(q))
            }) {
                subject.pop();
            }
            // An adverb opening the sentence is no part of the subject ("sometimes the chat
            // scrolls to the top").
            while subject.len() > 1 && subject.first().is_some_and(adverb) {
                subject.remove(0);
            }
            // An opening context ("on mobile the submit button", "when I click save the app")
            // ends at the subject's determiner; otherwise only leading determiners go
            // ("images on the product grid" stays whole).
            let is_det =
                |w: &Range<usize>| cls.lower_in(&cls.words.determiners, &self.text[w.clone()]);
            let context = subject.first().is_some_and(|w| {
                let t = &self.text[w.clone()];
                PLACES.iter().any(|p| t.eq_ignore_ascii_case(p)) || cls.lower_in(&cls.words.ends, t)
            });
            if context {
                if let Some(d) = subject.iter().rposition(is_det) {
                    subject.drain(..=d);
                }
            } else {
                // A demonstrative stays: it points at what the user shows ("this swift code").
                let lead = subject
                    .iter()
                    .take_while(|w| {
                        is_det(w)
                            && !["this", "these", "those"]
                                .iter()
                                .any(|d| self.text[(*w).clone()].eq_ignore_ascii_case(d))
                    })
                    .count();
                subject.drain(..lead);
            }
            // A relative clause describes the subject: its head is before it ("the cron that
            // cleans temp files stopped running").
            // (The problem starts after the clause.)
            let subject_end = subject.last().map(|w| w.end);
            if let Some(r) = subject.iter().skip(1).position(|w| {
                ["that", "which", "who"]
                    .iter()
                    .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
            }) {
                subject.truncate(r + 1);
            }
            let (Some(head), Some(last)) = (subject.first(), subject.last()) else {
                continue;
            };
            let last = &(last.start..subject_end.unwrap_or(last.end).max(last.end));
            // A subject is a noun phrase: no pronoun, auxiliary or predicate in it.
            let verbal = |w: &Range<usize>| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.non_subjects, t)
                    || cls.lower_in(&cls.words.auxiliaries, t)
                    || self
                        .at(w.start, |m| {
                            matches!(m, Meaning::Problem | Meaning::Modal | Meaning::Intent)
                        })
                        .is_some()
                    || self.is_predicate(w.clone())
            };
            // A demonstrative before a noun is no pronoun ("this swift code").
            let demonstrative = subject.len() > 1
                && ["this", "these", "those"]
                    .iter()
                    .any(|d| self.text[head.clone()].eq_ignore_ascii_case(d));
            let skip = usize::from(demonstrative);
            // Rule 9: "it" or "they" after a sentence of context is the thing that sentence
            // introduced ("we have a kafka consumer in java. it lags behind by hours").
            let referent = (subject.len() == 1
                && ["it", "they"]
                    .iter()
                    .any(|p| self.text[head.clone()].eq_ignore_ascii_case(p)))
            .then(|| self.introduced_thing(start))
            .flatten();
            if referent.is_none()
                && (subject.len() > MAX_SUBJECT_WORDS || subject[skip..].iter().any(verbal))
            {
                continue;
            }
            let target = referent.unwrap_or(head.start..last.end);
            // The problem keeps the words between the subject and its predicate ("is
            // hidden", "silently fails").
            // The problem ends where a new clause starts ("... on every mount and it's firing
            // two events": a conjunction and a new subject).
            let tail: SmallVec<[Range<usize>; 16]> = words(self.text, last.end..span.end).collect();
            let end = tail
                .windows(2)
                .find(|p| {
                    let (c, n) = (&self.text[p[0].clone()], &self.text[p[1].clone()]);
                    ["and", "so", "because", "which", "while", "even", "though"]
                        .iter()
                        .any(|j| c.eq_ignore_ascii_case(j))
                        && (cls.lower_in(&cls.words.non_subjects, n)
                            || cls.lower_in(&cls.words.determiners, n))
                })
                .map_or(span.end, |p| p[0].start);
            // The problem without the verb "to be" before it, as the table writes it
            // ("the submit button is hidden behind the keyboard": "fix: hidden behind the
            // keyboard"); a negation or another verb stays ("doesn't load", "keeps crashing").
            let mut from = last.end;
            for w in words(self.text, last.end..end).take(3) {
                let t = &self.text[w.clone()];
                if ["is", "are", "was", "were", "been", "be", "has", "have"]
                    .iter()
                    .any(|b| t.eq_ignore_ascii_case(b))
                    && w.end < h.end
                {
                    from = w.end;
                } else {
                    break;
                }
            }
            let change = cls.clean(self.text, from..end, false);
            if change.is_empty() {
                continue;
            }
            // A modal with nothing after it states a problem ("search results are missing").
            let modal = modal && !cls.clean(self.text, h.end..span.end, false).is_empty();
            let (rule, prefix, change) = if modal {
                (
                    Found::Request,
                    "",
                    cls.clean(self.text, h.end..span.end, false),
                )
            } else {
                (Found::ProblemReport, "fix: ", change)
            };
            let mut details = SmallVec::new();
            details.push(Detail {
                slot: 0,
                prefix: "",
                spans: SmallVec::from_iter([target.clone()]),
            });
            if !change.is_empty() {
                details.push(Detail {
                    slot: 1,
                    prefix,
                    spans: SmallVec::from_iter([change]),
                });
            }
            return Some(GoalLead {
                goal: task,
                description: cls.clean(self.text, start..span.end, true),
                lead: h.clone(),
                wrapper: 0..0,
                rule,
                details,
            });
        }
        None
    }

    /// The lines of a pasted error or stack trace: those holding an error marker, and the
    /// frames and code lines after one (indented, or starting with "at", "File", "|", "-->"),
    /// so that the user's own sentences are read, not the error's.
    pub(in crate::conversation) fn error_lines(&self) -> SmallVec<[Range<usize>; 4]> {
        let mut out: SmallVec<[Range<usize>; 4]> = SmallVec::new();
        let mut in_error = false;
        let mut at = 0;
        // The markers' hits, in order: one pass over them for all the lines.
        let mut markers = self
            .hits
            .iter()
            .filter(|h| self.meanings(**h).contains(&Meaning::ErrorMarker))
            .peekable();
        for line in self.text.split_inclusive('\n') {
            let span = at..at + line.trim_end_matches('\n').len();
            at += line.len();
            let t = line.trim_start();
            let mut marked = false;
            while let Some(h) = markers.peek() {
                if h.start() >= span.end {
                    break;
                }
                marked |= h.start() >= span.start && h.end() <= span.end;
                markers.next();
            }
            // A log line whose first word is a level in capitals ("ERROR 1452 (23000): ...",
            // "FATAL: ...").
            // (or a level in any case with a colon close after it: "error TS2345: ...").
            let first_word = t.split(|c: char| !c.is_ascii_alphabetic()).next();
            let level = first_word
                .is_some_and(|w| ["ERROR", "FATAL", "PANIC", "FAILURE", "CRITICAL"].contains(&w))
                || (first_word.is_some_and(|w| {
                    ["error", "fatal", "panic"]
                        .iter()
                        .any(|l| w.eq_ignore_ascii_case(l))
                }) && t.get(..24).unwrap_or(t).contains(':'));
            // A tool's status word in capitals anywhere ("> Task :app:compile FAILED").
            let shouted = t
                .split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| ["FAILED", "ERROR", "FATAL"].contains(&w));
            // A line of the user's own prose holding a marker ("Docker says 'no space left on
            // device' when building the image") is no pasted error: it is read as a sentence.
            let marked =
                (marked || level || shouted || camel_error(&self.text[span.clone()]).is_some())
                    && !self.is_prose(span.clone());
            let frame = in_error
                && (line.starts_with([' ', '\t'])
                    || t.starts_with("at ")
                    || t.starts_with("File ")
                    || t.starts_with(['|', '>', '│', '^', '~', '-', '['])
                    || t.starts_with("-->")
                    // A heading inside the trace ("Require stack:", "Caused by:").
                    || (t.trim_end().ends_with(':') && count_words(t) <= 3)
                    || t.is_empty());
            in_error = marked || (frame && !t.is_empty());
            if marked || frame {
                match out.last_mut() {
                    Some(last) if self.text[last.end..span.start].trim().is_empty() => {
                        last.end = span.end
                    }
                    _ => out.push(span),
                }
            }
            if out.len() >= 8 {
                break;
            }
        }
        out
    }

    /// Rule 1: a pasted error (a marker of the pattern files, or a word ending in `Error` or
    /// `Exception` before a colon) is a problem report; the line holding it is the problem.
    pub(in crate::conversation) fn pasted_error(
        &self,
        errors: &[Range<usize>],
    ) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        let block = errors.first()?.clone();
        let (line, marker) = self.error_line(block.clone())?;
        let mut message = self.error_message(line.clone());
        // The user's words after a dash on the error's line ("IndexError: ... -- in
        // parse_header") name the thing; the message stops there.
        let tail = [" -- ", " — ", " – "]
            .iter()
            .filter_map(|d| find_bytes(&self.text[line.clone()], d).map(|p| (p, d.len())))
            .min()
            .map(|(p, n)| (line.start + p, line.start + p + n));
        if let Some((cut, _)) = tail
            && message.end > cut
        {
            message = self.cls.clean(self.text, message.start..cut, false);
        }
        let own_thing = || {
            let rest = tail.map(|(_, from)| from..line.end)?;
            self.definite_named(rest.clone())
                .or_else(|| self.bare_place_thing(rest))
        };
        let mut details = SmallVec::new();
        if let Some(thing) = self
            .named_thing(errors)
            .or_else(own_thing)
            .or_else(|| self.frame_subject(block))
        {
            details.push(detail(0, thing));
        }
        details.push(Detail {
            slot: 1,
            prefix: "fix: ",
            spans: SmallVec::from_iter([message]),
        });
        Some(GoalLead {
            goal: task,
            description: line,
            lead: marker,
            wrapper: 0..0,
            rule: Found::PastedError,
            details,
        })
    }

    /// The thing the sentence before `at` introduces with a determiner ("so we have a kafka
    /// consumer in java": "kafka consumer"), for a pronoun that refers back to it.
    fn introduced_thing(&self, at: usize) -> Option<Range<usize>> {
        let before = sentences(self.text)
            .take_while(|s| s.end <= at)
            .filter(|s| !self.text[s.clone()].trim().is_empty())
            .last()?;
        let cls = self.cls;
        words(self.text, before.clone())
            .filter(|w| {
                ["a", "an", "the", "our", "my"]
                    .iter()
                    .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
            })
            .take(4)
            .find_map(|w| self.thing(w.start..before.end, true))
            .filter(|t| !cls.lower_in(&cls.words.non_subjects, &self.text[t.clone()]))
    }

    /// A line in the user's own words: four words or more, an article, a possessive or a
    /// personal pronoun among them, and no tool's prefix ("error:", "npm ERR!", "--- FAIL:") before its first 40
    /// bytes' colon.
    pub(in crate::conversation) fn is_prose(&self, span: Range<usize>) -> bool {
        let text = &self.text[span.clone()];
        let head = text.get(..40).unwrap_or(text);
        if head.contains(": ")
            || head.trim_end().ends_with(':')
            || text.contains("ERR!")
            || text.contains("://")
        {
            return false;
        }
        let mut n = 0;
        let mut own = false;
        for w in words(self.text, span) {
            n += 1;
            let t = &self.text[w];
            own |= PROSE.iter().any(|p| t.eq_ignore_ascii_case(p));
        }
        n >= 4 && own
    }

    /// Rule 1 for an error told in the user's own sentence that no other rule reads ("i keep
    /// getting 'permission denied (publickey)' when i clone from our gitlab", "OOMKilled
    /// again on the image worker pod"): the quoted words or the marker are the problem, the
    /// thing the sentence names the target.
    pub(in crate::conversation) fn inline_error(&self) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        let h = self
            .hits
            .iter()
            .find(|h| self.meanings(**h).contains(&Meaning::ErrorMarker))?;
        let sentence = sentences(self.text).find(|s| s.start <= h.start() && h.end() <= s.end)?;
        let quoted = quoted(self.text, sentence.clone());
        let message = quoted.unwrap_or(h.start()..h.end());
        let outside = |t: &Range<usize>| !(message.start <= t.start && t.end <= message.end);
        let target = self
            .definite_named(sentence.clone())
            .filter(outside)
            .or_else(|| self.bare_place_thing(message.end..sentence.end))
            .filter(outside);
        let mut details = SmallVec::new();
        if let Some(t) = target {
            details.push(detail(0, t));
        }
        details.push(Detail {
            slot: 1,
            prefix: "fix: ",
            spans: SmallVec::from_iter([message]),
        });
        Some(GoalLead {
            goal: task,
            description: self.cls.clean(self.text, sentence, false),
            lead: h.start()..h.end(),
            wrapper: 0..0,
            rule: Found::PastedError,
            details,
        })
    }

    /// The thing after "in", "on", "from" or "for" in `span`, with or without a determiner
    /// ("-- in parse_header").
    pub(in crate::conversation) fn bare_place_thing(
        &self,
        span: Range<usize>,
    ) -> Option<Range<usize>> {
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(16).collect();
        let p = ws.iter().position(|w| {
            ["in", "on", "from", "for", "at"]
                .iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        })?;
        self.thing(ws.get(p + 1)?.start..span.end, false)
    }

    /// The error's own subject when the user names none: the function of the trace's first
    /// frame ("at flatten (utils/tree.js:12)", Python's `File "...", line 3, in load`).
    fn frame_subject(&self, block: Range<usize>) -> Option<Range<usize>> {
        let mut at = block.start;
        for line in self.text[block.clone()].split_inclusive('\n').take(64) {
            let start = at;
            at += line.len();
            let t = line.trim_start();
            let lead = start + (line.len() - t.len());
            let name = if let Some(rest) = t.strip_prefix("at ") {
                let end = rest.find([' ', '(']).unwrap_or(rest.len());
                Some((lead + 3, lead + 3 + end))
            } else if t.starts_with("File ") {
                let i = t.rfind(", in ")?;
                let rest = &t[i + 5..];
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                Some((lead + i + 5, lead + i + 5 + end))
            } else {
                None
            };
            if let Some((s, e)) = name {
                let word = &self.text[s..e];
                // A name, not a path or an anonymous frame ("<module>", "Object.<anonymous>").
                if !word.is_empty()
                    && word
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$'))
                {
                    let last = word.rsplit('.').next().unwrap_or(word);
                    return Some(e - last.len()..e);
                }
            }
        }
        None
    }

    /// The message of an error line, without the error's name and what the tool prints
    /// before it ("RuntimeError: CUDA out of memory. Tried to allocate ..." says "CUDA out of
    /// memory"; "panic: runtime error: invalid memory address ..." says "invalid memory
    /// address ..."): after each leading name with a colon (a word ending in `Error`,
    /// `Exception` or `Warning`, a level such as `error` or `fatal`), past a leading
    /// parenthesis, up to the first sentence's end or a closing parenthesis remark. The
    /// whole line when nothing is left.
    pub(in crate::conversation) fn error_message(&self, line: Range<usize>) -> Range<usize> {
        let text = &self.text[line.clone()];
        let is_name = |w: &str| {
            let w = w.trim_start_matches(|c: char| !c.is_alphanumeric());
            let lower = w.to_ascii_lowercase();
            let last = lower.rsplit(['.', ' ', '/']).next().unwrap_or(&lower);
            [
                "error",
                "exception",
                "warning",
                "fatal",
                "panic",
                "err!",
                "failure",
            ]
            .iter()
            .any(|n| last.ends_with(n) || last.starts_with("error["))
        };
        let mut at = 0;
        // At most four names in a row ("thread main: panic: runtime error: ...").
        for _ in 0..4 {
            let rest = &text[at..];
            let Some(colon) = rest.find(": ") else { break };
            let name = &rest[..colon];
            if name.len() > 60 || !is_name(name) {
                break;
            }
            at += colon + 2;
        }
        let mut rest = text[at..].trim_start();
        if rest.starts_with('(')
            && let Some(close) = rest.find(')')
        {
            rest = rest[close + 1..].trim_start();
        }
        let start = line.start + (text.len() - rest.len());
        let mut end = rest.find(". ").unwrap_or(rest.len());
        // A remark in parentheses at the end ("(use -v to see invocation)"), closed or cut.
        if let Some(open) = rest[..end].rfind(" (")
            && (rest[..end].trim_end().ends_with(')') || !rest[open..end].contains(')'))
            && open > 0
        {
            end = open;
        }
        let message = self.cls.clean(self.text, start..start + end, false);
        // A message of a word or two ("KeyError: 'customer_id'") needs its name.
        if count_words(&self.text[message.clone()]) < 3 {
            line
        } else {
            message
        }
    }

    /// The thing a sentence names with a determiner, past a demonstrative standing alone
    /// ("getting this when I open the profile page": "this" points at the error) and past a
    /// phrase holding a pronoun ("all I get").
    fn definite_named(&self, mut span: Range<usize>) -> Option<Range<usize>> {
        let cls = self.cls;
        for _ in 0..4 {
            let t = self.definite_thing(span.clone())?;
            let lone = ["this", "that", "these", "those"]
                .iter()
                .any(|d| self.text[t.clone()].eq_ignore_ascii_case(d))
                || words(self.text, t.clone())
                    .skip(1)
                    .any(|w| cls.lower_in(&cls.words.non_subjects, &self.text[w]));
            if !lone {
                return Some(t);
            }
            span = t.end..span.end;
        }
        None
    }

    /// The last words of a short sentence after its verb or pronoun ("When I run
    /// migrations"): at most three.
    fn last_object(&self, span: Range<usize>) -> Option<Range<usize>> {
        let cls = self.cls;
        let ws: SmallVec<[Range<usize>; 12]> = words(self.text, span).take(12).collect();
        let k = ws.iter().rposition(|w| {
            let t = &self.text[w.clone()];
            cls.lower_in(&cls.words.non_subjects, t)
                || cls.lower_in(&cls.words.verbs, t)
                || t.to_ascii_lowercase().ends_with("ing")
                || self
                    .at(w.start, |m| matches!(m, Meaning::Lead(_)))
                    .is_some()
        })?;
        let rest = &ws[k + 1..];
        if rest.is_empty() || rest.len() > 3 || ws.len() > 10 {
            return None;
        }
        let t = cls.clean(self.text, rest[0].start..rest[rest.len() - 1].end, true);
        (!t.is_empty()).then_some(t)
    }

    /// Rule 1 for a title that opens with its problem and has no subject: a problem noun
    /// ("Crash when opening the settings screen", "Memory leak in the websocket loop", "slow
    /// queries on the reports page") or an inability ("Can't log in after ...", "Unable to
    /// upload files larger than 10MB"). The thing it names with a determiner or after "in"
    /// or "on" is the target; the title is the problem. A negation alone ("not sure",
    /// "no idea") opens none.
    pub(in crate::conversation) fn problem_title(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if cls.goals[task].slots.len() < 2 || self.text[span.clone()].trim_end().ends_with('?') {
            return None;
        }
        let first = words(self.text, span.clone()).next()?;
        let word = self.text[first.clone()].to_ascii_lowercase();
        let unable =
            ["can't", "cant", "cannot", "unable", "couldn't", "couldnt"].contains(&word.as_str());
        let negation = [
            "not", "never", "no", "don't", "dont", "doesn't", "doesnt", "won't", "wont", "isn't",
            "isnt", "aren't", "didn't", "didnt", "wasn't", "wasnt", "weren't", "hasn't", "haven't",
        ]
        .contains(&word.as_str());
        let hit = self.at(first.start, |m| m == Meaning::Problem);
        if !(unable || (hit.is_some() && !negation && word.len() >= 4)) {
            return None;
        }
        // A phrase of the conversation ("no problem, go ahead") is no title.
        let from = self.hits.partition_point(|h| h.start() < span.start);
        if self.hits[from..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| {
                self.meanings(*h).iter().any(|m| match m {
                    Meaning::Signal(i) => matches!(
                        cls.signals[*i as usize].signal,
                        super::super::Signal::Approve
                            | super::super::Signal::Satisfied
                            | super::super::Signal::Cancel
                    ),
                    _ => false,
                })
            })
        {
            return None;
        }
        // At least three words, and no verb of its own after the problem ("crashes are
        // rare" is a sentence, not a title).
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(16).collect();
        if ws.len() < 3 || (!unable && ws[1..].iter().any(|w| self.is_predicate(w.clone()))) {
            return None;
        }
        let problem = cls.clean(self.text, span.clone(), false);
        let mut details = SmallVec::new();
        if let Some(t) = self.definite_thing(first.end..span.end) {
            details.push(detail(0, t));
        }
        details.push(Detail {
            slot: 1,
            prefix: "fix: ",
            spans: SmallVec::from_iter([problem.clone()]),
        });
        Some(GoalLead {
            goal: task,
            description: problem,
            lead: first,
            wrapper: 0..0,
            rule: Found::ProblemReport,
            details,
        })
    }

    /// Rule 1: the component the user names around a pasted error, in the first line of their
    /// own words that names one. A line that opens with a thing names it ("spark job on the
    /// cluster:", "report service, after ~2h uptime"); one that opens otherwise names the
    /// thing it calls by a definite determiner ("when I open the profile page", "getting this
    /// all over my cleaning notebook").
    pub(in crate::conversation) fn named_thing(
        &self,
        errors: &[Range<usize>],
    ) -> Option<Range<usize>> {
        let cls = self.cls;
        let own = |s: &Range<usize>| !errors.iter().any(|e| e.start <= s.start && s.end <= e.end);
        sentences(self.text).filter(own).take(8).find_map(|s| {
            let start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
            let span = start..s.end;
            let first = words(self.text, span.clone()).next()?;
            let word = &self.text[first.clone()];
            let lower = word.to_ascii_lowercase();
            // An adverb opens no thing ("only on the nightly job").
            let adverb = lower.ends_with("ly")
                || ["just", "also", "even", "still", "again"].contains(&lower.as_str());
            let opens_with_thing = word.chars().next().is_some_and(char::is_alphanumeric)
                && !lower.ends_with("ing")
                && !adverb
                && !cls.lower_in(&cls.words.non_subjects, word)
                && !cls.lower_in(&cls.words.auxiliaries, word)
                && !cls.lower_in(&cls.words.ends, word)
                && !cls.lower_in(&cls.words.verbs, word)
                && !self.is_predicate(first.clone())
                && !PLACES.iter().any(|p| word.eq_ignore_ascii_case(p))
                // (A lead word may name a thing: "report service", "deploy job".)
                && self
                    .at(first.start, |m| !matches!(m, Meaning::Lead(_)))
                    .is_none();
            if opens_with_thing {
                let t = self
                    .thing(span.clone(), false)
                    .filter(|t| !self.text[t.clone()].contains(['/', '\\', '=']))?;
                // A thing that is the problem ("hydration error on the blog page") leaves the
                // place it happens to be the target.
                let problem = words(self.text, t.clone()).any(|w| {
                    self.at(w.start, |m| {
                        matches!(m, Meaning::Problem | Meaning::ErrorMarker)
                    })
                    .is_some()
                        || ["error", "errors", "warning", "failure"]
                            .iter()
                            .any(|e| self.text[w.clone()].eq_ignore_ascii_case(e))
                });
                if problem {
                    self.definite_named(span).or(Some(t))
                } else {
                    Some(t)
                }
            } else {
                self.definite_named(span).or_else(|| self.last_object(s))
            }
        })
    }

    /// The line that states an error block's error: the last line holding a marker (the
    /// exception after a Python traceback's frames, the first line of a Java one), at most
    /// `MAX_ERROR_LINE` bytes; with its marker.
    pub(in crate::conversation) fn error_line(
        &self,
        block: Range<usize>,
    ) -> Option<(Range<usize>, Range<usize>)> {
        let mut found = None;
        let mut at = block.start;
        for line in self.text[block.clone()].split_inclusive('\n') {
            let span = at..at + line.trim_end_matches('\n').len();
            at += line.len();
            let first = self.hits.partition_point(|h| h.start() < span.start);
            let marker = self.hits[first..]
                .iter()
                .take_while(|h| h.start() < span.end)
                .find(|h| h.end() <= span.end && self.meanings(**h).contains(&Meaning::ErrorMarker))
                .map(|h| h.start()..h.end())
                .or_else(|| {
                    camel_error(&self.text[span.clone()])
                        .map(|r| span.start + r.start..span.start + r.end)
                });
            if let Some(m) = marker {
                found = Some((span, m));
            }
        }
        // A block marked by a level or a status word has no marker hit: its first line.
        let found = found.or_else(|| {
            let first = self.text[block.clone()].lines().next()?;
            let span = block.start..block.start + first.len();
            let word = words(self.text, span.clone()).next()?;
            Some((span, word))
        });
        let (span, marker) = found?;
        let mut end = span.end.min(span.start + MAX_ERROR_LINE);
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let line = self.cls.clean(self.text, span.start..end, false);
        (!line.is_empty()).then_some((line, marker))
    }
}
