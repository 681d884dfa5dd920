//! The module graph, drawn from the `use` lines and paths of `src/`: no module imports one that
//! imports it back (a module and its own submodules aside), and the two engines import nothing
//! else of the crate but each other's leaf (docs/ARCHITECTURE.md). Test modules are left out:
//! a test may build what it checks from anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is (`conversation::view`; `crate` for lib.rs and main.rs).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file's code without comments and without its test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a file names: `crate::a::b`, `super::x`, `self::y`, and the items of a
/// `use crate::a::{b, c::d}` group, each as the segments after the root, resolved against
/// `module`.
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let root = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|r| bytes[i..].starts_with(r.as_bytes()) && (i == 0 || !is_ident(bytes[i - 1])));
        let Some(root) = root else {
            i += 1;
            continue;
        };
        // The path's segments, then a `{...}` group if one follows.
        let mut end = i + root.len();
        while end < bytes.len() && (is_ident(bytes[end]) || code[end..].starts_with("::")) {
            end += if code[end..].starts_with("::") { 2 } else { 1 };
        }
        let path = &code[i..end];
        let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let mut base: Vec<String> = match segments.first() {
            Some(&"crate") => Vec::new(),
            Some(&"self") => module.to_vec(),
            _ => module[..module.len().saturating_sub(1)].to_vec(),
        };
        segments.remove(0);
        while segments.first() == Some(&"super") {
            base.pop();
            segments.remove(0);
        }
        let mut full = base.clone();
        full.extend(segments.iter().map(|s| s.to_string()));
        out.push(full.clone());
        if code[end..].starts_with('{')
            && let Some(close) = code[end..].find('}')
        {
            for item in code[end + 1..end + close].split(',') {
                let name = item.trim().split([' ', ':']).next().unwrap_or("");
                if !name.is_empty() && name != "self" {
                    let mut p = full.clone();
                    p.push(name.to_string());
                    out.push(p);
                }
            }
        }
        i = end.max(i + 1);
    }
    out
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let modules: BTreeMap<Vec<String>, PathBuf> = all
        .iter()
        .map(|f| (module_of(&src, f), f.clone()))
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &modules {
        let code = code(&std::fs::read_to_string(file).unwrap());
        for path in named_paths(module, &code) {
            // The longest prefix of the path that is a module.
            let Some(target) = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains_key(p))
            else {
                continue;
            };
            let related = target.starts_with(module) || module.starts_with(&target);
            if !related {
                edges
                    .entry(module.join("::"))
                    .or_default()
                    .insert(target.join("::"));
            }
        }
    }
    let mut circles = Vec::new();
    for (a, targets) in &edges {
        for b in targets {
            if edges.get(b).is_some_and(|t| t.contains(a)) && a < b {
                circles.push(format!("{a} <-> {b}"));
            }
        }
    }
    // Longer circles: a module that reaches itself through others.
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&String> = edges[start].iter().collect();
        while let Some(m) = stack.pop() {
            if m == start {
                circles.push(format!("{start} reaches itself"));
                break;
            }
            if seen.insert(m.clone()) {
                stack.extend(edges.get(m).into_iter().flatten());
            }
        }
    }
    assert!(circles.is_empty(), "import circles: {circles:#?}");
    // The engines are leaves: nothing of the crate outside their own modules, but the flow
    // leaf the conversation engine still hosts.
    for (module, targets) in &edges {
        if module.starts_with("flow") {
            let outside: Vec<_> = targets.iter().filter(|t| !t.starts_with("flow")).collect();
            assert!(outside.is_empty(), "{module} imports {outside:?}");
        }
        if module.starts_with("conversation") {
            let outside: Vec<_> = targets
                .iter()
                .filter(|t| !t.starts_with("conversation") && !t.starts_with("flow"))
                .collect();
            assert!(outside.is_empty(), "{module} imports {outside:?}");
        }
        // The clients speak the protocol: no server, store or engine of ours under them (the
        // leaves that parse a duration, a mode's name or a line number aside).
        if module.starts_with("client") {
            let outside: Vec<_> = targets
                .iter()
                .filter(|t| {
                    !["client", "protocol", "diagnostic", "config", "assistant"]
                        .iter()
                        .any(|ok| t.starts_with(ok))
                })
                .collect();
            assert!(outside.is_empty(), "{module} imports {outside:?}");
        }
    }
}
