//! Rule 1 for a paste the user leads in or follows with their own words: the line before it
//! ("cargo build gives me", "logs from the checkout lambda:", "ios build broke after updating
//! pods:") names the thing and may state the problem itself; a line after it that opens with
//! a place ("in the pagination helper", "on the checkout screen when the keyboard opens") says
//! where it happens.

use super::*;

/// What a line leading a paste in says.
pub(in crate::conversation) struct Intro {
    /// The line, without its closing colon, arrow or introducer.
    pub line: Range<usize>,
    /// The thing it names.
    pub thing: Option<Range<usize>>,
    /// The problem it states in words of its own ("broke after updating pods"); none when it
    /// only says that something failed ("next build fails:"): the paste tells the problem.
    pub problem: Option<Range<usize>>,
}

/// Determiners that call a thing by a definite name.
const DEFINITE: [&str; 8] = ["the", "my", "our", "your", "their", "this", "these", "its"];

impl View<'_> {
    /// The user's line about a paste (`block`): the last line before it when it leads the
    /// paste in (it ends with a colon, an arrow, or an introducer of the pattern files: "gives
    /// me", "says", "fails with"), else the first line after it when it points back at it
    /// ("the monthly report job dies with this").
    pub(in crate::conversation) fn introduction(&self, block: Range<usize>) -> Option<Intro> {
        let before = self.text[..block.start].trim_end();
        let start = before.rfind('\n').map_or(0, |p| p + 1);
        if let Some(end) = self.leads_in(start..before.len()) {
            let mut intro = self.intro(start..end);
            // A problem that ends "with" what follows is told by the paste ("my docker build
            // stops at step 5 with").
            let introducer = before[end..].trim_end_matches([':', '.']).trim_end();
            if ends_with_word(introducer, "with") {
                intro.problem = None;
            }
            return Some(intro);
        }
        let after =
            block.end + (self.text[block.end..].len() - self.text[block.end..].trim_start().len());
        let line = after
            ..self.text[after..]
                .find('\n')
                .map_or(self.text.len(), |p| after + p);
        let end = self.points_back(line.clone())?;
        Some(self.intro(line.start..end))
    }

    /// What a line about a paste says: the thing it names and the problem it states.
    fn intro(&self, span: Range<usize>) -> Intro {
        let (start, end) = (span.start, span.end);
        // A problem of its own: a problem word with words after it, not a noun naming the
        // paste ("CORS issue from the admin frontend:").
        let problem_at = words(self.text, span.clone()).find_map(|w| {
            let noun = [
                "issue", "issues", "error", "errors", "problem", "bug", "warning",
            ]
            .iter()
            .any(|n| self.text[w.clone()].eq_ignore_ascii_case(n));
            self.at(w.start, |m| matches!(m, Meaning::Problem))
                .filter(|_| !noun)
                .map(|h| (w.start, h.end()))
        });
        let (subject, problem) = match problem_at {
            Some((at, after)) => {
                // (Words that point at the paste are no problem of the line's own: "throws
                // this in safari only".)
                let own = words(self.text, after..end).next().is_some_and(|w| {
                    !["this", "that", "these", "it", "the", "following"]
                        .iter()
                        .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
                })
                    // (Nor is a time: "died overnight", "failed again" only say it failed.)
                    && !self.only_failed(at..end);
                let problem = own.then(|| self.cls.clean(self.text, at..end, false));
                (start..at, problem)
            }
            None => (span.clone(), None),
        };
        Intro {
            line: span,
            thing: self.intro_thing(subject),
            problem: problem.filter(|p| !p.is_empty()),
        }
    }

    /// The thing a line about a paste names: the noun phrase it opens with ("the merge step
    /// in my notebook", "spark job on the cluster", "ssh into the runner"), unless that phrase
    /// names the output itself or how it was got ("kubectl logs for the api pod", "getting
    /// this in the console when I open the profile page") or is followed by whose output it
    /// is ("journalctl for the mailer service"): then the last thing it calls by a definite
    /// name.
    pub(in crate::conversation) fn intro_thing(&self, span: Range<usize>) -> Option<Range<usize>> {
        // "when running npm install", "while deploying the api", "when i try to push": what
        // the user was doing is the thing.
        if let Some(t) = self.doing(span.clone()) {
            return Some(t);
        }
        // A command or a name in backticks is what was run ("fresh clone, `npm test` gives").
        if let Some(t) = backticked(self.text, span.clone()) {
            return Some(t);
        }
        let first = words(self.text, span.clone()).next()?;
        let opener = &self.text[first.clone()];
        // A line that opens with a place names its thing ("in the checkout page i see").
        if ["in", "on", "at", "inside", "within"]
            .iter()
            .any(|p| opener.eq_ignore_ascii_case(p))
            && let Some(t) = self.thing(skip_soft(self.text, first.end)..span.end, false)
        {
            return Some(t);
        }
        // A line that opens with what came before ("after the upgrade our nginx won't
        // start") names the thing after that context: its last thing called by a determiner.
        if self.cls.lower_in(&self.cls.words.ends, opener) {
            return self.last_definite(span);
        }
        // A thing called by a definite determiner opens the line, however long the line
        // ("the cron job on the reporting box prints this every hour").
        if ["the", "my", "our", "your", "their"]
            .iter()
            .any(|d| opener.eq_ignore_ascii_case(d))
            && let Some(t) = self.thing(span.clone(), true)
        {
            return Some(t);
        }
        let head = self.named_subject(span.clone()).and_then(|s| {
            let t = self.thing(s.clone(), false)?;
            // The words after the head: "for" or "from" says whose output it is.
            let next = words(self.text, t.end..span.end).next();
            let whose = next.is_some_and(|w| {
                ["for", "from", "of"]
                    .iter()
                    .any(|p| self.text[w.clone()].eq_ignore_ascii_case(p))
            });
            let output = words(self.text, t.clone()).any(|w| {
                self.at(w.start, |m| matches!(m, Meaning::Introducer))
                    .is_some()
            });
            (!whose && !output).then_some(t)
        });
        head.or_else(|| route(self.text, span.clone()))
            .or_else(|| self.last_definite(span.clone()))
            .or_else(|| self.named_subject(span))
    }

    /// The thing of what the user was doing in `span`: after "when" or "while", past a
    /// pronoun, "trying to" and the verb ("when running npm install": "npm install"; "while
    /// deploying the api": "api"; "when i try to push": "push"), or after a verb in -ing that
    /// opens the span ("running pytest", "building the image").
    pub(in crate::conversation) fn doing(&self, span: Range<usize>) -> Option<Range<usize>> {
        let cls = self.cls;
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(16).collect();
        let at = match ws.iter().position(|w| {
            ["when", "while", "whenever"]
                .iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        }) {
            Some(at) => at,
            None if ws.len() >= 2 && self.gerund(&ws[0], ws.get(1)) => {
                return self
                    .thing(ws[1].start..span.end, false)
                    .map(|t| self.cls.clean(self.text, t, true));
            }
            None => return None,
        };
        let mut i = at + 1;
        let is = |i: usize, list: &[&str]| {
            ws.get(i).is_some_and(|w| {
                list.iter()
                    .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
            })
        };
        if is(i, &["i", "we", "you", "they", "i'm", "im", "we're"]) {
            i += 1;
        }
        if is(i, &["try", "tried", "trying"]) && is(i + 1, &["to"]) {
            i += 2;
        }
        let verb = ws.get(i)?;
        let v = self.text[verb.clone()].to_ascii_lowercase();
        let verbal = v.ends_with("ing")
            || is(i.wrapping_sub(1), &["to"])
            || cls.lower_in(&cls.words.verbs, &v)
            || self
                .at(verb.start, |m| matches!(m, Meaning::Lead(_)))
                .is_some();
        if !verbal {
            return None;
        }
        // The verb's object, past a place word ("pushing to github"), else the verb alone
        // ("when i try to push").
        let object = if ws.get(i + 1).is_some_and(|p| {
            PLACES
                .iter()
                .any(|c| self.text[p.clone()].eq_ignore_ascii_case(c))
        }) {
            i + 2
        } else {
            i + 1
        };
        match ws.get(object) {
            Some(o) => self
                .thing(o.start..span.end, false)
                .map(|t| self.cls.clean(self.text, t, true)),
            None => Some(verb.clone()),
        }
    }

    /// Whether `w` is a verb in -ing doing something to what follows it: before a determiner
    /// ("building the image"), or made from a plain verb of the vocabulary ("running
    /// pytest", "uploading files"); "billing page" and "something" are nouns.
    fn gerund(&self, w: &Range<usize>, next: Option<&Range<usize>>) -> bool {
        let cls = self.cls;
        let t = self.text[w.clone()].to_ascii_lowercase();
        if t.strip_suffix("ing").is_none_or(|s| s.len() < 3) || t.ends_with("thing") {
            return false;
        }
        cls.ing_of_verb(&t)
            || next.is_some_and(|n| {
                ["the", "my", "our", "a", "an", "this", "these", "all"]
                    .iter()
                    .any(|d| self.text[n.clone()].eq_ignore_ascii_case(d))
            })
    }

    /// Where the user's own words of `line` end when the line points back at a paste above
    /// it: it ends with an introducer, then "this", "that", "it", "these" or "above" ("dies
    /// with this"; "getting this all over my cleaning notebook" does not: it names a place
    /// after).
    fn points_back(&self, line: Range<usize>) -> Option<usize> {
        let text = self.text[line.clone()]
            .trim_end()
            .trim_end_matches(['.', '!', '?']);
        let body = [" this", " that", " it", " these", " above"]
            .iter()
            .find_map(|m| strip_suffix_ignore_case(text, m))
            .map(str::trim_end)?;
        let end = line.start + body.len();
        let first = self.hits.partition_point(|h| h.start() <= line.start);
        let introducer = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < end)
            .filter(|h| {
                h.end() == end
                    && h.start() > line.start
                    && self.meanings(**h).contains(&Meaning::Introducer)
            })
            .map(|h| h.start())
            .min()?;
        self.own_line(line.start..end)
            .then(|| self.text[..introducer].trim_end().len())
    }

    /// Where the user's own words of `line` end when the line leads a paste in: it ends with
    /// a colon, an arrow or an ellipsis, or with an introducer of the pattern files ("gives
    /// me", "says", "fails with"), and holds no error marker.
    pub(in crate::conversation) fn leads_in(&self, line: Range<usize>) -> Option<usize> {
        let text = self.text[line.clone()].trim_end();
        let start = line.start;
        // (Words pointing at what follows end it as a colon does: "fails with this", "i get
        // the following".)
        let body = [":", "→", "->", "=>", "...", "…"]
            .iter()
            .find_map(|m| text.strip_suffix(m))
            .or_else(|| {
                [" this", " these", " the following", " below"]
                    .iter()
                    .find_map(|m| strip_suffix_ignore_case(text, m))
            })
            .map(str::trim_end);
        let marked = body.is_some();
        let mut end = start + body.unwrap_or(text).len();
        // The longest introducer that ends the line.
        let first = self.hits.partition_point(|h| h.start() <= start);
        let introducer = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < end)
            .filter(|h| {
                h.end() == end
                    && h.start() > start
                    && self.meanings(**h).contains(&Meaning::Introducer)
            })
            .map(|h| h.start())
            .min();
        if !marked && introducer.is_none() {
            return None;
        }
        let code = text.starts_with([' ', '\t', '`'])
            || text.contains(['(', '=', '{', '}', '[', ';'])
            || text.starts_with(|c: char| !c.is_alphanumeric());
        let n = count_words(text);
        if end == start || !(2..=16).contains(&n) || code || !self.own_line(start..end) {
            return None;
        }
        if let Some(at) = introducer {
            end = self.text[..at].trim_end().len();
        }
        Some(end)
    }

    /// The first line of the user's own after the paste's blocks that opens with a place ("in
    /// the pagination helper", "on the checkout screen when the keyboard opens"): the thing
    /// it names.
    pub(in crate::conversation) fn place_after(
        &self,
        errors: &[Range<usize>],
    ) -> Option<(Range<usize>, Range<usize>)> {
        let end = errors.first()?.end;
        let mut at = end;
        for line in self.text[end..].split_inclusive('\n').take(8) {
            let span = at..at + line.trim_end().len();
            at += line.len();
            if line.trim().is_empty()
                || errors
                    .iter()
                    .any(|e| e.start <= span.start && span.end <= e.end)
            {
                continue;
            }
            let mut ws = words(self.text, span.clone());
            let Some(first) = ws.next() else { continue };
            let opens = ["in", "on", "at", "inside", "within"]
                .iter()
                .any(|p| self.text[first.clone()].eq_ignore_ascii_case(p));
            if let (true, Some(next)) = (opens, ws.next())
                && let Some(t) = self.thing(next.start..span.end, false)
            {
                return Some((span, t));
            }
            // ... or with when it happens ("when the dashboard loads", "while deploying the
            // api"): the thing it names, or what the user was doing.
            let when = ["when", "whenever", "while", "after", "before", "during"]
                .iter()
                .any(|p| self.text[first.clone()].eq_ignore_ascii_case(p));
            if when
                && let Some(t) = self
                    .doing(span.clone())
                    .or_else(|| self.definite_thing(first.end..span.end))
            {
                return Some((span, t));
            }
        }
        None
    }

    /// A line in the user's own words, not a tool's: no error marker on it and no prefix of
    /// a tool's ("npm ERR!", "error:") before a colon.
    fn own_line(&self, span: Range<usize>) -> bool {
        let first = self.hits.partition_point(|h| h.start() < span.start);
        let marked = self.hits[first..]
            .iter()
            .take_while(|h| h.start() < span.end)
            .any(|h| self.meanings(*h).contains(&Meaning::ErrorMarker));
        !marked && camel_error(&self.text[span]).is_none()
    }

    /// The last thing in `span` called by a definite determiner ("kubectl logs for the api
    /// pod", "getting this in the console when I open the profile page"), not a demonstrative
    /// standing alone.
    pub(in crate::conversation) fn last_definite(
        &self,
        span: Range<usize>,
    ) -> Option<Range<usize>> {
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(16).collect();
        ws.iter().rev().find_map(|w| {
            if !DEFINITE
                .iter()
                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d))
            {
                return None;
            }
            let t = self.thing(w.start..span.end, true)?;
            // ("this", "this error", "these warnings": the paste itself.)
            let pointer = ["this", "these", "that", "those"]
                .iter()
                .any(|d| self.text[w.clone()].eq_ignore_ascii_case(d));
            let bare = ["this", "these", "that", "those"]
                .iter()
                .any(|d| self.text[t.clone()].eq_ignore_ascii_case(d));
            let paste = pointer
                && words(self.text, t.clone()).last().is_some_and(|l| {
                    let l = self.text[l].to_ascii_lowercase();
                    [
                        "error",
                        "errors",
                        "warning",
                        "warnings",
                        "message",
                        "issue",
                        "output",
                        "trace",
                        "exception",
                        "crash",
                    ]
                    .contains(&l.as_str())
                });
            let lone = bare || paste;
            (!lone).then_some(t)
        })
    }

    /// `span` as the name of a thing ("cron job", "go test ./...", "fine-tuning script",
    /// "staging db"): at most five words, not opening with a pronoun, an auxiliary or a word
    /// ending in "ing".
    fn named_subject(&self, span: Range<usize>) -> Option<Range<usize>> {
        let cls = self.cls;
        let span = self.cls.clean(self.text, span, true);
        let first = words(self.text, span.clone()).next()?;
        let word = &self.text[first];
        let lower = word.to_ascii_lowercase();
        if lower.ends_with("ing")
            || cls.lower_in(&cls.words.non_subjects, word)
            || cls.lower_in(&cls.words.auxiliaries, word)
            || PLACES.contains(&lower.as_str())
            || count_words(&self.text[span.clone()]) > 5
        {
            return None;
        }
        Some(span)
    }
}

