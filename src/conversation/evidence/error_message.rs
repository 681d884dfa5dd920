//! Rule 1: the message of an error's line, without the error's name, level or code, the place
//! it was found in, or a reason the tool adds.

use super::error_shapes::{coded_level, exception_name, source_location};
use super::*;

impl View<'_> {
    /// `message` with the status code before it, which belongs to its reason ("413 Request
    /// Entity Too Large").
    pub(super) fn with_status_code(&self, message: Range<usize>) -> Range<usize> {
        match &self.text.as_bytes()[..message.start] {
            [.., pre, d1, d2, d3, b' ']
                if !pre.is_ascii_alphanumeric()
                    && (b'1'..=b'5').contains(d1)
                    && d2.is_ascii_digit()
                    && d3.is_ascii_digit() =>
            {
                message.start - 4..message.end
            }
            _ => message,
        }
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
        // A level and a code ("error TS2345", "error CS0246").
        let coded = |w: &str| {
            let mut ws = w.split(' ');
            ws.next().is_some_and(|l| {
                ["error", "warning", "fatal"]
                    .iter()
                    .any(|n| l.eq_ignore_ascii_case(n))
            }) && ws
                .next()
                .is_some_and(|c| c.chars().any(|c| c.is_ascii_digit()))
                && ws.next().is_none()
        };
        // (After a level and its code wherever it stands: "src/app.ts:14:7 - error TS2322:
        // Type ...".)
        let mut at = coded_level(text).map_or(0, |r| r.end);
        // Where the last error's name starts ("KeyError" of "the handler throws KeyError: ...").
        let mut last_name = None;
        // At most four names in a row ("thread main: panic: runtime error: ..."), and the
        // tool's name, place or address before them, a word without spaces ("ld:", "nginx:",
        // "psql:load.sql:12:", "user@10.0.3.14:", "ActiveRecord::ConnectionNotEstablished:").
        for _ in 0..4 {
            let rest = &text[at..];
            let Some(colon) = rest.find(": ") else { break };
            let name = &rest[..colon];
            let tool = !name.is_empty() && !name.contains(' ') && colon + 2 < rest.len();
            if name.len() > 60 || !(is_name(name) || coded(name) || tool) {
                break;
            }
            if is_name(name) {
                last_name = Some(at + name.rfind(' ').map_or(0, |p| p + 1));
            }
            at += colon + 2;
            // A level in brackets after a tool's name ("nginx: [emerg] ...").
            let rest = &text[at..];
            let trimmed = rest.trim_start();
            if tool
                && !is_name(name)
                && trimmed.starts_with('[')
                && let Some(close) = trimmed.find("] ")
                && close < 16
            {
                at += rest.len() - trimmed.len() + close + 2;
            }
        }
        let mut rest = text[at..].trim_start();
        // Ruby's "NoMethodError (undefined method `total' for nil:NilClass):": the message is
        // in the parentheses (the line comes without its closing "):", cleaned).
        if at == 0
            && let Some(open) = rest.find(" (")
            && exception_name(&format!("{}: ", &rest[..open])).is_some()
        {
            let from = line.start + (text.len() - rest.len()) + open + 2;
            let inner = &self.text[from..line.end];
            let to = from + inner.trim_end().trim_end_matches([')', ':']).len();
            let message = self.cls.clean(self.text, from..to, false);
            if !message.is_empty() {
                return message;
            }
        }
        if rest.starts_with('(')
            && let Some(close) = rest.find(')')
        {
            rest = rest[close + 1..].trim_start();
        }
        // A short code or level in brackets before the message ("[Errno 13] Permission
        // denied", "[ERROR] Failed to execute goal ...").
        if rest.starts_with('[')
            && let Some(close) = rest.find("] ")
            && close < 16
        {
            rest = rest[close + 2..].trim_start();
        }
        // A quoted name after the message and its colon is what it concerns, no part of it
        // ("Permission denied: '/var/log/app/worker.log'").
        if let Some(p) = rest.rfind(": ")
            && count_words(&rest[..p]) >= 2
            && rest[p + 2..].trim_end().starts_with(['\'', '"'])
            && !rest[p + 2..].trim().contains(' ')
        {
            rest = &rest[..p];
        }
        // An error wrapped in the steps that led to it ("driver failed programming ...: Bind
        // for 0.0.0.0:5432 failed: port is already allocated", "creating S3 Bucket
        // (acme-assets): BucketAlreadyExists"): the last step is the cause, when it is an
        // error's name or the chain has three steps or more.
        let steps = rest.matches(": ").count();
        if let Some(last) = rest.rfind(": ").map(|p| &rest[p + 2..])
            && last.len() > 3
            && (steps >= 2
                || (!last.trim().contains(' ')
                    && last.trim().chars().all(|c| c.is_ascii_alphanumeric())
                    && last.chars().next().is_some_and(|c| c.is_ascii_uppercase())))
        {
            rest = last.trim_start();
        }
        // A request a tool names after a dash ("404 Not Found - GET https://... - Not
        // found"): the message is before it.
        if let Some(p) = find_bytes(rest, " - ")
            && count_words(&rest[..p]) >= 2
            && [
                "GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "HEAD ", "http",
            ]
            .iter()
            .any(|m| rest[p + 3..].starts_with(m))
        {
            rest = &rest[..p];
        }
        // A reason after the error is no part of it ("... as mutable because it is also
        // borrowed as immutable", "... as it is undefined").
        if let Some(p) = [" because ", " as it is ", " since "]
            .iter()
            .filter_map(|c| find_bytes(rest, c))
            .min()
            && count_words(&rest[..p]) >= 3
        {
            rest = &rest[..p];
        }
        // Where it was found is no part of it ("unknown directive \"http2\" in
        // /etc/nginx/conf.d/site.conf:3", or a path with no extension and its line:
        // ".../sites-enabled/app:14").
        // (Or a path in quotes: "Can't resolve 'fs' in '/app/node_modules/dotenv/lib'".)
        let path_line = |t: &str| {
            let t = t.trim().trim_end_matches(['.', ',']);
            let quoted = t.len() > 2
                && (t.starts_with('\'') && t.ends_with('\'')
                    || t.starts_with('"') && t.ends_with('"'));
            t.contains('/')
                && (quoted
                    || t.rsplit_once(':').is_some_and(|(path, line)| {
                        !path.is_empty()
                            && !line.is_empty()
                            && line.bytes().all(|b| b.is_ascii_digit())
                    }))
        };
        if let Some(p) = rest.rfind(" in ")
            && count_words(&rest[..p]) >= 2
            && !rest[p + 4..].trim().contains(' ')
            && (source_location(&rest[p + 4..]).is_some() || path_line(&rest[p + 4..]))
        {
            rest = &rest[..p];
        }
        // (Where `rest` starts within the line: it may have lost its end to a reason above.)
        let start = line.start + (rest.as_ptr() as usize - text.as_ptr() as usize);
        let mut end = rest.find(". ").unwrap_or(rest.len());
        // A remark in parentheses at the end ("(use -v to see invocation)"), closed or cut.
        // (A word in parentheses is part of it: "Permission denied (publickey)"; a time is
        // not: "FAIL: TestParseDate (0.00s)".)
        if let Some(open) = rest[..end].rfind(" (")
            && (rest[..end].trim_end().ends_with(')') || !rest[open..end].contains(')'))
            && open > 0
            && rest[open + 2..end]
                .trim()
                .contains(|c: char| c == ' ' || c.is_ascii_digit())
        {
            end = open;
        }
        let message = self.cls.clean(self.text, start..start + end, false);
        // A message of a word, or a quoted one ("KeyError: 'customer_id'"), needs its name, and
        // so does one that opens with a quoted word ("KeyError: 'customer_id' when stripe sends
        // ..."); two plain words stand alone ("Permission denied", "Connection refused").
        let said = &self.text[message.clone()];
        let quoted_word = said.starts_with(['\'', '"'])
            && said.split_whitespace().next().is_some_and(|w| {
                w.len() > 2 && w.trim_end_matches([',', '.']).ends_with(['\'', '"'])
            });
        let words = count_words(said);
        if words < 2 || (words < 3 && said.starts_with(['\'', '"'])) {
            line
        } else if quoted_word && let Some(n) = last_name {
            line.start + n..message.end
        } else {
            message
        }
    }
}
