//! The shapes an error takes on a line, found by their bytes alone: an exception's name, a
//! level and its code, a source location.

use std::ops::Range;

use super::super::text::count_words;

/// An exception's name opening a line, before a colon and a space: a name of letters, digits,
/// dots and underscores whose last part has two capitals at least
/// (`psycopg2.errors.UniqueViolation:`, `ActiveRecord::RecordInvalid:` aside from "::"), so
/// that a label such as "Note:" is none. Where it is, colon included.
pub(super) fn exception_name(line: &str) -> Option<Range<usize>> {
    // (Or "Name (" for an exception whose name ends in Error or Exception, Ruby's form.)
    let paren = line.find(" (").filter(|p| {
        let n = &line[..*p];
        n.ends_with("Error") || n.ends_with("Exception")
    });
    let colon = paren.or_else(|| line.find(": "))?;
    let name = &line[..colon];
    if name.is_empty()
        || name.len() > 80
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':'))
    {
        return None;
    }
    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
    let capitals = last.chars().filter(char::is_ascii_uppercase).count();
    let camel = last.starts_with(|c: char| c.is_ascii_uppercase())
        && capitals >= 2
        && last.chars().any(|c| c.is_ascii_lowercase());
    camel.then_some(0..colon + 1)
}

/// A level and a code anywhere on a line, colon included ("src/api/client.ts:14:7 - error
/// TS2322: ...", "Program.cs(12,5): error CS0103: ..."): where it is.
pub(super) fn coded_level(line: &str) -> Option<Range<usize>> {
    let lower = line.get(..line.len().min(200))?.to_ascii_lowercase();
    ["error ", "fatal "]
        .iter()
        .find_map(|l| {
            let at = lower.find(l)?;
            let before = lower[..at].chars().next_back();
            if before.is_some_and(char::is_alphanumeric) {
                return None;
            }
            let code_start = at + l.len();
            let code_len = lower[code_start..].find(':')?;
            // (A state may follow the code: MySQL's "ERROR 1040 (HY000):".)
            let code = lower[code_start..code_start + code_len]
                .split(" (")
                .next()
                .unwrap_or("");
            // (A code of digits only with a state after it: "ERROR 1040 (HY000):".)
            let stated = lower[code_start..code_start + code_len].contains(" (");
            (!code.is_empty()
                && code.len() <= 12
                && code.chars().all(|c| c.is_ascii_alphanumeric())
                && code.chars().any(|c| c.is_ascii_digit())
                && (stated || code.starts_with(|c: char| c.is_ascii_alphabetic())))
            .then_some(at..code_start + code_len + 1)
        })
        .or_else(|| {
            // A compiler's code alone opening the line ("TS2339: Property ...", "CS0246: ..."):
            // one to four capitals, then three to five digits.
            let code = &line[..line.find(": ")?];
            let letters = code.bytes().take_while(u8::is_ascii_uppercase).count();
            let digits = code.len() - letters;
            ((1..=4).contains(&letters)
                && (3..=5).contains(&digits)
                && code[letters..].bytes().all(|b| b.is_ascii_digit()))
            .then_some(0..code.len() + 1)
        })
        .or_else(|| {
            // (A constant's name opening the line, words joined by underscores: "E_TILE_MISSING:
            // no airspace data for tile 48/11", "ERR_SSL_PROTOCOL_ERROR: ..."; a message of
            // three words at least after it.)
            let colon = line.find(": ")?;
            let code = &line[..colon];
            (line[colon + 2..].split_whitespace().nth(2).is_some()
                && code.len() >= 5
                && code.len() <= 40
                && code.starts_with(|c: char| c.is_ascii_uppercase())
                && code.contains('_')
                && code
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
            .then_some(0..code.len() + 1)
        })
}

/// The file of the first source location in `text`: a path whose last part has an extension
/// of letters, followed by a colon and a line number ("src/parser.rs:88:21", "db.php:5",
/// "/app/registry.go:23"). Its last part only ("parser.rs").
pub(super) fn source_location(text: &str) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(p) = text[from..].find(':').map(|p| from + p) {
        from = p + 1;
        // (A line number after it, or a test's name after "::": pytest's
        // "tests/test_orders.py::test_refund".)
        let test_id = bytes.get(p + 1) == Some(&b':')
            && bytes
                .get(p + 2)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
        if !bytes.get(p + 1).is_some_and(u8::is_ascii_digit) && !test_id {
            continue;
        }
        // The word before the colon: a name with a dot and an extension of letters.
        let start = text[..p]
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/')))
            .map_or(0, |(s, c)| s + c.len_utf8());
        let path = &text[start..p];
        let name_start = path.rfind('/').map_or(start, |s| start + s + 1);
        let name = &text[name_start..p];
        let ext = name.rsplit_once('.');
        if let Some((stem, e)) = ext
            && !stem.is_empty()
            && (1..=5).contains(&e.len())
            && e.chars().all(|c| c.is_ascii_alphabetic())
        {
            return Some(name_start..p);
        }
    }
    None
}

/// The extensions of source and configuration files an error may name.
const FILE_EXTENSIONS: [&str; 44] = [
    "js", "mjs", "cjs", "ts", "tsx", "jsx", "py", "rb", "go", "rs", "java", "kt", "swift", "cpp",
    "cc", "hpp", "cs", "php", "json", "yaml", "yml", "toml", "xml", "html", "css", "scss", "vue",
    "svelte", "sql", "sh", "ini", "cfg", "conf", "gradle", "dart", "ex", "exs", "scala", "lua",
    "pl", "ps1", "env", "lock", "ipynb",
];