/// `text` without `suffix` at its end, compared without case.
fn strip_suffix_ignore_case<'t>(text: &'t str, suffix: &str) -> Option<&'t str> {
    text.len()
        .checked_sub(suffix.len())
        .filter(|&at| text.is_char_boundary(at) && text[at..].eq_ignore_ascii_case(suffix))
        .map(|at| &text[..at])
}

/// The first route named in `span` ("on every request to /orders", "POST /api/v2/users"): a
/// word that opens with a slash and has no file extension.
pub(super) fn route(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let mut at = span.start;
    for w in text[span.clone()].split(' ') {
        let start = at;
        at += w.len() + 1;
        let w = w.trim_end_matches([',', ':', ';', ')', '?', '!']);
        if w.len() >= 2
            && w.starts_with('/')
            && w[1..].starts_with(|c: char| c.is_ascii_alphanumeric())
            && !w.rsplit('/').next().is_some_and(|last| last.contains('.'))
        {
            return Some(start..start + w.len());
        }
    }
    None
}

impl View<'_> {
    /// Whether a problem only says that something failed: a problem word, then nothing but
    /// times and particles ("died overnight", "failed again", "crashed").
    pub(in crate::conversation) fn only_failed(&self, problem: Range<usize>) -> bool {
        let mut ws = words(self.text, problem);
        ws.next().is_some_and(|w| {
            self.at(w.start, |m| matches!(m, Meaning::Problem))
                .is_some()
        }) && ws.all(|w| {
            let t = &self.text[w];
            WHEN.iter()
                .chain(PARTICLES.iter())
                .chain(["here", "there", "now"].iter())
                .any(|p| t.eq_ignore_ascii_case(p))
        })
    }
}

/// The inside of the first pair of backticks in `span`, when it is short (four words at most)
/// and on one line.
pub(super) fn backticked(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    // (A span past its sentence's end, after a skip, is empty.)
    let t = text.get(span.clone())?;
    let open = t.find('`')?;
    let close = open + 1 + t[open + 1..].find('`')?;
    let inside = &t[open + 1..close];
    (!inside.trim().is_empty() && !inside.contains('\n') && inside.split_whitespace().count() <= 4)
        .then(|| span.start + open + 1..span.start + close)
}
