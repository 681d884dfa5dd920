//! Rule 10: the details a request states in its own sentence: a task's thing and the change or
//! value it asks for (an artifact's are in `artifact_details.rs`).

use super::*;

impl View<'_> {
    /// Rules 2 and 10: the slot values a request states by its structure.
    /// - an artifact: its kind and what follows it ([`View::artifact_details`]);
    /// - a task whose lead adds its object ("add X to Y, D"): target Y, desired change X and D;
    /// - a task whose lead states the change ("support SAML login"): the lead and its object.
    pub(in crate::conversation) fn details(
        &self,
        goal: usize,
        change: ChangeMode,
        lead: Range<usize>,
        object: Range<usize>,
    ) -> SmallVec<[Detail; 2]> {
        let cls = self.cls;
        let def = &cls.goals[goal];
        let mut out = SmallVec::new();
        if def.slots.len() < 2 || object.is_empty() {
            return out;
        }
        match def.goal_type {
            GoalType::ArtifactCreation => out = self.artifact_details(def.slots[0], object),
            GoalType::TaskExecution => {
                // "stream the csv instead of building it in memory": a request's object ends
                // before "instead of" and a verb in -ing, what happens now (a contrast of
                // values stays: "return 404 instead of 500").
                let object = object.start..self.instead_of_doing(object.clone());
                let text = &self.text[object.clone()];
                // (A colon and a text of four words or more start what the request is
                // about, no part of its value: "shorten this paragraph: Our team is excited to
                // announce ..."; "log level: debug" is a label and its value.)
                // (Nor is a state run on after it, as speech writes it: "turn the volume down
                // to four its way too loud".)
                // (A list of things is no clause end: "put eggs, oat milk and AA batteries on
                // the shopping list".)
                let comma = text
                    .find([',', ';'])
                    .map(|c| {
                        self.list_through(object.start + c, object.end)
                            .map_or(c, |e| e - object.start)
                    })
                    .into_iter()
                    .chain(text.find(": ").filter(|p| count_words(&text[p + 2..]) >= 4))
                    .chain(self.run_on_state(object.clone()).map(|p| p - object.start))
                    .chain(self.reason_clause(object.clone()).map(|p| p - object.start))
                    .min()
                    .map_or(object.end, |p| object.start + p);
                // The object as written, articles included: "the" marks an existing thing.
                let raw = skip_soft(self.text, lead.end).min(object.start);
                match change {
                    ChangeMode::None => {
                        // "turn this into a bulleted list": the demonstrative ending the lead
                        // is the thing.
                        let demonstrative = words(self.text, lead.clone()).skip(1).find(|w| {
                            ["this", "these", "that", "those"]
                                .iter()
                                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
                        });
                        if let Some(d) = demonstrative {
                            // (A noun right after it is what it points at: "rewrite this
                            // query so it doesnt do a full table scan".)
                            let np = noun_phrase(&self.text[raw..comma], &cls.noun_phrase_ends)
                                .trim_end();
                            let noun =
                                words(self.text, raw..raw + np.len())
                                    .next()
                                    .is_some_and(|w| {
                                        let t = &self.text[w.clone()];
                                        t.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_')
                                            // (No adverb: "rewrite this quickly so ...".)
                                            && (t.len() <= 3 || !t.ends_with("ly"))
                                            && ![
                                                "again", "twice", "now", "first", "too", "also",
                                                "later", "instead", "here", "entirely",
                                            ]
                                            .iter()
                                            .any(|x| t.eq_ignore_ascii_case(x))
                                            && !cls.lower_in(&cls.words.determiners, t)
                                            && !cls.is_pronoun(t)
                                            && self
                                                .at(w.start, |m| {
                                                    matches!(m, Meaning::Filler | Meaning::Ack)
                                                })
                                                .is_none()
                                    })
                                    && (1..=3).contains(&count_words(np));
                            let raw = if noun {
                                out.push(detail(0, d.start..raw + np.len()));
                                raw + np.len()
                            } else {
                                out.push(detail(0, d));
                                raw
                            };
                            // (What follows says how: "rewrite this in a friendlier tone".)
                            let how = cls.clean(self.text, raw..comma, false);
                            if let Some(value) = self
                                .after_to(raw..comma)
                                .or_else(|| (!how.is_empty()).then_some(how))
                            {
                                out.push(detail(1, value));
                            }
                        } else if let Some((whom, said)) = self.message_to(raw..comma) {
                            // "send a message to the on call channel saying the deploy is on
                            // hold": whom it goes to, and what it says.
                            out.push(detail(0, whom));
                            out.push(detail(1, said));
                        } else if let Some((name, said)) = self
                            .whom_that(raw..comma)
                            .filter(|(name, _)| words(self.text, name.clone()).nth(1).is_some())
                        {
                            // "text my mum tell her i'll be late": whose person, then what to
                            // tell them.
                            out.push(detail(0, name));
                            out.push(detail(1, said));
                        } else if let Some(np) = self.thing(raw..comma, true) {
                            // "fix the bug where the cart empties on refresh": a problem named
                            // as a noun and the clause after "where" or "when" that reports
                            // it; "fix the DAG that keeps retrying forever": a thing and the
                            // relative clause that reports its problem.
                            if let Some(reported) =
                                self.reported_after(goal, lead.clone(), np.clone(), comma)
                            {
                                out.extend(reported);
                                return out;
                            }
                            // "fix the 404 on the about page", "fix the typo in the footer": a
                            // problem named as a noun, then the thing it is in. (A problem's
                            // phrase runs on past a connector: "fix the off by one in ...".)
                            let np = self.problem_run_on(np, comma);
                            if self.names_problem(np.clone())
                                && words(self.text, np.end..comma).next().is_some_and(|p| {
                                    PLACES
                                        .iter()
                                        .any(|c| self.text[p.clone()].eq_ignore_ascii_case(c))
                                })
                                && let Some(place) = self.bare_place_thing(np.end..comma)
                            {
                                out.push(detail(0, place));
                                out.push(detail(1, np));
                                return out;
                            }
                            // "fix the alignment of the footer links", "improve the
                            // performance of the search page": an aspect of a thing, with no
                            // value asked for.
                            let of = words(self.text, np.clone())
                                .take(3)
                                .find(|w| self.text[w.clone()].eq_ignore_ascii_case("of"));
                            if let Some(of) = of
                                && self.after_to(np.end..comma).is_none()
                                && self.particle(np.start..comma).is_none()
                                && let Some(thing) =
                                    self.thing(skip_soft(self.text, of.end)..np.end, true)
                            {
                                let aspect = cls.clean(self.text, np.start..of.start, true);
                                if !aspect.is_empty() {
                                    out.push(detail(0, cls.clean(self.text, thing, true)));
                                    out.push(detail(1, aspect));
                                    return out;
                                }
                            }
                            // "set the indent width to 2 spaces": the thing, and its new value.
                            // (A move "from" one thing "to" another is the change, both named:
                            // "switch our CI from travis to github actions"; the thing ends
                            // before "from".)
                            let from = self.move_from(np.start, comma);
                            let np = match &from {
                                Some(f) if f.start < np.end => {
                                    cls.clean(self.text, np.start..f.start, true)
                                }
                                _ => np,
                            };
                            // (A particle inside the phrase ends the thing: "turn the porch
                            // light off at ten".)
                            let np = match self.particle(np.start..comma) {
                                Some((thing, p)) if p.start < np.end && thing.start >= np.start => {
                                    thing
                                }
                                _ => np,
                            };
                            out.push(detail(0, np.clone()));
                            // (A particle before the value is the change with it: "turn the
                            // hallway light off at 11".)
                            // (A value or a particle inside the result the change is made
                            // for is the result's: "fix the cron expression in cron.yaml so
                            // the cleanup job runs at 2am UTC", "... so it turns on at
                            // sunset".)
                            let so = words(self.text, np.end..comma)
                                .take(8)
                                .find(|w| self.text[w.clone()].eq_ignore_ascii_case("so"))
                                .map_or(comma, |w| w.start);
                            let particle = self.particle(np.start..so);
                            if let Some(value) = self.after_to(np.end..so) {
                                let value = match &from {
                                    Some(f) if f.start < value.start => f.start..value.end,
                                    _ => value,
                                };
                                match particle {
                                    Some((_, p)) if p.end <= value.start => out
                                        .push(detail(1, cls.clean(self.text, p.start..so, false))),
                                    _ => out.push(detail(1, value)),
                                }
                            } else if let Some(how) = self.in_what(np.end..comma) {
                                // "rewrite these lines in Kotlin": what it is to be in.
                                out.push(detail(1, how));
                            } else if let Some((_, particle)) = particle {
                                // "turn the notifications for the team channel off".
                                out.push(detail(1, particle));
                            } else if let Some(aim) = self.so_that(so..comma) {
                                // "refactor the payment service so each provider lives in
                                // its own module": the result the work is for.
                                out.push(detail(1, aim));
                            } else if words(self.text, np.end..comma).next().is_some_and(|w| {
                                SPREADS
                                    .iter()
                                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                            }) {
                                // "sync the blocklist across devices": where the work spreads
                                // it is the change, with its verb.
                                out.push(detail(1, cls.clean(self.text, lead.start..comma, false)));
                            }
                        } else if let Some((thing, particle)) = self.particle(raw..comma) {
                            // "turn dark mode off", "turn the volume all the way down".
                            out.push(detail(0, thing));
                            out.push(detail(1, particle));
                        } else if let Some((name, said)) = self.whom_that(raw..comma) {
                            // "text Jamie that dinner is at 7": whom, then what to tell them.
                            out.push(detail(0, name));
                            out.push(detail(1, said));
                        } else if let Some(value) = self.after_to(raw..comma) {
                            // "bump eslint to v9": a bare name before "to" (or an arrow,
                            // "bump default query timeout → 30s") and its value is the thing;
                            // "wake me up at 6:30": the value alone.
                            let to = words(self.text, raw..value.start).last();
                            let bare = to
                                .filter(|t| {
                                    let t = &self.text[t.clone()];
                                    t.eq_ignore_ascii_case("to") || ASSIGNS.contains(&t)
                                })
                                .and_then(|t| self.thing(raw..t.start, false))
                                .filter(|t| {
                                    words(self.text, t.clone()).next().is_some_and(|w| {
                                        !cls.lower_in(&cls.words.non_subjects, &self.text[w])
                                    })
                                });
                            if let Some(t) = bare {
                                out.push(detail(0, t));
                            }
                            out.push(detail(1, value));
                        } else if let Some(t) = words(self.text, raw..comma)
                            .take(6)
                            .any(|w| {
                                SPREADS
                                    .iter()
                                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                            })
                            .then(|| self.thing(raw..comma, false))
                            .flatten()
                            .filter(|t| {
                                words(self.text, t.end..comma).next().is_some_and(|w| {
                                    SPREADS
                                        .iter()
                                        .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                                }) && words(self.text, t.clone()).next().is_some_and(|w| {
                                    !cls.lower_in(&cls.words.non_subjects, &self.text[w])
                                })
                            })
                        {
                            // "split one transaction across several categories": a thing
                            // named without a determiner, and where the work spreads it.
                            out.push(detail(0, t));
                            out.push(detail(1, cls.clean(self.text, lead.start..comma, false)));
                        }
                    }
                    ChangeMode::Object => {
                        out = self.added(lead.clone(), object.clone(), raw, comma)
                    }
                    ChangeMode::Phrase => {
                        // "support keyboard shortcuts in the editor": an existing thing named
                        // with a definite determiner is the target.
                        // (Else a thing after "in", "on", "from", "for" or "at" without one:
                        // "support apple pay at checkout".)
                        // (The thing is named before the result the change is for: "expose
                        // queue depth as a metric so we can alert when the workers fall
                        // behind" acts on queue depth; the change keeps the result.)
                        let change_end = comma;
                        let comma = words(self.text, raw..comma)
                            .find(|w| {
                                self.text[w.clone()].eq_ignore_ascii_case("so")
                                    && self.so_that(w.start..change_end).is_some()
                            })
                            .map_or(comma, |w| w.start);
                        let thing = self
                            .definite_thing(raw..comma)
                            .or_else(|| self.bare_place_thing(raw..comma));
                        // (After "let" and whom it lets, or a lead that ends in "to", a verb
                        // comes first, and its own object is the thing it acts on, before
                        // a place, a person or a means after it: "let managers approve time
                        // off requests from their phone", "option to export the guest list
                        // ... for the caterer".)
                        // (An object with a definite determiner wins over a place after it;
                        // one without gives way to a place: "let shoppers pick a delivery
                        // date at checkout on our store" is about the store.)
                        let verb_object = self
                            .verb_object(lead.clone(), raw, comma)
                            .filter(|(_, definite)| *definite || thing.is_none());
                        if let Some((t, _)) = verb_object {
                            out.push(detail(0, t));
                        } else if let Some(t) = &thing {
                            out.push(detail(0, t.clone()));
                        } else if let Some(t) = {
                            // (Else the verb's own object, a short plural or compound: "filter
                            // invoices by status".)
                            // (After "let" and whom it lets, the verb comes first: "let admins
                            // impersonate a user for debugging"; so after a lead that ends in
                            // "to": "option to pause notifications until ...", "ability to
                            // schedule posts in advance".)
                            let lead_text = self.text[lead.clone()].trim_end();
                            let raw = if lead_text
                                .get(..4)
                                .is_some_and(|l| l.eq_ignore_ascii_case("let "))
                                || ends_with_word(lead_text, "to")
                            {
                                words(self.text, raw..comma)
                                    .next()
                                    .map_or(raw, |v| skip_soft(self.text, v.end).min(comma))
                            } else {
                                raw
                            };
                            let np = noun_phrase(&self.text[raw..comma], &cls.noun_phrase_ends);
                            let mut t = cls.clean(self.text, raw..raw + np.len(), true);
                            // (A gerund's object: "allow exporting invoices as PDF".)
                            if let Some(g) = words(self.text, t.clone()).next()
                                && self.text[g.clone()].to_ascii_lowercase().ends_with("ing")
                                && g.end < t.end
                            {
                                t = skip_soft(self.text, g.end).min(t.end)..t.end;
                            }
                            // (Nor how often: "option to sync contacts each morning".)
                            let tw: SmallVec<[Range<usize>; 6]> =
                                words(self.text, t.clone()).take(6).collect();
                            if let Some(k) = (1..tw.len()).find(|k| self.frequency(&tw, *k)) {
                                t = t.start..tw[k - 1].end;
                            }
                            let n = count_words(&self.text[t.clone()]);
                            // (Not one before "to", a person or a means: "allow guests to
                            // RSVP", "a way to ...".)
                            // (After a lead that moves a thing, "to" and a name is where it
                            // goes: "Export saved words to Anki", "sync bookmarks to the
                            // watch"; only a lead that lets or asks someone takes a person
                            // and a verb.)
                            let lets = words(self.text, lead.clone()).next().is_some_and(|l| {
                                ["allow", "allowing", "let", "require", "warn", "notify"]
                                    .iter()
                                    .any(|x| self.text[l.clone()].eq_ignore_ascii_case(x))
                            }) || lead_text.split_whitespace().count() > 1;
                            let before_to = words(self.text, t.end..comma)
                                .next()
                                .is_some_and(|w| self.text[w].eq_ignore_ascii_case("to"))
                                && (lets
                                    || words(self.text, t.end..comma).nth(1).is_some_and(|n| {
                                        let n = &self.text[n];
                                        n.chars().all(|c| c.is_ascii_lowercase())
                                            && !cls.lower_in(&cls.words.determiners, n)
                                    }));
                            // (Nor when a thing with a determiner follows: that one is
                            // the target, however it was missed.)
                            // (A time is none: "lock a quiz after the deadline"; nor what
                            // it is made into, after "as": "expose queue depth as a metric".)
                            let later: SmallVec<[Range<usize>; 16]> =
                                words(self.text, t.end..comma).collect();
                            let later_thing = later.iter().enumerate().any(|(i, w)| {
                                cls.lower_in(&cls.words.determiners, &self.text[w.clone()])
                                    && (i >= 8 || !self.timed(&later, i, comma))
                                    && !(i > 0
                                        && self.text[later[i - 1].clone()]
                                            .eq_ignore_ascii_case("as"))
                            });
                            ((1..=3).contains(&n)
                                && t.end < comma
                                && !before_to
                                && !later_thing
                                && !cls.starts_with_any(&cls.pronouns, &self.text[t.clone()])
                                && !words(self.text, t.clone())
                                    .any(|w| cls.lower_in(&cls.words.non_subjects, &self.text[w])))
                            .then_some(t)
                        } {
                            out.push(detail(0, t));
                        }
                        // The change runs to the thing's preposition ("let admins impersonate
                        // a user from the admin panel": "let admins impersonate a user").
                        let end = thing
                            .and_then(|t| {
                                let before: SmallVec<[Range<usize>; 16]> =
                                    words(self.text, raw..t.start).collect();
                                let n = before.len();
                                (n >= 2).then(|| before[n - 2].clone())
                            })
                            .filter(|w| {
                                PLACES
                                    .iter()
                                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                            })
                            .map_or(change_end, |w| w.start);
                        // (A lead that ends in "to" reports who wants it: "users want to
                        // export their data" asks to export their data.)
                        let lead_text = self.text[lead.clone()].trim_end();
                        let from = if lead_text
                            .get(lead_text.len().saturating_sub(3)..)
                            .is_some_and(|t| t.eq_ignore_ascii_case(" to"))
                        {
                            raw
                        } else {
                            lead.start
                        };
                        let phrase = cls.clean(self.text, from..end, false);
                        if !phrase.is_empty() {
                            out.push(detail(1, phrase));
                        }
                    }
                    ChangeMode::Content => {
                        // "make it so my morning routine reads me the news": the thing the
                        // clause after "so" names, and what it should do.
                        let mut ws = words(self.text, object.clone());
                        let so = ws
                            .next()
                            .is_some_and(|w| self.text[w].eq_ignore_ascii_case("so"));
                        let from = so
                            .then(|| {
                                ws.next().map(|w| {
                                    if self.text[w.clone()].eq_ignore_ascii_case("that") {
                                        ws.next().map_or(w.end, |n| n.start)
                                    } else {
                                        w.start
                                    }
                                })
                            })
                            .flatten();
                        // (A subject that names nothing is no thing: "make it so nobody can
                        // delete the main branch" asks for the whole clause.)
                        let named = from.filter(|f| {
                            words(self.text, *f..object.end).next().is_some_and(|w| {
                                !cls.lower_in(&cls.words.non_subjects, &self.text[w])
                            })
                        });
                        // (A modal or a verb of the vocabulary in -s ends the thing: "make it
                        // so the sidebar collapses on mobile", "... only admins can edit it".)
                        let thing = named
                            .and_then(|f| self.thing(f..object.end, false))
                            .map(|t| {
                                words(self.text, t.clone())
                                    .skip(1)
                                    .find(|w| {
                                        let l = self.text[w.clone()].to_ascii_lowercase();
                                        let stem =
                                            |cut: usize| l.get(..l.len() - cut).unwrap_or("");
                                        further::MODAL_VERBS.contains(&l.as_str())
                                            || l.len() > 3
                                                && l.ends_with('s')
                                                && (cls.lower_in(&cls.words.verbs, stem(1))
                                                    || l.ends_with("es")
                                                        && cls.lower_in(&cls.words.verbs, stem(2)))
                                    })
                                    .map_or(t.clone(), |v| {
                                        cls.clean(self.text, t.start..v.start, true)
                                    })
                            });
                        if let Some(thing) = thing.filter(|t| !t.is_empty())
                            && thing.end < object.end
                            // (People are whom the change serves, no thing: "make it so
                            // admins get an email ...".)
                            && !words(self.text, thing.clone())
                                .last()
                                .is_some_and(|w| cls.lower_in(&cls.words.people, &self.text[w]))
                        {
                            out.push(detail(0, thing.clone()));
                            out.push(detail(
                                1,
                                cls.clean(self.text, thing.end..object.end, false),
                            ));
                            return out;
                        }
                        let content =
                            cls.clean(self.text, from.unwrap_or(object.start)..object.end, false);
                        if !content.is_empty() {
                            out.push(detail(1, content));
                        }
                    }
                    ChangeMode::Action => {
                        // The thing acted on is the target (rule 3): "play the new album",
                        // "reorder the columns on the board".
                        if let Some(t) = self.thing(raw..comma, false) {
                            out.push(detail(0, t));
                        }
                        let content = cls.clean(self.text, lead.start..object.end, false);
                        if !content.is_empty() {
                            out.push(detail(1, content));
                        }
                    }
                    ChangeMode::Exchange => {
                        // "replace the jenkins deploy job with a GitHub Actions workflow",
                        // "swap the hero image for the new one": the thing before "with" or
                        // "for" is the one replaced.
                        // ("for" only after "swap": "replace the password for the staging
                        // database" names an owner.)
                        let swap = self.text[lead.clone()]
                            .to_ascii_lowercase()
                            .starts_with("swap");
                        let within: SmallVec<[Range<usize>; 12]> =
                            words(self.text, raw..comma).take(12).collect();
                        let at = |list: &[&str]| {
                            within
                                .iter()
                                .find(|w| {
                                    list.iter()
                                        .any(|x| self.text[(*w).clone()].eq_ignore_ascii_case(x))
                                })
                                .cloned()
                        };
                        let with =
                            at(&["with", "by"]).or_else(|| swap.then(|| at(&["for"])).flatten());
                        // (With the place or owner after it: "replace the logo in the
                        // footer with the new svg".)
                        let until = with.map_or(comma, |w| w.start);
                        if let Some(t) = self.thing(raw..until, false) {
                            out.push(detail(0, self.with_modifier(t, until)));
                        }
                        let change = cls.clean(self.text, lead.start..comma, false);
                        if !change.is_empty() {
                            out.push(detail(1, change));
                        }
                    }
                    ChangeMode::Lead => {
                        let pronoun = words(self.text, raw..comma)
                            .next()
                            .is_some_and(|w| cls.lower_in(&cls.words.non_subjects, &self.text[w]));
                        let thing = if pronoun {
                            self.definite_thing(raw..comma)
                        } else {
                            self.thing(raw..comma, false)
                        };
                        let value = thing.as_ref().and_then(|t| self.after_to(t.end..comma));
                        // ("pin a chat to the top": a position is where the lead puts the
                        // thing, and the lead with it is the change.)
                        let value = value.map(|v| {
                            let ws: SmallVec<[Range<usize>; 4]> =
                                words(self.text, v.clone()).take(3).collect();
                            // (The first or second word, ending the value or before "of": "the
                            // top", "the bottom of the list"; not "the front desk".)
                            let position = |i: usize| {
                                ws.get(i).is_some_and(|w| {
                                    POSITIONS
                                        .iter()
                                        .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                                }) && ws
                                    .get(i + 1)
                                    .is_none_or(|n| self.text[n.clone()].eq_ignore_ascii_case("of"))
                            };
                            if position(0) || position(1) {
                                cls.clean(self.text, lead.start..v.end, false)
                            } else {
                                v
                            }
                        });
                        // ("clean up the Podfile so it only has the pods we use": the
                        // purpose says what the lead alone does not.)
                        let value = value.or_else(|| {
                            let so = words(self.text, raw..comma)
                                .find(|w| self.text[w.clone()].eq_ignore_ascii_case("so"))?;
                            let purpose = cls.clean(self.text, so.end..comma, false);
                            (count_words(&self.text[purpose.clone()]) >= 2).then_some(purpose)
                        });
                        if let Some(t) = thing {
                            out.push(detail(0, t));
                        }
                        // "dim the bedroom lights to 20 percent": the value, else the lead.
                        out.push(detail(1, value.unwrap_or_else(|| lead.clone())));
                    }
                    ChangeMode::Result => self.result_details(&lead, object, comma, &mut out),
                }
            }
            _ => {}
        }
        out
    }
}
