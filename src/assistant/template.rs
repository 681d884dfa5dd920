//! The phrases' templates: `{name}` placeholders filled with values, for the guide's phrases
//! and the llm assistant's prompt alike.

/// `template` with each `{name}` replaced by its value; the first unknown name otherwise.
/// `{{` and `}}` stand for braces.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('}') {
            return Err("}".into());
        }
        let Some(end) = tail.find('}') else {
            return Err(tail.to_string());
        };
        let name = &tail[1..end];
        match values.iter().find(|(n, _)| *n == name) {
            Some((_, value)) => out.push_str(value),
            None => return Err(name.to_string()),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_and_unknown_ones_named() {
        assert_eq!(
            fill("a {goal} for {{you}}", &[("goal", "todo app")]).as_deref(),
            Ok("a todo app for {you}")
        );
        assert_eq!(fill("a {gaol}", &[("goal", "x")]), Err("gaol".to_string()));
        assert_eq!(fill("a {goal", &[("goal", "x")]), Err("{goal".to_string()));
    }
}
