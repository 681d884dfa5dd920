//! Rule 1 for pasted errors: the lines of an error or a trace, the line that states it, the
//! thing the user's own words name around it. (An error told in the user's own sentence:
//! `inline_errors.rs`.)
//! (The message of its line: `error_message.rs`.)

use super::error_shapes::{
    coded_level, component_tag, exception_name, file_named, flat_exception, source_location,
    tool_message,
};
use super::*;

impl View<'_> {
    /// The lines of a pasted error or stack trace: those holding an error marker, and the
    /// frames and code lines after one (indented, or starting with "at", "File", "|", "-->"),
    /// so that the user's own sentences are read, not the error's.
    pub(in crate::conversation) fn error_lines(&self) -> SmallVec<[Range<usize>; 4]> {
        let mut out: SmallVec<[Range<usize>; 4]> = SmallVec::new();
        let mut in_error = false;
        // The line before led a paste in ("cron job output:", "cargo build gives me").
        let mut led = false;
        // ... by an introducer ("gives me"), not a bare colon or arrow.
        let mut led_by_word = false;
        // The line before was an error's that ends with a colon: its message follows ("thread
        // 'main' panicked at src/config.rs:88:41:" then "called `Option::unwrap()` on ...").
        let mut continued = false;
        let mut at = 0;
        let code = code_blocks(self.text);
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
                }) && t.get(..40).unwrap_or(t).contains(':'));
            // A tool's status word in capitals anywhere ("> Task :app:compile FAILED").
            let shouted = t
                .split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| ["FAILED", "ERROR", "FATAL", "EXCEPTION", "PANIC"].contains(&w));
            // A line of the user's own prose holding a marker ("Docker says 'no space left on
            // device' when building the image") is no pasted error: it is read as a sentence.
            // A tool's level in brackets is never the user's prose ("✘ [ERROR] A request to
            // the API failed").
            let bracketed = [
                "[ERROR]",
                "[FATAL]",
                "[WARN]",
                "[WARNING]",
                "[CRITICAL]",
                "[PANIC]",
            ]
            .iter()
            .any(|l| t.contains(l));
            // (Nor is a line of a code block, fenced or indented: "airflow.exceptions.
            // AirflowConfigException: error: cannot use SQLite with the CeleryExecutor" in a
            // fence is pasted.)
            let pasted = code
                .iter()
                .any(|c| c.start <= span.start && span.end <= c.end);
            let prose = self.is_prose(span.clone()) && !bracketed && !pasted;
            let marked = (marked
                || level
                || shouted
                || (led
                    && !t.trim().is_empty()
                    // (After a bare colon, only a line that looks like a tool's: "my
                    // shopping list:" and "milk eggs" are the user's words.)
                    && (led_by_word
                        || t.contains(|c: char| {
                            c.is_ascii_digit() || ":/\\()[]{}=<>|`\"'".contains(c)
                        })))
                || camel_error(&self.text[span.clone()]).is_some()
                || exception_name(t).is_some()
                || (t.contains(':') && coded_level(t).is_some()))
                && !prose;
            if !t.trim().is_empty() {
                led = !marked && !in_error && self.leads_in(span.clone()).is_some();
                led_by_word = led && !t.trim_end().ends_with([':', '→', '>', '.', '\u{2026}']);
            }
            let frame = in_error
                && (line.starts_with([' ', '\t'])
                    // (Not the user's words: "any idea why??" under it.)
                    || (continued
                        && !t.trim().is_empty()
                        && !self.pleads(span.clone())
                        && !self.holds_own_words(span.clone()))
                    || t.starts_with("at ")
                    || t.starts_with("File ")
                    || t.starts_with(['|', '>', '│', '^', '~', '-', '['])
                    || t.starts_with("-->")
                    // A heading inside the trace ("Require stack:", "Caused by:").
                    || (t.trim_end().ends_with(':') && count_words(t) <= 3)
                    // A tool's note on the error ("hint: Updates were rejected ...",
                    // "help: consider borrowing here").
                    || ["hint:", "help:", "note:", "caused by:", "context:", "suggestion:"]
                        .iter()
                        .any(|l| t.get(..l.len()).is_some_and(|h| h.eq_ignore_ascii_case(l)))
                    // A labelled detail of the error ("DETAIL:  Key (id)=(1042) already
                    // exists", "HINT: ...").
                    || t.split_once(':').is_some_and(|(l, _)| {
                        l.len() >= 3
                            && l.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                    })
                    // A frame of one word (Go's "main.(*Registry).Add(...)") or one
                    // that is a source location ("/app/registry.go:23").
                    || (!t.trim().is_empty() && !t.trim().contains(' '))
                    || source_location(t).is_some()
                    || t.is_empty());
            // (A blank line inside a trace keeps it going: "goroutine 1 [running]:" after
            // Go's panic line.)
            in_error = marked || (frame && !t.is_empty()) || (in_error && t.trim().is_empty());
            continued = marked && t.trim_end().ends_with(':');
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
            || source_location(text).is_some()
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

    /// Rule 1: a pasted error (a marker of the pattern files, or a word ending in `Error` or
    /// `Exception` before a colon) is a problem report; the line holding it is the problem.
    pub(in crate::conversation) fn pasted_error(
        &self,
        errors: &[Range<usize>],
    ) -> Option<GoalLead> {
        let task = self.cls.goal_index(GoalType::TaskExecution)?;
        let block = errors.first()?.clone();
        let (line, marker) = self.error_line(block.clone())?;
        // The user's own words and a colon before the error on its line lead it in ("xcode
        // archive fails: Command PhaseScriptExecution failed with a nonzero exit code"): the
        // message is after the colon, the thing in the words.
        // (Not an exception's own name, dotted with its module: "requests.exceptions.HTTPError:
        // 429 ...".)
        let inline = self.text[line.clone()]
            .find(": ")
            .map(|c| line.start + c)
            .filter(|&c| c < marker.start)
            .filter(|_| exception_name(self.text[line.clone()].trim_start()).is_none())
            .and_then(|c| Some((c, self.leads_in(line.start..c + 1)?)));
        // An error the user quotes in a sentence of their own ("why does my build say \"Module
        // not found: Can't resolve 'fs'\" when I import ..."): the quotes hold the message,
        // the words before them lead it in.
        // (Or in single quotes that stand apart from the words, unlike an apostrophe: "why
        // do I get 'Uncaught SyntaxError: Unexpected token <' in the console".)
        // (Or in backticks, a code span anywhere on the line: "`TimeoutError: operation
        // timed out` coming from the billing worker".)
        let line_end = self.text[line.start..]
            .find('\n')
            .map_or(self.text.len(), |n| line.start + n);
        let ticked = || {
            if marker.start < line.start || marker.end > line_end {
                return None;
            }
            // (The line may start after the span opens, too.)
            let line_start = self.text[..line.start].rfind('\n').map_or(0, |n| n + 1);
            let open = line_start + self.text[line_start..marker.start].rfind('`')?;
            // (The line may be cut at its limit before the span closes.)
            let close = marker.end + self.text[marker.end..line_end].find('`')?;
            (self.text[line_start..open]
                .matches('`')
                .count()
                .is_multiple_of(2))
            .then_some(open..close + 1)
        };
        let quoted_error = (marker.start > line.start && marker.end <= line.end)
            .then(|| {
                let open = line.start + self.text[line.start..marker.start].rfind('"')?;
                let close = marker.end + self.text[marker.end..line.end].find('"')?;
                // (An opening quote: an even number of them before it.)
                let before = &self.text[line.start..open];
                (before.split_whitespace().count() >= 2
                    && before.matches('"').count().is_multiple_of(2))
                .then_some(open..close + 1)
            })
            .flatten()
            .or_else(|| {
                if marker.start <= line.start || marker.end > line.end {
                    return None;
                }
                let open = line.start + self.text[line.start..marker.start].rfind(" '")? + 1;
                let after = &self.text[marker.end..line.end];
                let close = marker.end
                    + after.char_indices().find_map(|(i, c)| {
                        (c == '\''
                            && after[i + 1..]
                                .chars()
                                .next()
                                .is_none_or(|n| n.is_whitespace() || ",.;:?!)".contains(n)))
                        .then_some(i)
                    })?;
                let before = &self.text[line.start..open];
                (before.split_whitespace().count() >= 2
                    && !self.text[open + 1..marker.start].contains('\''))
                .then_some(open..close + 1)
            })
            .or_else(ticked);
        let mut message = match (inline, &quoted_error) {
            (_, Some(q)) => self.error_message(q.start + 1..q.end - 1),
            (Some((c, _)), None) => self.error_message(c + 2..line.end),
            (None, None) => self.error_message(line.clone()),
        };
        // A message in quotes right after the marker ("thread 'main' panicked at 'index out
        // of bounds: ...', src/parser.rs:88:21").
        // (Not after an error's name and its colon: "KeyError: 'price'" is the message.)
        // (The line may end before the marker: a line cut at its limit, or cleaned of a
        // marker's last character.)
        if marker.end < line.end
            && !self.text[marker.clone()].trim_end().ends_with(':')
            && self.text[marker.end..line.end]
                .trim_start()
                .starts_with(['\'', '"'])
            && let Some(q) = quoted(self.text, marker.end..line.end)
        {
            message = q;
        }
        // The user's words after a dash on the error's line ("IndexError: ... -- in
        // parse_header") name the thing; the message stops there.
        let tail = find_first_of(&self.text[line.clone()], &[" -- ", " — ", " – "])
            .map(|(p, n)| (line.start + p, line.start + p + n));
        if let Some((cut, _)) = tail
            && message.end > cut
        {
            message = self.cls.clean(self.text, message.start..cut, false);
        }
        // A component named as a tag after the message ("... (reading 'map') in
        // <ProductGrid> when ..."): the message stops before it, and it is the thing.
        let tag = component_tag(&self.text[line.clone()])
            .map(|(cut, name)| {
                (
                    line.start + cut,
                    line.start + name.start..line.start + name.end,
                )
            })
            .filter(|(cut, _)| *cut > message.start);
        if let Some((cut, _)) = tag
            && message.end > cut
        {
            message = self.cls.clean(self.text, message.start..cut, false);
        }
        // (A line ending with a colon goes on with its message on the next: "thread 'main'
        // panicked at src/config.rs:88:41:" then "called `Option::unwrap()` on a `None`
        // value".)
        if inline.is_none()
            && quoted_error.is_none()
            && let Some(head) = self.text[line.start..line_end]
                .trim_end()
                .strip_suffix(':')
            // (Only after a source location, the line naming where and no message: "NoMethodError
            // (undefined method ...):" holds its own.)
            && source_location(head).is_some_and(|r| {
                head[r.end..]
                    .bytes()
                    .all(|b| b == b':' || b.is_ascii_digit())
            })
            // (The very next line, inside the paste, and no note or heading of the tool's:
            // "note: run with `RUST_BACKTRACE=1`", "stack backtrace:".)
            && let Some(next) = self.text[line_end..block.end.max(line_end)]
                .split('\n')
                .nth(1)
                .map(str::trim)
                .filter(|l| {
                    !l.is_empty()
                        && !l.ends_with(':')
                        && !["note:", "help:", "hint:"].iter().any(|p| {
                            l.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p))
                        })
                })
        {
            let start = line_end + self.text[line_end..].find(next).unwrap_or(0);
            message = start..start + next.len();
        }
        let message = self.with_status_code(message);
        let own_thing = || {
            let rest = tail.map(|(_, from)| from..line.end)?;
            self.definite_named(rest.clone())
                .or_else(|| self.bare_place_thing(rest))
        };
        // A file, module or name the error quotes ("No such file or directory:
        // 'config.yaml'", "Cannot find module 'express'").
        let quoted_name = || {
            quoted(self.text, line.clone()).filter(|q| {
                let t = &self.text[q.clone()];
                !t.contains(char::is_whitespace) && t.len() <= 80
            })
        };
        // The file of a source location in the error ("... in /var/www/html/db.php:5",
        // "src/parser.rs:88:21").
        let located = || {
            let text = &self.text[block.clone()];
            source_location(text)
                .or_else(|| file_named(text))
                .map(|r| block.start + r.start..block.start + r.end)
        };
        // The user's words before the marker on its line, when they lead the error in
        // ("kubectl apply keeps saying error: ...", "why does my fetch call throw TypeError:
        // ...").
        let led_in = || {
            // (The marker may stand before the line: a line cut at its limit.)
            let from = quoted_error.as_ref().map_or(marker.start, |q| q.start);
            if from <= line.start || from > line.end {
                return None;
            }
            let mut end = self.text[line.start..from].trim_end().len() + line.start;
            // (An exception's name before the marker is the error's: "throw TypeError:
            // Failed to fetch".)
            if let Some((before, last)) = self.text[line.start..end].rsplit_once(' ')
                && exception_name(&format!("{last} ")).is_some()
            {
                end = line.start + before.trim_end().len();
            }
            (end > line.start)
                .then(|| self.leads_in(line.start..end))
                .flatten()
                .and_then(|e| self.intro_thing(line.start..e))
        };
        let inline_thing = || inline.and_then(|(_, e)| self.intro_thing(line.start..e));
        // (The user's words after a quoted error name the thing: "... coming from our
        // order-events producer".)
        let after_quote = || {
            let rest = quoted_error
                .as_ref()
                .filter(|q| self.text[(*q).clone()].starts_with('`'))
                .map(|q| q.end..line_end.max(q.end))?;
            self.definite_named(rest.clone())
                .or_else(|| self.bare_place_thing(rest))
        };
        // (The subject of the line read as a report: "Pod stuck in CrashLoopBackOff", "Job
        // killed with exit code 137 although memory limit is 8Gi"; not a tool's words,
        // "TypeError: ...", "thread 'main' panicked at ...".)
        let line_subject = || {
            let t = self.subject_of(task, line.clone(), line.end)?;
            let t = self.cls.clean(self.text, t, true);
            let tool = self.text[t.end..].trim_start().starts_with(':')
                || self.text[t.clone()].contains(['\'', '"', ':'])
                || exception_name(&format!("{} ", &self.text[t.clone()])).is_some()
                || self.text[t.clone()]
                    .split_whitespace()
                    .any(|w| w.eq_ignore_ascii_case("thread"));
            (!t.is_empty() && t.end <= marker.start && !tool).then_some(t)
        };
        // (A title of the user's own above the paste, its marker inside a report, names the
        // thing before anything the paste names: "Self-hosted runner container keeps
        // restarting with exit code 137" over "runner-1 exited with code 137".)
        let titled = || {
            let own = marker.start > line.start
                && !self.text[line.start..marker.start].contains(':')
                && line.end < block.end
                && !code_blocks(self.text)
                    .iter()
                    .any(|c| c.start <= line.start && line.end <= c.end);
            own.then(line_subject).flatten()
        };
        let thing = titled()
            .or_else(|| self.named_thing(errors))
            .or_else(inline_thing)
            .or_else(|| tag.map(|(_, name)| name))
            .or_else(own_thing)
            .or_else(after_quote)
            .or_else(led_in)
            .or_else(line_subject)
            // (Or the subject of its message read as a report, after a code: "ERR_SNAPSHOT_
            // LOCKED: repository locked by another process".)
            .or_else(|| {
                let code = self.text[marker.clone()].trim_end_matches(':');
                let after = skip_soft(self.text, marker.end);
                if after >= line.end
                    || marker.start != line.start
                    || !code.contains('_')
                    || !code
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                {
                    return None;
                }
                let t = self.subject_of(task, after..line.end, line.end)?;
                let t = self.cls.clean(self.text, t, true);
                (!t.is_empty() && !self.text[t.clone()].contains(['\'', '"', ':'])).then_some(t)
            })
            .or_else(|| self.frame_subject(block.clone()))
            .or_else(located)
            .or_else(quoted_name);
        Some(report(
            task,
            thing,
            message,
            line,
            marker,
            Found::PastedError,
        ))
    }

    /// The line that states an error block's error: the first line holding a marker (the
    /// cause a tool prints first, the first line of a Java trace), or the last one in a
    /// traceback that lists its frames first ("most recent call last": Python's exception
    /// line), at most `MAX_ERROR_LINE` bytes; with its marker.
    pub(in crate::conversation) fn error_line(
        &self,
        block: Range<usize>,
    ) -> Option<(Range<usize>, Range<usize>)> {
        let mut found = None;
        let mut at = block.start;
        // Once for the block: a traceback that lists its frames first.
        let traceback = find_bytes(&self.text[block.clone()], "most recent call last").is_some();
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
                })
                .or_else(|| {
                    let line = &self.text[span.clone()];
                    let lead = line.len() - line.trim_start().len();
                    exception_name(line.trim_start())
                        .map(|r| span.start + lead + r.start..span.start + lead + r.end)
                })
                .or_else(|| {
                    coded_level(&self.text[span.clone()])
                        .map(|r| span.start + r.start..span.start + r.end)
                })
                .or_else(|| {
                    tool_message(&self.text[span.clone()])
                        .map(|r| span.start + r.start..span.start + r.end)
                });
            if let Some(m) = marker {
                // The first error a tool prints is the cause ("ld: framework not found"
                // before "clang: error: linker command failed"); a traceback that lists its
                // frames first ("most recent call last") states it on its last marked line.
                // (A line that only gives a detail of the error, its code, call or path, leaves
                // it to the next: npm's "npm ERR! code ERESOLVE", "npm ERR! syscall mkdir"
                // before "npm ERR! ERESOLVE unable to resolve ...".)
                let detail_only = |f: &Range<usize>, fm: &Range<usize>| {
                    let rest = self.text[fm.end.min(f.end)..f.end]
                        .trim_start_matches(|c: char| !c.is_alphanumeric());
                    let mut ws = rest.split_whitespace();
                    ws.next().is_some_and(|w| {
                        ["code", "syscall", "path", "errno", "file", "dest"]
                            .iter()
                            .any(|l| w.eq_ignore_ascii_case(l))
                    }) && ws.next().is_some()
                        && ws.next().is_none()
                };
                let code_only = found.as_ref().is_some_and(|(f, fm)| detail_only(f, fm))
                    && !detail_only(&span, &m);
                // (So does a heading that is only the marker: "Unhandled Runtime Error" over
                // "Error: Hydration failed because ...".)
                // (A heading may end with its colon: "stacktrace:".)
                let heading_only = found.as_ref().is_some_and(|(f, _)| {
                    let h = self.text[f.clone()].trim_end().trim_end_matches(':');
                    !h.contains(':') && count_words(h) <= 4
                }) && self.text[m.start.max(span.start)..span.end]
                    .contains(": ");
                if found.is_none() || traceback || code_only || heading_only {
                    found = Some((span, m));
                }
            }
        }
        // A block marked by a level or a status word has no marker hit: its first line.
        let found = found.or_else(|| {
            let first = self.text[block.clone()].lines().next()?;
            let span = block.start..block.start + first.len();
            let word = words(self.text, span.clone()).next()?;
            Some((span, word))
        });
        let (mut span, mut marker) = found?;
        // A traceback pasted on one line states its exception after its frames.
        if traceback
            && find_bytes(&self.text[span.clone()], "call last").is_some()
            && let Some(r) = flat_exception(&self.text[span.clone()])
        {
            marker = span.start + r.start..span.start + r.end;
            span.start = marker.start;
        }
        let mut end = span.end.min(span.start + MAX_ERROR_LINE);
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let line = self.cls.clean(self.text, span.start..end, false);
        (!line.is_empty()).then_some((line, marker))
    }

    /// The thing a sentence names with a determiner, past a demonstrative standing alone
    /// ("getting this when I open the profile page": "this" points at the error) and past a
    /// phrase holding a pronoun ("all I get").
    pub(super) fn definite_named(&self, mut span: Range<usize>) -> Option<Range<usize>> {
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
    pub(super) fn last_object(&self, span: Range<usize>) -> Option<Range<usize>> {
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

    /// The thing after "in", "on", "from" or "for" in `span`, with or without a determiner
    /// ("-- in parse_header").
    pub(in crate::conversation) fn bare_place_thing(
        &self,
        span: Range<usize>,
    ) -> Option<Range<usize>> {
        let ws: SmallVec<[Range<usize>; 16]> = words(self.text, span.clone()).take(16).collect();
        let p = ws.iter().position(|w| {
            ["in", "on", "from", "for", "at", "inside"]
                .iter()
                .any(|c| self.text[w.clone()].eq_ignore_ascii_case(c))
        })?;
        // (A number after it is a quantity, not a thing: "for 30 days"; a lone gerund after
        // "for" a purpose: "for debugging".)
        let prep = &self.text[ws[p].clone()];
        // (Nor is a bound of one: "for up to three months", "for at least a week".)
        let is = |k: usize, t: &str| {
            ws.get(k)
                .is_some_and(|w| self.text[w.clone()].eq_ignore_ascii_case(t))
        };
        if is(p + 1, "up") && is(p + 2, "to")
            || is(p + 1, "at") && (is(p + 2, "least") || is(p + 2, "most"))
        {
            return None;
        }
        self.thing(ws.get(p + 1)?.start..span.end, false)
            .filter(|t| !self.text[t.clone()].starts_with(|c: char| c.is_ascii_digit()))
            .filter(|t| !purpose_gerund(prep, &self.text[t.clone()]))
            // (Nor is a time: "schedule posts in advance", "at the end of the day".)
            .filter(|t| {
                words(self.text, t.clone())
                    .last()
                    .is_none_or(|w| !self.cls.lower_in(&self.cls.words.times, &self.text[w]))
            })
    }

    /// The error's own subject when the user names none: the function of the trace's first
    /// frame ("at flatten (utils/tree.js:12)", Python's `File "...", line 3, in load`).
    fn frame_subject(&self, block: Range<usize>) -> Option<Range<usize>> {
        let mut at = block.start;
        for line in self.text[block.clone()].split_inclusive('\n').take(64) {
            let start = at;
            at += line.len();
            // (A traceback pasted on one line has its frames after its heading.)
            let t = line.trim_start();
            let t = t.split_once("call last): ").map_or(t, |(_, frames)| frames);
            let lead = start + (line.len() - t.len());
            let name = if let Some(rest) = t.strip_prefix("at ") {
                let end = rest.find([' ', '(']).unwrap_or(rest.len());
                Some((lead + 3, lead + 3 + end))
            } else if t.starts_with("File ") {
                let i = t.rfind(", in ")?;
                let rest = &t[i + 5..];
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                // (Code at a module's top level: the file is the thing, "app.py".)
                if rest[..end].eq_ignore_ascii_case("<module>")
                    && let Some(q) = t.strip_prefix("File \"")
                    && let Some(close) = q.find('"')
                {
                    let path = &q[..close];
                    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
                    let at = lead + 6 + close - file.len();
                    return Some(at..at + file.len());
                }
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
}