/// A file an error's text names after "in" or "at", with no line number: a name with a dot and
/// an extension of a source or configuration file ("... (reading 'tabId') in background.js",
/// "... at content-script.ts"); not a method ("at JSON.parse"), a host ("at smtp.gmail.com")
/// nor a runtime with its version ("in Node.js 18").
pub(super) fn file_named(text: &str) -> Option<Range<usize>> {
    let mut prev = "";
    let mut offset = 0;
    for piece in text.split([' ', '\n', '\t']) {
        let start = offset;
        offset += piece.len() + 1;
        let w = piece.trim_end_matches([',', '.', ';', ')', ':', '"', '\'', '`']);
        if ["in", "at"].iter().any(|p| prev.eq_ignore_ascii_case(p)) {
            let w = w.trim_start_matches(['"', '\'', '`', '(']);
            let lead = piece.len() - piece.trim_start_matches(['"', '\'', '`', '(']).len();
            let name_start = w.rfind('/').map_or(0, |s| s + 1);
            let name = &w[name_start..];
            if let Some((stem, e)) = name.rsplit_once('.')
                && !stem.is_empty()
                && stem
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                && FILE_EXTENSIONS.contains(&e)
                && !text[offset.min(text.len())..]
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
            {
                let s = start + lead + name_start;
                return Some(s..s + name.len());
            }
        }
        prev = piece;
    }
    None
}

/// A tool's name and its message, inside an error's block ("ld: framework not found
/// Pods_MyApp" before clang's "error: linker command failed"); not a note on the error
/// ("hint:", "note:"): where the name is.
pub(super) fn tool_message(line: &str) -> Option<Range<usize>> {
    let lead = line.len() - line.trim_start().len();
    let (tool, rest) = line.trim_start().split_once(": ")?;
    let notes = [
        "hint",
        "note",
        "help",
        "context",
        "suggestion",
        "warning",
        "info",
        "debug",
    ];
    (!tool.is_empty()
        && tool.len() <= 12
        && tool
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !notes.contains(&tool)
        && count_words(rest) >= 2)
        .then(|| lead..lead + tool.len())
}

/// Where a traceback pasted on one line states its exception: the last exception name before
/// one of the line's last eight colons, after the frames ("Traceback (most recent call last):
/// File "app.py", line 12, in <module> KeyError: 'DATABASE_URL'"); the name and its colon.
pub(super) fn flat_exception(line: &str) -> Option<Range<usize>> {
    line.rmatch_indices(": ").take(8).find_map(|(c, _)| {
        // (After the whitespace's whole width: a no-break space is two bytes.)
        let (at, space) = line[..c]
            .char_indices()
            .rev()
            .find(|(_, ch)| ch.is_whitespace())?;
        let start = at + space.len_utf8();
        exception_name(&line[start..]).map(|r| start + r.start..start + r.end)
    })
}

/// A component named as a tag in `line` after a place word ("... in <ProductGrid> when ...",
/// "from <CheckoutForm />"): the place word's start and the tag's name. The first one only.
pub(super) fn component_tag(line: &str) -> Option<(usize, Range<usize>)> {
    let open = line.find(" <")? + 1;
    let rest = &line[open + 1..];
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    let after = rest[name_len..]
        .trim_start_matches(' ')
        .trim_start_matches('/');
    let before = line[..open].trim_end();
    let place = ["in", "inside", "from", "within"].iter().find(|p| {
        let at = before.len().saturating_sub(p.len());
        before.get(at..).is_some_and(|t| t.eq_ignore_ascii_case(p))
            && before.get(..at).is_some_and(|t| t.ends_with(' '))
    })?;
    (name.starts_with(|c: char| c.is_ascii_uppercase()) && after.starts_with('>'))
        .then(|| (before.len() - place.len(), open + 1..open + 1 + name_len))
}

/// Whether `text` holds an error's name or a status in capitals ("TypeError:",
/// "IllegalStateException:", "FAILED", "ERROR", "FATAL"): one pass over its bytes, looking
/// further only at an `E` or an `F`.
pub(super) fn shouts_error(text: &str) -> bool {
    const MARKS: [&[u8]; 5] = [b"Error:", b"Exception:", b"FAILED", b"ERROR", b"FATAL"];
    let b = text.as_bytes();
    b.iter()
        .enumerate()
        .any(|(i, c)| matches!(c, b'E' | b'F') && MARKS.iter().any(|m| b[i..].starts_with(m)))
}

/// An exception's name written in one word before its colon ("TypeError:",
/// "IllegalStateException:"): the first, from the start of its word to the colon.
pub(super) fn camel_error(text: &str) -> Option<Range<usize>> {
    ["Error:", "Exception:"]
        .iter()
        .filter_map(|m| {
            text.match_indices(m).find(|(i, _)| {
                text[..*i]
                    .rsplit(|c: char| !c.is_ascii_alphanumeric())
                    .next()
                    .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
            })
        })
        .map(|(i, m)| {
            // After the last character that is no ASCII letter or digit (its whole width: it
            // may be a character of several bytes).
            let start = text[..i]
                .char_indices()
                .rev()
                .find(|(_, c)| !c.is_ascii_alphanumeric())
                .map_or(0, |(p, c)| p + c.len_utf8());
            start..i + m.len()
        })
        .min_by_key(|r| r.start)
}
