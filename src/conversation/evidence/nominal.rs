//! Requests with no verb (rules 2 and 3): a noun phrase naming what to add and where ("infinite
//! scroll on the feed"), a setting and its value side by side ("volume 30"), a feature and when
//! it happens ("push notification when ..."). A label and its value is `labelled.rs`.

use super::*;

impl View<'_> {
    /// Rule 2 for a request that is a noun phrase with no verb ("infinite scroll on the feed",
    /// "i18n for the dashboard pls"): the phrase is the change, the thing after its
    /// preposition the target. One that names a kind of artifact after "a" or "an" ("a budget
    /// spreadsheet to track rent") asks for that artifact.
    pub(in crate::conversation) fn nominal(&self, span: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        // (A state run on after a comma is why, no part of the phrase: "kitchen speaker down
        // to 4 pls, its way too loud".)
        // (Only where a comma stands.)
        let comma = self.text[span.clone()].contains(',');
        let span = match comma.then(|| self.run_on_state(span.clone())).flatten() {
            Some(p) if self.text[span.start..p].trim_end().ends_with(',') => {
                span.start..self.text[..p].trim_end().len() - 1
            }
            _ => span,
        };
        // "I need", "we want" before the phrase (leads that needed a kind after them).
        let mut start = span.start;
        if let Some(h) = self.at(start, |m| match m {
            Meaning::Lead(id) => cls.leads[id as usize].object_must_match.is_some(),
            _ => false,
        }) {
            start = skip_soft(self.text, h.end());
        }
        // The words of a wish around the phrase ("... would be handy") are not its words.
        let wishes: SmallVec<[Range<usize>; 2]> = {
            let first = self.hits.partition_point(|h| h.start() < start);
            self.hits[first..]
                .iter()
                .take_while(|h| h.start() < span.end)
                .filter(|h| self.meanings(**h).contains(&Meaning::Wish))
                .map(|h| h.start()..h.end())
                .take(16)
                .collect()
        };
        // A noun phrase request is short: at most 16 words are looked at (wishes aside), and
        // the wishes' spans are walked once, in order.
        // (A wish that names a benefit takes its own object, no part of the phrase: "having a
        // search bar in the settings would save a lot of scrolling".)
        let span = match wishes.iter().find(|x| {
            let t = self.text[(*x).clone()].to_ascii_lowercase();
            x.start > start && (t.starts_with("would save") || t.starts_with("would make"))
        }) {
            Some(x) => span.start..x.end,
            None => span,
        };
        // ("having a search bar ...": the thing had is what is asked for.)
        if let Some(w) = words(self.text, start..span.end).next()
            && self.text[w.clone()].eq_ignore_ascii_case("having")
        {
            start = skip_soft(self.text, w.end);
        }
        if self.opens_no_request(start..span.end) {
            return None;
        }
        let mut ws: SmallVec<[Range<usize>; 16]> = SmallVec::new();
        let mut k = 0;
        // (A purpose after the phrase is no part of it: "offline mode for the field inspection
        // app so techs can keep filling checklists ...".)
        let mut end = span.end;
        // (Past 16 words only a kind after "a" or "an" is read: "a function to check whether a
        // string is a palindrome, ignoring punctuation and case — in rust".)
        let mut long = false;
        for w in words(self.text, start..span.end) {
            // ("SO" in capitals is a site: "links to SO answers in the FAQ page".)
            if ws.len() >= 2 && &self.text[w.clone()] == "so" {
                end = w.start;
                break;
            }
            while wishes.get(k).is_some_and(|x| x.end <= w.start) {
                k += 1;
            }
            if wishes
                .get(k)
                .is_some_and(|x| x.start <= w.start && w.end <= x.end)
            {
                continue;
            }
            if ws.len() == 16 {
                long = true;
                break;
            }
            ws.push(w);
        }
        let span = span.start..end;
        let first = ws.first()?.clone();
        // (Nor does one that says the same happens elsewhere: "Same on an iPhone 13".)
        if self.text[span.clone()].trim_end().ends_with('?')
            || self.text[first.clone()].eq_ignore_ascii_case("same")
            || self.tells_happened(&ws)
        {
            return None;
        }
        // A phrase that is a signal's from end to end ("bye for now") asks for nothing.
        let last_end = ws.last().map_or(start, |w| w.end);
        if self
            .at(first.start, |m| matches!(m, Meaning::Signal(_)))
            .is_some_and(|h| h.end() >= last_end)
        {
            return None;
        }
        let word = |w: &Range<usize>| self.text[w.clone()].to_ascii_lowercase();
        if matches!(word(&first).as_str(), "a" | "an") {
            let artifact = cls.goal_index(GoalType::ArtifactCreation)?;
            let kind_slot = *cls.goals[artifact].slots.first()?;
            let object = cls.clean(self.text, first.start..span.end, true);
            let np = noun_phrase(&self.text[object.clone()], &cls.noun_phrase_ends);
            // (Past 16 words, only with a connector after the kind: "an app i installed
            // yesterday keeps draining ..." tells of an app.)
            let connected = !long
                || cls
                    .extract(np, kind_slot)
                    .is_some_and(|r| r.end == np.trim_end().len())
                    && object.start + np.len() < span.end
                    && self.text[object.start + np.len()..span.end]
                        .split_whitespace()
                        .next()
                        .is_some_and(|w| cls.lower_in(&cls.words.ends, w));
            if connected && cls.extract(np, kind_slot).is_some() {
                return Some(GoalLead {
                    goal: artifact,
                    description: object.clone(),
                    lead: first.clone(),
                    wrapper: 0..0,
                    rule: Found::Nominal,
                    details: self.details(artifact, ChangeMode::None, first, object),
                });
            }
        }
        // Rule 10, a kind named first with no article ("python func to ...").
        if let Some(g) = self.kind_first(&first, &ws, span.clone()) {
            return Some(g);
        }
        if long {
            return None;
        }
        let task = cls.goal_index(GoalType::TaskExecution)?;
        if cls.goals[task].slots.len() < 2 {
            return None;
        }
        // A feature asked for by the phrase: the change, and its thing when named.
        let asked = |target: Option<Range<usize>>, change: Range<usize>| {
            let mut details = SmallVec::new();
            if let Some(t) = target {
                details.push(detail(0, t));
            }
            details.push(detail(1, change.clone()));
            GoalLead {
                goal: task,
                description: change,
                lead: first.clone(),
                wrapper: 0..0,
                rule: Found::Nominal,
                details,
            }
        };
        // "SSO support", "Slack integration": a short name of a feature, alone, asks for it.
        // (Not after a preposition or a determiner, nor with a signal's words: "thanks for the
        // support".)
        let signalled = {
            let from = self.hits.partition_point(|h| h.start() < span.start);
            self.hits[from..]
                .iter()
                .take_while(|h| h.start() < span.end)
                .any(|h| {
                    self.meanings(*h)
                        .iter()
                        .any(|m| matches!(m, Meaning::Signal(_) | Meaning::SmallTalk))
                })
        };
        // (So does one of up to five words scoped to each of something, `feature_scopes`:
        // "Per-tenant rate limits", "custom domains per workspace".)
        let scoped = |w: &Range<usize>| {
            let t = &self.text[w.clone()];
            cls.lower_in(&cls.words.feature_scopes, t)
                || t.split_once('-').is_some_and(|(s, n)| {
                    !n.is_empty() && cls.lower_in(&cls.words.feature_scopes, s)
                })
        };
        let named = (2..=4).contains(&ws.len())
            && cls.lower_in(
                &cls.words.feature_heads,
                &self.text[ws[ws.len() - 1].clone()],
            );
        // (A number or a count before it is a rate, no feature: "3 per page", "once per day",
        // "ten bucks per user"; before a determiner it means "according to": "per my last
        // email", "as per the docs".)
        let scope = (2..=5).contains(&ws.len())
            && ws.iter().enumerate().any(|(i, w)| {
                scoped(w)
                    && !ws.get(i + 1).is_some_and(|n| {
                        cls.lower_in(&cls.words.determiners, &self.text[n.clone()])
                    })
                    && !ws[..i].iter().any(|b| {
                        let t = word(b);
                        t == "as"
                            || t.starts_with(|c: char| c.is_ascii_digit() || c == '$')
                            || ["a", "an"].contains(&t.as_str())
                            || cls.words.quantities.contains(&t)
                    })
            });
        if (named || scope)
            && !signalled
            && !PLACES.contains(&word(&first).as_str())
            && !cls.lower_in(&cls.words.determiners, &self.text[first.clone()])
            && !ws.iter().any(|w| {
                self.is_predicate(w.clone())
                    || cls.lower_in(&cls.words.auxiliaries, &self.text[w.clone()])
                    || cls.lower_in(&cls.words.non_subjects, &self.text[w.clone()])
                    || self
                        .at(w.start, |m| matches!(m, Meaning::Problem))
                        .is_some()
            })
        {
            return Some(asked(
                None,
                cls.clean(self.text, first.start..span.end, true),
            ));
        }
        // "a button to copy the invite link", "a way to duplicate a whole board", "option to
        // snooze reminders ...": a feature and what it is for.
        if let Some((target, change)) = self.purpose(&ws, start, span.end) {
            return Some(asked(target, change));
        }
        if let Some((target, change)) = self.wished_phrase(&ws, &wishes, span.end) {
            return Some(asked(target, change));
        }
        // "we really need audit logs for permission changes": after a need (a lead that wanted
        // a kind of artifact), a phrase of two words or more with no article and no verb is
        // the feature asked for. ("I need a minute" names nothing.) (A word in -s is a plural
        // there, no verb: "audit logs".)
        // (What follows a condition is its own clause, part of the request: "webhooks when an
        // invoice is paid".)
        let comma_end = ws
            .windows(2)
            .position(|p| self.text[p[0].end..p[1].start].contains([',', ';']))
            .map_or(ws.len(), |i| i + 1);
        let clause_end = comma_end.min(
            ws.iter()
                .position(|w| {
                    ["when", "whenever", "if", "once", "after", "before"]
                        .contains(&word(w).as_str())
                })
                .unwrap_or(ws.len()),
        );
        if start > span.start
            && (1..=8).contains(&clause_end)
            && (clause_end >= 2 || comma_end > clause_end)
            && !matches!(word(&first).as_str(), "a" | "an" | "some" | "more" | "to")
            && !ws[..clause_end].iter().any(|w| {
                let t = &self.text[w.clone()];
                cls.lower_in(&cls.words.auxiliaries, t)
                    || cls.lower_in(&cls.words.non_subjects, t)
                    || t.starts_with(|c: char| c.is_ascii_digit())
                    || self
                        .at(w.start, |m| {
                            matches!(m, Meaning::Problem | Meaning::Modal | Meaning::Signal(_))
                        })
                        .is_some()
            })
        {
            let end = ws[clause_end - 1].end;
            let target = self.definite_thing(first.start..end).or_else(|| {
                let p = ws[..clause_end]
                    .iter()
                    .position(|w| ["for", "on", "in"].contains(&word(w).as_str()))?;
                self.bare_place_thing(ws[p].start..end)
            });
            let change = cls.clean(self.text, first.start..ws[comma_end - 1].end, true);
            if !change.is_empty() {
                return Some(asked(target, change));
            }
        }
        // "dark mode please", "bulk delete would be handy": a thing asked for with a wish (a
        // courtesy counts), no verb and no place.
        // (Two words at least, the first no verb, no number: "volume 30 please" is a
        // setting's value.)
        if !wishes.is_empty()
            && (2..=4).contains(&ws.len())
            && !cls.lower_in(&cls.words.verbs, &self.text[first.clone()])
            && !ws.iter().enumerate().any(|(i, w)| {
                let t = &self.text[w.clone()];
                // (A lead word after the first names the thing: "csv export pls", "bulk
                // delete would be handy".)
                self.is_predicate(w.clone())
                    || t.starts_with(|c: char| c.is_ascii_digit())
                    || PLACES.iter().any(|p| t.eq_ignore_ascii_case(p))
                    || cls.lower_in(&cls.words.non_subjects, t)
                    || cls.lower_in(&cls.words.auxiliaries, t)
                    || (i == 0
                        && self
                            .at(w.start, |m| matches!(m, Meaning::Lead(_)))
                            .is_some())
                    || self
                        .at(w.start, |m| {
                            matches!(
                                m,
                                Meaning::Problem
                                    | Meaning::Modal
                                    | Meaning::Signal(_)
                                    | Meaning::SmallTalk
                                    | Meaning::Ack
                            )
                        })
                        .is_some()
            })
        {
            let change = cls.clean(self.text, first.start..ws[ws.len() - 1].end, true);
            if !change.is_empty() {
                return Some(asked(None, change));
            }
        }
        let verb = |w: &Range<usize>| self.phrase_verb(w);
        let no_verb = |ws: &[Range<usize>]| self.verbless(ws);
        // The request the whole phrase states, with its details.
        let request = |details: SmallVec<[Detail; 2]>| GoalLead {
            goal: task,
            description: cls.clean(self.text, start..span.end, true),
            lead: first.clone(),
            wrapper: 0..0,
            rule: Found::Nominal,
            details,
        };
        // A setting and where it goes, "ringer volume all the way down", or its value beside
        // it, "volume 30 please" (`setting_phrases.rs`).
        if let Some((target, value)) = self
            .setting_direction(&ws)
            .or_else(|| self.setting_value(&ws))
        {
            return Some(request(SmallVec::from_iter([
                detail(0, target),
                detail(1, value),
            ])));
        }
        // "push notification when a package ships", "slack alert after a deploy fails": what
        // to add (a compound of two words: three are a subject and its verb, "video calls
        // drop after ..."), then when it happens.
        // ("webhook for when a subscription is cancelled": "for" joins the condition.)
        let condition = ws.iter().position(|w| {
            ["when", "whenever", "before", "after", "once"].contains(&word(w).as_str())
        });
        let condition = condition.map(|c| {
            if c >= 2 && word(&ws[c - 1]) == "for" {
                c - 1
            } else {
                c
            }
        });
        if let Some(c) = condition
            && (c == 2 || c == 1 && ws.get(c).is_some_and(|w| word(w) == "for"))
            && no_verb(&ws[..c])
            && !ws[..c].iter().any(|w| PLACES.contains(&word(w).as_str()))
        {
            let change = cls.clean(self.text, ws[0].start..ws[c - 1].end, true);
            if !change.is_empty() {
                return Some(request(SmallVec::from_iter([detail(1, change)])));
            }
        }
        // "Login via magic link instead of passwords", "Notifications for new comments via
        // Slack": a feature named, then the means it should use (`means`). The feature is the
        // target, the means the change. (No verb anywhere, no problem in the feature.) "with"
        // names a means only before the alternative it replaces ("Sign in with a passkey
        // instead of SMS codes"); otherwise it tells what the feature has ("recurring tasks
        // with custom intervals").
        let is = |w: &Range<usize>, t: &str| self.text[w.clone()].eq_ignore_ascii_case(t);
        let with_means =
            |i: usize| is(&ws[i], "with") && ws[i + 1..].iter().any(|w| is(w, "instead"));
        // (Among the first six words, where the feature's name ends.)
        if let Some(m) = ws.iter().take(6).enumerate().position(|(i, w)| {
            cls.lower_in(&cls.words.means, &self.text[w.clone()]) || with_means(i)
        }) && (1..=5).contains(&m)
            && m + 1 < ws.len()
            && !cls.lower_in(&cls.words.determiners, &self.text[first.clone()])
            && no_verb(&ws)
            // (A participle tells what was done, a time or a number when or which: "Installed
            // through Homebrew", "Sunday through Thursday", "Customers using Android 12".)
            && !ws.iter().any(|w| {
                let t = word(w);
                (t.len() >= 5 && t.ends_with("ed"))
                    || cls.lower_in(&cls.words.times, &t)
                    || t.starts_with(|c: char| c.is_ascii_digit())
            })
            && !ws[..m]
                .iter()
                .any(|w| self.at(w.start, |m| m == Meaning::Problem).is_some())
        {
            let target = cls.clean(self.text, first.start..ws[m - 1].end, true);
            let change = cls.clean(self.text, ws[m].start..ws[ws.len() - 1].end, true);
            if !target.is_empty() && !change.is_empty() {
                return Some(request(SmallVec::from_iter([
                    detail(0, target),
                    detail(1, change),
                ])));
            }
        }
        let at = ws
            .iter()
            .position(|w| ASSIGNS.contains(&&self.text[w.clone()]))
            .or_else(|| {
                ws.iter().enumerate().position(|(i, w)| {
                    ["on", "for", "in", "to", "across", "into", "from"].contains(&word(w).as_str())
                        // "pull to refresh": "to" and a verb is no place.
                        && !(word(w) == "to"
                            && ws.get(i + 1).is_some_and(|n| {
                                cls.lower_in(&cls.words.verbs, &self.text[n.clone()])
                                    || self.at(n.start, |m| matches!(m, Meaning::Lead(_))).is_some()
                            }))
                })
            })?;
        // No verb in the phrase's clause: "images on the product grid are stretched" reports.
        // (A relative clause or an alternative ends it: "share button on the recipe screen
        // that opens the share sheet", "infinite scroll on the feed instead of the load more
        // button".)
        let clause_end = ws
            .windows(2)
            .position(|p| self.text[p[0].end..p[1].start].contains([',', ';']))
            .map_or(ws.len(), |i| i + 1)
            .min(
                ws.iter()
                    .position(|w| {
                        // (And a purpose: "offline mode for the field app so techs can keep
                        // working".)
                        ["that", "which", "who", "instead", "when", "whenever", "so"]
                            .contains(&word(w).as_str())
                    })
                    .unwrap_or(ws.len()),
            );
        let real_verb = |w: &Range<usize>| {
            self.at(w.start, |m| matches!(m, Meaning::Problem | Meaning::Modal))
                .is_some()
                || self.is_predicate(w.clone())
        };
        // A word in -s between a noun and a determiner is a verb ("the tooltip on the chart
        // covers the legend"), not a plural ("code blocks in the docs"); so is a plain verb's
        // -s form before a place word and its determiner ("the tooltip on the pricing toggle
        // renders behind the sticky header").
        let determiner_at = |k: usize| {
            ws.get(k)
                .is_some_and(|n| cls.lower_in(&cls.words.determiners, &self.text[n.clone()]))
        };
        let suffix_verb = |i: usize| {
            let w = word(&ws[i]);
            i >= 1
                && w.len() >= 4
                && w.ends_with('s')
                && !w.ends_with("ss")
                && !w.ends_with("us")
                && !cls.lower_in(&cls.words.determiners, &self.text[ws[i - 1].clone()])
                && (determiner_at(i + 1)
                    || cls.lower_in(&cls.words.verbs, &w[..w.len() - 1])
                        && ws.get(i + 1).is_some_and(|p| {
                            // (A position: "in" or "on" there may join a plural to its place,
                            // "thumbnails for recent uploads in the gallery".)
                            !PLACES.contains(&word(p).as_str())
                                && cls.lower_in(&cls.words.ends, &word(p))
                        })
                        && determiner_at(i + 2))
        };
        // A verb by its form before the place ("keyboard covers the comment input on ...",
        // "prices show 2 decimals in the cart"): the phrase is a sentence, not a request.
        // (So is a word followed by a particle, "show up twice on iOS", "time out on the arm
        // runners".)
        // ("Up" or "down" just before "to" tells which way a setting goes to its value:
        // "terminal font size up to 15", "ringer volume down to 2".)
        let direction = at >= 2
            && word(&ws[at]) == "to"
            && ["up", "down"].contains(&word(&ws[at - 1]).as_str());
        let particle = |k: usize| {
            ws.get(k).is_some_and(|w| {
                ["up", "out", "off", "down", "away"]
                    .iter()
                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
            })
        };
        // (After the place, a word in -s before a particle is the verb too: "the export button
        // on the reports page greys out after one click".)
        let particle_verb = (1..at)
            .any(|k| k + 1 < at && !(direction && k + 1 == at - 1) && particle(k + 1))
            || (at + 2..clause_end.max(at)).any(|k| {
                let w = word(&ws[k]);
                // ("up" and "down" there are positions: "unread badges on the tabs up top".)
                w.len() >= 4
                    && w.ends_with('s')
                    && !w.ends_with("ss")
                    && ws
                        .get(k + 1)
                        .is_some_and(|p| ["out", "off", "away"].contains(&word(p).as_str()))
            });
        let formed = particle_verb
            || self
                .predicates(start..span.end, Strength::Suffix)
                .iter()
                .any(|(v, _)| {
                    // (with an object after it: a plural before a place is a noun, "sticky table
                    // headers on the reports page".)
                    // (Or how often, after its place: "re-renders on every keystroke".)
                    let mut after = words(self.text, v.end..span.end);
                    let (n1, n2) = (after.next(), after.next());
                    v.start > first.start
                        && v.end <= ws[at].start
                        && (n1.as_ref().is_some_and(|n| {
                            let n = &self.text[n.clone()];
                            cls.lower_in(&cls.words.determiners, n)
                                || n.starts_with(|c: char| c.is_ascii_digit())
                        }) || n1.as_ref().is_some_and(|n| {
                            ["on", "at", "after"]
                                .iter()
                                .any(|p| self.text[n.clone()].eq_ignore_ascii_case(p))
                        }) && n2.is_some_and(|n| {
                            ["every", "each"]
                                .iter()
                                .any(|e| self.text[n.clone()].eq_ignore_ascii_case(e))
                        }))
                });
        // A plain verb after a plural is the plural's verb ("the emails go to spam", "images on
        // the blog load slowly").
        // (So is one after a plural and its place: "emails from the contact form go to spam".)
        let plural = |w: &Range<usize>| {
            let w = word(w);
            w.len() > 3
                && w.ends_with('s')
                && !w.ends_with("ss")
                && !w.contains('.')
                && !cls.lower_in(&cls.words.singular_in_s, &w)
        };
        let plural_verb = (1..clause_end.max(at).min(ws.len())).any(|k| {
            cls.lower_in(&cls.words.verbs, &self.text[ws[k].clone()])
                && (plural(&ws[k - 1])
                    || (k >= 3 && plural(&ws[0]) && PLACES.contains(&word(&ws[1]).as_str())))
        });
        if at == 0
            || at > 6
            || formed
            || plural_verb
            || ws[..at].iter().any(verb)
            || ws[at..clause_end.max(at)].iter().any(real_verb)
            || (at + 2..clause_end).any(suffix_verb)
        {
            return None;
        }
        let phrase_end = wishes
            .iter()
            .map(|x| x.start)
            .find(|x| *x > start && *x < ws[at].start)
            .unwrap_or(if direction {
                ws[at - 1].start
            } else {
                ws[at].start
            });
        let phrase = cls.clean(self.text, start..phrase_end, true);
        let after = ws.get(at + 1)?.start;
        let stop = wishes
            .iter()
            .map(|x| x.start)
            .find(|x| *x > after)
            .unwrap_or(span.end);
        let assigns = ASSIGNS.contains(&&self.text[ws[at].clone()]);
        // Without a determiner, the thing must end the phrase ("retention period for audit
        // logs"), after "for", "on" or "in", and no word before it may be a verb ("the form
        // submits twice on double click").
        let verb_like = |w: &Range<usize>| {
            let w = word(w);
            (w.len() >= 4
                && w.ends_with('s')
                && !w.ends_with("ss")
                && !w.ends_with("us")
                && !noun_ending(&w))
                || (w.len() >= 5 && w.ends_with("ed"))
        };
        let bare = self
            .thing(after..stop, false)
            .filter(|t| self.text[t.end..stop].trim().is_empty())
            .filter(|t| !cls.lower_in(&cls.words.non_subjects, &self.text[t.clone()]))
            .filter(|_| ["for", "on", "in"].contains(&word(&ws[at]).as_str()))
            .filter(|_| !ws[1..at].iter().any(verb_like));
        // A phrase that goes on after its thing has a verb: "the tooltip on the chart covers
        // the legend" reports, it asks for nothing.
        if !assigns && let Some(thing) = self.thing(after..stop, true) {
            // (A symbol or an emoji after it is no word: "... in the photo gallery 🙏".)
            let next = ws[..clause_end.max(at)]
                .iter()
                .find(|w| {
                    w.start >= thing.end && self.text[(*w).clone()].contains(char::is_alphanumeric)
                })
                .map(&word);
            if next.is_some_and(|n| {
                !PLACES.contains(&n.as_str()) && !cls.lower_in(&cls.words.ends, &n)
            }) {
                return None;
            }
        }
        // "autoscaling on queue depth for the worker pool": the phrase runs on to a later
        // place that has a determiner, which is the target. (After "to" and a value it is
        // where the setting applies: "pull.rebase to true for this repo".)
        // (After one word of the value at least: "my slack status to in a meeting until 3".)
        let scope = (at + 2..clause_end).find(|&i| {
            ["on", "for", "in"].contains(&word(&ws[i]).as_str())
                && ws
                    .get(i + 1)
                    .is_some_and(|n| cls.lower_in(&cls.words.determiners, &self.text[n.clone()]))
        });
        let to_value = word(&ws[at]) == "to";
        let later = (self.thing(after..stop, true).is_none() && !assigns && !to_value)
            .then_some(scope)
            .flatten()
            .and_then(|i| {
                let thing = self.thing(ws[i + 1].start..stop, true)?;
                Some((thing, cls.clean(self.text, start..ws[i].start, true)))
            });
        let (target, change) = match later.or_else(|| {
            self.thing(after..stop, true)
                .or(bare)
                .filter(|_| !assigns)
                .map(|t| (t, phrase.clone()))
        }) {
            Some((thing, phrase)) => (thing, phrase),
            // "kitchen speaker volume to 4", "screen timeout -> 2 min": a setting and its value.
            // (Not a thing counted by an article: "I need a minute to think".)
            None if assigns
                || word(&ws[at]) == "to" && !matches!(word(&first).as_str(), "a" | "an") =>
            {
                // (The value ends at its scope or its clause: "font size up to 15 pls, my
                // eyes".)
                // (A clause that ends before the value leaves it to the span's end.)
                let end = scope.map_or_else(
                    || {
                        ws.get(clause_end)
                            .and(clause_end.checked_sub(1))
                            .filter(|&c| c > at)
                            .map_or(span.end, |c| ws[c].end)
                    },
                    |i| ws[i].start,
                );
                let value = cls.clean(self.text, after..end, true);
                (phrase, value)
            }
            None => return None,
        };
        if change.is_empty() || target.is_empty() {
            return None;
        }
        Some(GoalLead {
            goal: task,
            description: cls.clean(self.text, start..span.end, true),
            lead: first,
            wrapper: 0..0,
            rule: Found::Nominal,
            details: SmallVec::from_iter([detail(0, target), detail(1, change)]),
        })
    }
}
