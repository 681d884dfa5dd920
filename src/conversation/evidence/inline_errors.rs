//! Rule 1 for an error told in the user's own sentence ("i keep getting 'permission denied
//! (publickey)' when i clone from our gitlab"): the quoted words or the marker are the
//! problem, the thing the sentence names (or what the user was doing) the target.

use super::*;

impl View<'_> {
    /// Rule 1 for an error told in the user's own sentence that no other rule reads ("i keep
    /// getting 'permission denied (publickey)' when i clone from our gitlab", "OOMKilled
    /// again on the image worker pod"): the quoted words or the marker are the problem, the
    /// thing the sentence names the target.
    /// Whether the sentence holding `at` opens with "what" and an auxiliary ("what does",
    /// "what will", "what should"): it asks what something gives.
    fn asks_what_it_gives(&self, at: usize) -> bool {
        // (The sentence found among the sentence ends by a binary search: a message of many
        // quotes stays linear.)
        let ends = &self.sentence_ends;
        let i = ends.partition_point(|e| (*e as usize) < at);
        let start = i.checked_sub(1).map_or(0, |p| ends[p] as usize + 1);
        let start = self.skip(start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        let mut ws = words(self.text, start..at);
        ws.next()
            .is_some_and(|w| self.text[w].eq_ignore_ascii_case("what"))
            && ws.next().is_some_and(|w| {
                [
                    "does", "do", "did", "will", "would", "should", "can", "could",
                ]
                .iter()
                .any(|a| self.text[w.clone()].eq_ignore_ascii_case(a))
            })
    }

    pub(in crate::conversation) fn inline_error(&self) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        // (A marker whose object is a pronoun is the user's own words, no tool's: "couldn't
        // find it in the docs".)
        let own_words = |h: &Hit| {
            words(self.text, h.end()..self.text.len())
                .next()
                .filter(|w| w.start - h.end() <= 1)
                .is_some_and(|w| {
                    ["it", "them", "anything", "this", "that", "any", "one"]
                        .iter()
                        .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                })
        };
        let h = self
            .hits
            .iter()
            .find(|h| self.meanings(**h).contains(&Meaning::ErrorMarker) && !own_words(h))
            .or_else(|| {
                // Or words in quotes right after getting or throwing them ("I keep getting
                // 'ECONNRESET' from the payments service"); not after a question of what a
                // thing gives, whose quote is the thing asked about ("what does this query
                // return `orders.GroupBy(...)`").
                self.hits.iter().find(|h| {
                    self.meanings(**h)
                        .iter()
                        .any(|m| matches!(m, Meaning::Introducer | Meaning::Problem))
                        && self.text[h.end()..]
                            .trim_start()
                            .starts_with(['\'', '"', '`'])
                        && !self.asks_what_it_gives(h.start())
                })
            })
            .map(|h| h.start()..h.end());
        // Or an exception's name and its message in the user's sentence ("running migrations
        // gives me django.db.utils.OperationalError: no such column: orders.discount"): the
        // message is the line's, read as a pasted one's.
        let (h, named, met) = match h {
            Some(h) => (h, false, None),
            None => match camel_error(self.text) {
                Some(h) => (h, true, None),
                // Or a problem the user meets, named as a noun ("i get an error when i open
                // the settings page"): the noun phrase is the problem.
                None => {
                    let (h, np) = self.met_problem()?;
                    (h, false, Some(np))
                }
            },
        };
        let sentence = sentences(self.text).find(|s| s.start <= h.start && h.end <= s.end)?;
        if named {
            // (In backticks the error ends where they close, and the user's words after it
            // may name the thing: "`TimeoutError: ...` coming from the billing worker".)
            let ticked = self.text[sentence.start..h.start].matches('`').count() % 2 == 1;
            let close = ticked
                .then(|| self.text[h.end..sentence.end].find('`'))
                .flatten()
                .map(|c| h.end + c);
            let message = self.error_message(h.start..close.unwrap_or(sentence.end));
            let target = self
                .definite_named(sentence.start..h.start)
                .or_else(|| self.doing(sentence.start..h.start))
                .or_else(|| {
                    let rest = close? + 1..sentence.end;
                    self.definite_named(rest.clone())
                        .or_else(|| self.bare_place_thing(rest))
                        .map(|t| self.cls.clean(self.text, t, true))
                });
            return Some(report(
                task,
                target,
                message,
                self.cls.clean(self.text, sentence, false),
                h,
                Found::PastedError,
            ));
        }
        let quoted = quoted(self.text, h.end..sentence.end.max(h.end))
            .or_else(|| quoted(self.text, sentence.clone()));
        // (A marker keeps the address or path it names: "ECONNREFUSED 127.0.0.1:5432",
        // "EACCES /var/run/docker.sock".)
        let next = self.text[h.end..sentence.end.max(h.end)]
            .strip_prefix(' ')
            .and_then(|t| t.split(char::is_whitespace).next())
            .map(|t| t.trim_end_matches([',', '.', ';', ')']))
            .filter(|t| {
                t.len() <= 64
                    && t.contains([':', '/', '.'])
                    && t.contains(|c: char| c.is_ascii_digit() || c == '/')
            });
        let marker = h.start..h.end + next.map_or(0, |t| t.len() + 1);
        let message = met
            .clone()
            .unwrap_or_else(|| self.with_status_code(quoted.unwrap_or(marker)));
        let outside = |t: &Range<usize>| !(message.start <= t.start && t.end <= message.end);
        // (What the user was doing names it too: "... when pushing to github"; its object
        // before any place after it, "when running the deploy script on the server", and a
        // thing named before the message before both: "the worker throws ...".)
        let named = self.definite_named(sentence.clone()).filter(outside);
        // (Where the condition starts, if it does.)
        let cond = words(self.text, message.end..sentence.end.max(message.end))
            .take(16)
            .find(|w| {
                ["when", "while", "whenever"]
                    .iter()
                    .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
            })
            .map(|w| w.start);
        // (A problem word before a noun that names no problem is what is wrong with the thing
        // the noun names: "i have a slow query in postgres", "there's a broken image on the
        // about page".)
        // (What the user has, before a request of the sentence's own after a comma, is why
        // they ask: "I have a slow connection, can you make the images smaller" asks for the
        // images.)
        let having = met.is_some()
            && self
                .cls
                .lower_in(&self.cls.words.having, &self.text[h.clone()]);
        if having
            && let Some(np) = &met
            && let Some(comma) = self.text[np.end..sentence.end.max(np.end)].find([',', ';'])
            && {
                let from = self.hits.partition_point(|h| h.start() < np.end + comma);
                self.hits[from..]
                    .iter()
                    .take_while(|h| h.start() < sentence.end)
                    .any(|h| {
                        self.meanings(*h)
                            .iter()
                            .any(|m| matches!(m, Meaning::Lead(_)))
                    })
            }
        {
            return None;
        }
        if having
            && let Some(np) = &met
            && let Some((thing, word)) = self.problem_before_thing(np.clone(), sentence.end)
        {
            return Some(report(
                task,
                Some(thing),
                word,
                self.cls.clean(self.text, sentence, false),
                h,
                Found::ProblemReport,
            ));
        }
        let target = named
            .clone()
            .filter(|t| t.end <= cond.unwrap_or(message.start))
            .or_else(|| cond.and_then(|c| self.bare_place_thing(message.end..c)))
            .or_else(|| self.doing(message.end..sentence.end))
            .or(named)
            .or_else(|| self.bare_place_thing(message.end..sentence.end))
            .filter(outside)
            .or_else(|| self.subject_before_introducer(sentence.start..message.start));
        Some(report(
            task,
            target,
            message,
            self.cls.clean(self.text, sentence, false),
            h,
            if met.is_some() {
                Found::ProblemReport
            } else {
                Found::PastedError
            },
        ))
    }

    /// Rule 1 for a problem the user meets, told as what they get or see ("i get an error when
    /// i open the settings page", "we're seeing a 502 from the gateway", "getting a blank
    /// screen after login"): an introducer said by the user (its own words hold "i" or "we",
    /// or one of those is at most two words before it, or it opens its sentence) and the noun
    /// phrase after it, up to a preposition, a condition or a clause's end, at most five words,
    /// naming a problem: a problem word or error marker of the pattern files, a noun of
    /// `met_problems`, an HTTP status, or a word of `problem_modifiers` opening it. The introducer's range and the noun phrase's
    /// (without its determiners).
    pub(super) fn met_problem(&self) -> Option<(Range<usize>, Range<usize>)> {
        let cls = self.cls;
        let first_person = |w: &str| {
            [
                "i", "we", "im", "i'm", "we're", "were", "i've", "we've", "ive", "weve",
            ]
            .iter()
            .any(|p| w.eq_ignore_ascii_case(p))
        };
        self.hits
            .iter()
            .filter(|h| self.meanings(**h).contains(&Meaning::Introducer))
            .find_map(|h| {
                let said = &self.text[h.start()..h.end()];
                let own = said.split(' ').next().is_some_and(first_person);
                let before = &self.text[..h.start()];
                let back: SmallVec<[&str; 3]> = before
                    .rsplit(|c: char| c.is_whitespace())
                    .filter(|w| !w.is_empty())
                    .take(3)
                    .collect();
                // (No punctuation between: "the build is green, i see" is another clause.)
                let own_clause = || {
                    back.iter()
                        .take_while(|w| !w.ends_with([',', '.', ';', ':', '!', '?']))
                };
                let near = own_clause().any(|w| first_person(w));
                // (Not what the user does not get: "i don't get any errors", "we never see a
                // warning".)
                let negated = own_clause().any(|w| {
                    ["not", "no", "never"]
                        .iter()
                        .any(|n| w.eq_ignore_ascii_case(n))
                        || w.ends_with("n't")
                        || [
                            "dont", "cant", "wont", "isnt", "arent", "wasnt", "werent", "doesnt",
                            "didnt", "hasnt", "havent", "couldnt", "wouldnt", "shouldnt",
                        ]
                        .iter()
                        .any(|n| w.eq_ignore_ascii_case(n))
                });
                if negated {
                    return None;
                }
                // (A line break before it opens a sentence too: "hi\ngetting a 502 ...".)
                let line = before.trim_end_matches([' ', '\t']);
                let opens = line.trim_end().is_empty() || line.ends_with(['.', '!', '?', '\n']);
                if !(own || near || opens) {
                    return None;
                }
                let mut np: Option<Range<usize>> = None;
                let mut problem = false;
                let mut last = h.end();
                for w in words(self.text, h.end()..self.text.len()).take(7) {
                    // (A line break ends the phrase: a line of pasted code is no part of it.)
                    if self.text[last..w.start].contains('\n') {
                        break;
                    }
                    last = w.end;
                    let t = self.text[w.clone()].trim_end_matches([',', '.', ';', ':', '!', '?']);
                    let lower = t.to_ascii_lowercase();
                    if t.is_empty()
                        || PLACES.contains(&lower.as_str()) && lower != "of"
                        || CONDITIONS.contains(&lower.as_str())
                        || [
                            "and", "but", "with", "so", "that", "which", "because", "saying",
                        ]
                        .contains(&lower.as_str())
                    {
                        break;
                    }
                    // (Nor "no errors", "zero warnings": what the user does not meet.)
                    if np.is_none() && ["no", "zero", "none"].contains(&lower.as_str()) {
                        return None;
                    }
                    if np.is_none() && cls.lower_in(&cls.words.determiners, t) {
                        continue;
                    }
                    let status = t.len() >= 3
                        && t.starts_with(['4', '5'])
                        && t.as_bytes()[..3].iter().all(u8::is_ascii_digit)
                        && t.as_bytes()[3..].iter().all(|b| *b == b's');
                    problem |= status
                        || cls.lower_in(&cls.words.met_problems, t)
                        // (A modifier of how often or how oddly, with its noun: "random
                        // logouts", "weird results".)
                        || np.is_none() && cls.lower_in(&cls.words.problem_modifiers, t)
                        || self
                            .at(w.start, |m| {
                                matches!(m, Meaning::Problem | Meaning::ErrorMarker)
                            })
                            .is_some();
                    let end = w.start + t.len();
                    np = Some(np.map_or(w.start..end, |n| n.start..end));
                    // (Punctuation after the word ends the phrase: "i get an error, no idea
                    // why"; words are split there, so it is looked for after the word.)
                    if self.text[w.end..].starts_with([',', '.', ';', ':', '!', '?'])
                        || np
                            .as_ref()
                            .map_or(0, |n| count_words(&self.text[n.clone()]))
                            >= 5
                    {
                        break;
                    }
                }
                np.filter(|_| problem).map(|np| (h.start()..h.end(), np))
            })
    }

    /// A met problem's noun phrase of a problem word and a noun naming none (`np`, as
    /// [`View::met_problem`] gives it): the noun with its place or owner up to `end`, and the
    /// problem word.
    fn problem_before_thing(
        &self,
        np: Range<usize>,
        end: usize,
    ) -> Option<(Range<usize>, Range<usize>)> {
        let cls = self.cls;
        let mut ws = words(self.text, np.clone());
        let first = ws.next()?;
        let rest = ws.next()?.start..np.end;
        let problem = |w: &Range<usize>| {
            self.at(w.start, |m| {
                matches!(m, Meaning::Problem | Meaning::ErrorMarker)
            })
            .is_some()
                || cls.lower_in(&cls.words.met_problems, &self.text[w.clone()])
        };
        (problem(&first) && !words(self.text, rest.clone()).any(|w| problem(&w)))
            .then(|| (self.with_modifier(rest, end), first))
    }

    /// The words that open `span` before an introducer ("flutter run gives me ...", "the
    /// worker throws ..."): one to four words, no pronoun first.
    pub(super) fn subject_before_introducer(&self, span: Range<usize>) -> Option<Range<usize>> {
        let first = self.hits.partition_point(|h| h.start() < span.start);
        let intro = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .find(|h| self.meanings(**h).contains(&Meaning::Introducer))?;
        let subject = self.cls.clean(self.text, span.start..intro.start(), true);
        let n = count_words(&self.text[subject.clone()]);
        let pronoun = words(self.text, subject.clone()).next().is_some_and(|w| {
            self.cls.is_pronoun(&self.text[w.clone()])
                || self
                    .cls
                    .lower_in(&self.cls.words.non_subjects, &self.text[w])
        });
        ((1..=4).contains(&n) && !pronoun).then_some(subject)
    }
}
