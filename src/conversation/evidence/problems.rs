//! Rules 1 and 2 without a lead verb, in one clause: a subject and a problem predicate (or a
//! verb describing behaviour) is a problem report, a subject and a modal a request of the
//! thing itself. The clauses themselves are found in clauses.rs.

use super::*;

impl View<'_> {
    /// The subject of a statement in `clause` (a thing before a predicate of any strength
    /// inside the clause; what follows up to `end` only shows a verb's object).
    pub(in crate::conversation) fn subject_of(
        &self,
        task: usize,
        clause: Range<usize>,
        end: usize,
    ) -> Option<Range<usize>> {
        [Strength::Problem, Strength::Predicate, Strength::Suffix]
            .into_iter()
            .find_map(|s| self.clause_within(task, clause.start..end, clause.end, s, None))
            .and_then(|g| {
                g.details
                    .iter()
                    .find(|d| d.slot == 0)
                    .and_then(|d| d.spans.first().cloned())
            })
    }

    /// One clause of [`View::evidence`], its predicate before `within`; `shared` is the
    /// subject of the clause before a contrast, for a clause that has none.
    pub(super) fn clause_within(
        &self,
        task: usize,
        span: Range<usize>,
        within: usize,
        strength: Strength,
        shared: Option<Range<usize>>,
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
        // (What a person says is reported: "Priya says the csv export cuts off at 10k rows"
        // is about the export.)
        let start = self.reported_speech(start..span.end).unwrap_or(start);
        if start >= span.end {
            return None;
        }
        // (A clause sharing a subject may open with its predicate: "... but fails on CI".)
        let mut from = start;
        if shared.is_some() && from > span.start {
            from -= 1;
            while !self.text.is_char_boundary(from) {
                from -= 1;
            }
        }
        // (A clause that opens with a condition holds the condition's verb first: a later
        // predicate is the main clause's, "when the wifi drops the sync queue loses everything".)
        let predicates = self.predicates(from..span.end, strength);
        let conditioned = predicates.len() > 1
            && words(self.text, start..span.end).next().is_some_and(|w| {
                ["when", "whenever", "if", "once", "after", "before", "while"]
                    .iter()
                    .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
            });
        // (Whether the clause holds a problem word, looked for once and only when needed.)
        let problem_words = std::cell::OnceCell::new();
        let holds_problem = || {
            *problem_words.get_or_init(|| {
                self.predicates(start..span.end, Strength::Problem)
                    .iter()
                    .any(|(_, modal)| !modal)
            })
        };
        for (k, (h, modal)) in predicates.iter().cloned().enumerate() {
            if h.start >= within {
                break;
            }
            // (A phrase running past the clause's end, cut at its bound, is no predicate of it.)
            if h.end > span.end {
                continue;
            }
            if conditioned && predicates.get(k + 1).is_some_and(|(n, _)| n.start < within) {
                continue;
            }
            // (A participle describing the noun before it, another verb after it, is no verb
            // of the clause: "emails sent from the app land in spam".)
            if strength != Strength::Problem
                && predicates.get(k + 1).is_some_and(|(n, _)| n.start < within)
                && self.describes_noun(h.clone())
            {
                continue;
            }
            // (A word read by its ending right before another verb is a noun of the subject:
            // "the loyalty points balance doubles", "Inventory counts go negative".)
            if strength == Strength::Suffix
                && predicates.get(k + 1).is_some_and(|(n, _)| {
                    n.start >= h.end
                        && n.start < within
                        && self.text[h.end..n.start].trim().is_empty()
                })
            {
                continue;
            }
            // A subject is a few words: one that starts further back is none (and the work
            // per predicate stays bounded).
            if h.start - start > MAX_SUBJECT_BYTES {
                continue;
            }
            // (A word inside double quotes is a name's: "\"Merge duplicates\" merges the wrong
            // person" has its verb after the quote; a word inside backticks is code's, "`tidyfs
            // clean --dry-run` still deletes empty directories".)
            // (Quotes are counted from the message's start, only where one stands near.)
            let near = &self.text.as_bytes()[start.saturating_sub(1)..h.start];
            if [b'"', b'`'].iter().any(|q| {
                near.contains(q)
                    && self.text.as_bytes()[..h.start]
                        .iter()
                        .filter(|b| *b == q)
                        .count()
                        % 2
                        == 1
            }) {
                continue;
            }
            if !self.predicate_of_clause(h.clone(), modal, strength, start..span.end) {
                continue;
            }
            // (A word in -s before a colon and a short value is a label's noun, no verb:
            // "retention for the audit logs: 90 days".)
            if !modal
                && self.text[h.end..span.end].starts_with(':')
                && (1..=4).contains(&count_words(&self.text[h.end + 1..span.end]))
                && !self.text[h.end..span.end].contains('\n')
            {
                continue;
            }
            // (A list item's number opens no subject: "1) the timer alarm doesn't ring".)
            let mut subject: SmallVec<[Range<usize>; 8]> = words(self.text, start..h.start)
                .skip_while(|w| {
                    let t = self.text[w.clone()].trim_end_matches([')', '.']);
                    (t.len() < w.len() || self.text[w.end..].starts_with([')', '.']))
                        && (1..=2).contains(&t.len())
                        && t.bytes().all(|b| b.is_ascii_digit())
                })
                .collect();
            // (A label naming the setup's versions before a colon is no part of the subject:
            // "Tidepool v4.2.1 on Android: the sleep timer keeps playing".)
            if let Some(k) = subject
                .iter()
                .rposition(|w| self.text.as_bytes().get(w.end) == Some(&b':'))
                .filter(|k| {
                    k + 1 < subject.len()
                        && self.text.as_bytes()[subject[0].start..subject[*k].end]
                            .iter()
                            .any(u8::is_ascii_digit)
                        // (Not a label opened by a lead word, "Release 4.1:", "Build 1043:",
                        // read as a title is.)
                        && self
                            .at(subject[0].start, |m| matches!(m, Meaning::Lead(_)))
                            .is_none()
                })
            {
                subject.drain(..=k);
            }
            // Auxiliaries and adverbs before the predicate are the problem's ("silently fail"),
            // and so is a quantifier after the subject ("my tests all fail").
            // (So are the adverbs of restriction and frequency: "the sync only uploads the
            // first 100 photos".)
            let adverb = |w: &Range<usize>| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.auxiliaries, t)
                    || (t.len() > 4
                        && t.ends_with("ly")
                        // (Not a word of how often that names a thing: "Nightly dbt run fails",
                        // "the weekly report email".)
                        && !(["nightly", "daily", "weekly", "monthly", "hourly", "yearly"]
                            .iter()
                            .any(|x| t.eq_ignore_ascii_case(x))
                            // (Before a determiner it says when: "daily the inbox floods".)
                            && words(self.text, w.end..span.end).next().is_none_or(|n| {
                                !cls.lower_in(&cls.words.determiners, &self.text[n])
                            })))
                    || ["only", "still", "always", "sometimes"]
                        .iter()
                        .any(|x| t.eq_ignore_ascii_case(x))
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
            // (A subject ending in a relative pronoun is a thing described, and its verb the
            // description: "systemd unit file that restarts the worker when it dies" asks for
            // the file.)
            if subject.len() >= 2
                && subject.last().is_some_and(|w| {
                    ["that", "which"]
                        .iter()
                        .any(|r| self.text[w.clone()].eq_ignore_ascii_case(r))
                })
            {
                continue;
            }
            let is_det =
                |w: &Range<usize>| cls.lower_in(&cls.words.determiners, &self.text[w.clone()]);
            // (An intensifier may stand before it: "ever since the update", "right after
            // the deploy".)
            let opener = |w: &Range<usize>| {
                let t = &self.text[w.clone()];
                PLACES.iter().any(|p| t.eq_ignore_ascii_case(p)) || cls.lower_in(&cls.words.ends, t)
            };
            let context = subject.first().is_some_and(opener)
                || subject.len() > 2
                    && cls.lower_in(&cls.words.opener_modifiers, &self.text[subject[0].clone()])
                    && opener(&subject[1]);
            // (The main clause's "it" or "they" after the context is the first thing the
            // context named, not a place after it: "when I drag a file onto the window it
            // crashes" is about the file.)
            let named_first = (context
                && subject.len() >= 3
                && subject.last().is_some_and(|w| {
                    ["it", "they"]
                        .iter()
                        .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                }))
            .then(|| {
                let pronoun = subject.last()?.start;
                let d = subject.iter().position(is_det)?;
                self.thing(subject[d].start..pronoun, true)
            })
            .flatten();
            if context {
                // (Not a determiner inside the subject's own place: "after switching phones
                // my runs from the garmin don't show up".)
                let own_place = |k: usize| {
                    k > 0
                        && PLACES
                            .iter()
                            .any(|p| self.text[subject[k - 1].clone()].eq_ignore_ascii_case(p))
                };
                // (Before "nothing" all is context, the thing last: "when i paste an image
                // into a comment nothing happens".)
                let nothing_after = strength != Strength::Problem
                    && !holds_problem()
                    && subject
                        .last()
                        .is_some_and(|w| self.text[w.clone()].eq_ignore_ascii_case("nothing"));
                if let Some(d) = (0..subject.len())
                    .rev()
                    .find(|&k| is_det(&subject[k]) && (nothing_after || !own_place(k)))
                    .or_else(|| subject.iter().rposition(is_det))
                {
                    subject.drain(..=d);
                } else if subject.len() >= 2
                    && subject.last().is_some_and(|w| {
                        ["it", "they"]
                            .iter()
                            .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                    })
                {
                    // (A context of time, then the pronoun: "since tuesday it hangs on the
                    // events table" is about what "it" refers to.)
                    subject.drain(..subject.len() - 1);
                } else if subject.len() >= 3
                    && cls.lower_in(&cls.words.time_prepositions, &self.text[subject[0].clone()])
                    && {
                        let t = &self.text[subject[1].clone()];
                        t.eq_ignore_ascii_case("then")
                            || cls.lower_in(&cls.words.times, t)
                            || t.starts_with(|c: char| c.is_ascii_digit())
                    }
                {
                    // (A time of one word, then the thing: "since then welcome emails go out
                    // twice", "since 2.1 the sidebar", "after yesterday exports hang".)
                    subject.drain(..2);
                } else if subject.iter().any(|w| {
                    let t = &self.text[w.clone()];
                    t.len() > 4 && t.to_ascii_lowercase().ends_with("ing")
                }) {
                    // (A context of a doing with no determiner after it is all context: the
                    // predicate is a later one, "after switching phones my runs ...".)
                    continue;
                }
                if named_first.is_some() && subject.len() >= 2 {
                    subject.pop();
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
            // "nothing" before a verb is the problem's ("when i paste an image nothing
            // happens"): what stands before it, if anything, is the thing. (Before a problem
            // word it says all is well: "even though nothing is wrong", "Nothing is wrong,
            // great job".)
            let nothing_at = subject
                .last()
                .filter(|_| strength != Strength::Problem && !holds_problem())
                .filter(|w| self.text[(*w).clone()].eq_ignore_ascii_case("nothing"))
                .map(|w| w.start);
            if nothing_at.is_some() {
                subject.pop();
            }
            // A verb the subject would end with belongs to the problem (`View::verb_in_subject`):
            // the problem starts there.
            let verb_start =
                nothing_at.or_else(|| self.verb_in_subject(&mut subject, h.clone(), span.end));
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
            // (What is left of a thing named before, after a comma, is no thing of its own:
            // "..., the rest are silently dropped" tells more of the clause before; after a
            // contrast it is the report, "the first page loads but the rest are blank".)
            if subject.len() == 1
                && ["rest", "others", "remainder"]
                    .iter()
                    .any(|r| self.text[subject[0].clone()].eq_ignore_ascii_case(r))
                && self.text[..subject[0].start]
                    .trim_end()
                    .strip_suffix("the")
                    .is_some_and(|b| b.trim_end().ends_with(','))
            {
                continue;
            }
            // A clause with no subject after a contrast shares the one before it.
            let (head, last) = match (subject.first(), subject.last()) {
                (Some(head), Some(last)) => (
                    head.clone(),
                    last.start..subject_end.unwrap_or(last.end).max(last.end),
                ),
                _ if shared.is_some() || nothing_at.is_some() => (start..start, start..start),
                _ => continue,
            };
            let (head, last) = (&head, &last);
            // A subject is a noun phrase: no pronoun, auxiliary or predicate in it.
            // (A problem word heading the subject, before its predicate, is a noun: "the timezone
            // bug didn't work", "the crash still happens on login".)
            let head_noun = |w: &Range<usize>| {
                w.end == last.end
                    && words(self.text, w.end..span.end).next().is_some_and(|n| {
                        let n = &self.text[n];
                        cls.lower_in(&cls.words.auxiliaries, n)
                            || ["didn't", "doesn't", "isn't", "wasn't", "won't", "never"]
                                .iter()
                                .any(|x| n.eq_ignore_ascii_case(x))
                    })
            };
            // (Nor is a problem word before a noun of the subject: it names a kind of thing,
            // "the crash reporter ignores native crashes", "bug tracker sends duplicate emails".)
            let modifier = |w: &Range<usize>| {
                w.end < last.end
                    && words(self.text, w.end..last.end)
                        .next()
                        .is_some_and(|n| self.qualified_noun(n))
                    && self
                        .at(w.start, |m| m == Meaning::Problem)
                        .is_some_and(|h| h.end() == w.end)
            };
            // (Nor is "and" between two things: "the header and the footer overlap", not
            // after a verb's form, "deleted the branch and the pipeline fails".)
            let joins_things = |w: &Range<usize>| {
                head.start < w.start
                    && w.end < last.end
                    // (Not before a verb: "bump react to 19 and fix whatever breaks".)
                    && words(self.text, w.end..last.end).next().is_some_and(|n| {
                        self.at(n.start, |m| matches!(m, Meaning::Lead(_))).is_none()
                            && !cls.lower_in(&cls.words.verbs, &self.text[n])
                    })
                    && ["and", "&"]
                        .iter()
                        .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
                    && !words(self.text, head.start..w.start).any(|v| {
                        let v = self.text[v].to_ascii_lowercase();
                        v.len() > 4 && (v.ends_with("ed") || v.ends_with("ing"))
                    })
            };
            // (A word after a determiner is a noun: "my runs from the garmin don't show up".)
            let before: SmallVec<[Range<usize>; 8]> = words(self.text, start..h.start).collect();
            // (A fix already made reports nothing: "that fixed the cors issue, thanks", "it
            // solved the timeout thing".)
            // (Nor after any subject: "the latest release resolved the sync issue"; a
            // negation in the two words before the fix still reports, "hasn't been fixed".)
            // (Nor a fix that works for now: "restarting them fixes it for a while".)
            let negation = |w: &Range<usize>| {
                let t = self.text[w.clone()].to_ascii_lowercase();
                t == "not" || t == "never" || t == "no" || t.ends_with("n't") || t.ends_with("nt")
            };
            if before.iter().enumerate().any(|(k, w)| {
                k > 0
                    // (After a determiner it is an adjective: "the fixed header overlaps".)
                    // (A pronoun is its subject: "that solved the timeout issue".)
                    && (!is_det(&before[k - 1])
                        || cls.lower_in(&cls.words.non_subjects, &self.text[before[k - 1].clone()]))
                    && ["fixed", "solved", "resolved", "sorted", "patched", "fixes", "solves"]
                        .iter()
                        .any(|f| self.text[w.clone()].eq_ignore_ascii_case(f))
                    && !before[k.saturating_sub(2)..k].iter().any(negation)
            }) {
                continue;
            }
            let after_determiner = |w: &Range<usize>| {
                before
                    .iter()
                    .position(|x| x == w)
                    .is_some_and(|k| k > 0 && is_det(&before[k - 1]))
            };
            // (A determiner before a noun is none of them: "the timezone for all reports".)
            let verbal = |w: &Range<usize>| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.non_subjects, t)
                    && !joins_things(w)
                    && !(w.end < last.end && cls.lower_in(&cls.words.determiners, t))
                    || cls.lower_in(&cls.words.auxiliaries, t)
                    || self
                        .at(w.start, |m| {
                            matches!(m, Meaning::Problem | Meaning::Modal | Meaning::Intent)
                        })
                        .is_some_and(|_| !head_noun(w) && !modifier(w))
                    || self.is_predicate(w.clone())
                        && !after_determiner(w)
                        && !self.describes_noun(w.clone())
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
            .then(|| shared.clone().or_else(|| self.introduced_thing(start)))
            .flatten()
            .or_else(|| shared.clone().filter(|_| subject.is_empty()));
            // (Words inside parentheses are a pasted expression, no words of the subject:
            // "running total from SUM(amount) OVER (PARTITION BY account_id) resets ...".)
            let inside = |w: &Range<usize>| {
                let before = &self.text[head.start.min(w.start)..w.start];
                before.matches('(').count() > before.matches(')').count()
            };
            // (Determiners and the prepositions of a place are no words of its length: "Deploy
            // of the route planner to staging" is four.)
            let light = |w: &Range<usize>| {
                let t = &self.text[w.clone()];
                is_det(w) || PLACES.iter().any(|p| t.eq_ignore_ascii_case(p))
            };
            // (A subject never ends in the "to" of a plain verb: "perfect excuse to stay in"
            // has none.)
            if referent.is_none()
                && subject
                    .last()
                    .is_some_and(|w| self.text[w.clone()].eq_ignore_ascii_case("to"))
                && cls.lower_in(&cls.words.verbs, &self.text[h.clone()])
            {
                continue;
            }
            if referent.is_none()
                && (subject.iter().filter(|w| !inside(w) && !light(w)).count() > MAX_SUBJECT_WORDS
                    || subject[skip..].iter().filter(|w| !inside(w)).any(verbal))
            {
                continue;
            }
            // How often or how badly names no thing: "Random crashes on Android 14" is a title
            // that opens with its problem (`View::problem_title`).
            if referent.is_none()
                && !subject.is_empty()
                && subject.iter().all(|w| {
                    let t = &self.text[w.clone()];
                    cls.lower_in(&cls.words.problem_modifiers, t)
                        || t.bytes().next().is_some_and(|b| b.is_ascii_digit())
                })
            {
                continue;
            }
            let mut target = referent
                .clone()
                .or(named_first.clone())
                .unwrap_or(head.start..last.end);
            // A kind of problem named by a noun after the one word that says which, then its
            // place ("Timezone bug in recurring events", "Rounding issue with VAT on
            // invoices"): the thing after the place word is the target, the word and the noun
            // the problem.
            let mut kind_noun = false;
            if referent.is_none()
                && subject.len() == 1
                && words(self.text, h.clone()).last().is_some_and(|w| {
                    ["bug", "issue", "problem", "glitch", "error", "errors", "spike", "spikes"]
                        .iter()
                        .any(|n| self.text[w.clone()].eq_ignore_ascii_case(n))
                })
                && let Some(p) = words(self.text, h.end..span.end).next()
                && (PLACES.iter().chain(&["with"]))
                    .any(|c| self.text[p.clone()].eq_ignore_ascii_case(c))
                // (After "on" or "at" only a thing named with a determiner: "Layout issue on
                // mobile" names where it shows, not what.)
                && let Some(t) = self.thing(
                    skip_soft(self.text, p.end)..span.end,
                    ["on", "at"]
                        .iter()
                        .any(|c| self.text[p.clone()].eq_ignore_ascii_case(c)),
                )
            {
                target = t;
                kind_noun = true;
            }
            // A cause and what it broke ("the update from friday broke the export"): the
            // object is the target.
            let target = words(self.text, h.clone())
                .last()
                .filter(|w| cls.lower_in(&cls.words.breakers, &self.text[w.clone()]))
                .and_then(|_| {
                    let mut ws = words(self.text, h.end..span.end);
                    let mut n = ws.next()?;
                    if PARTICLES
                        .iter()
                        .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
                    {
                        n = ws.next()?;
                    }
                    self.thing(n.start..span.end, true)
                })
                .unwrap_or(target);
            // The problem keeps the words between the subject and its predicate ("is
            // hidden", "silently fails") and ends where a new clause or report starts.
            let end = self.problem_end(last.end, span.end);
            // The problem without the verb "to be" before it, as the table writes it
            // ("the submit button is hidden behind the keyboard": "fix: hidden behind the
            // keyboard"); a negation or another verb stays ("doesn't load", "keeps crashing").
            let mut from = if kind_noun {
                head.start
            } else {
                verb_start.unwrap_or(last.end)
            };
            for w in words(self.text, last.end..end)
                .take(3)
                .filter(|_| verb_start.is_none())
            {
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
            // The modal's own verb stays when it says what is wanted ("should support github
            // oauth": "support github oauth"; "is missing the last row": "missing the last
            // row"); a bare modal goes ("should", "needs to").
            let modal_verb = words(self.text, h.clone()).last().filter(|w| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.verbs, t)
                    || ["missing", "lacks", "lacking"]
                        .iter()
                        .any(|m| t.eq_ignore_ascii_case(m))
            });
            // (A negated modal keeps its negation: "the export should not include archived
            // rows" asks for the opposite of including them.)
            let negated = words(self.text, h.clone()).any(|w| {
                let t = self.text[w].to_ascii_lowercase();
                t == "not" || t == "never" || t.ends_with("n't") || t.ends_with("n’t")
            });
            let (rule, prefix, change) = if modal {
                (Found::Request, "", {
                    let from = if negated {
                        h.start
                    } else {
                        modal_verb.map_or(h.end, |w| w.start)
                    };
                    let end = self.instead_of_doing(from..span.end);
                    cls.clean(self.text, from..end, false)
                })
            } else {
                (Found::ProblemReport, "fix: ", change)
            };
            let mut details = SmallVec::new();
            // (An empty target is none: a result reported on its own, "I click save and
            // nothing happens".)
            if !target.is_empty() {
                details.push(Detail {
                    slot: 0,
                    prefix: "",
                    spans: SmallVec::from_iter([target.clone()]),
                });
            }
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
}
