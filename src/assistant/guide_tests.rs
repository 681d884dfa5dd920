//! The guide's own tests: its phrases checked, its wordings.

use super::*;

fn guide_wordings(engine: &Engine, slot: &str) -> Vec<String> {
    let guide = Guide::builtin(engine);
    let i = engine
        .classifier()
        .slots()
        .iter()
        .position(|s| &*s.name == slot)
        .unwrap();
    guide.asks[i].clone()
}

#[test]
fn the_built_in_phrases_load() {
    let engine = crate::patterns::builtin();
    let guide = Guide::builtin(&engine);
    assert_eq!(guide.asks.len(), engine.classifier().slots().len());
}

#[test]
fn broken_phrases_are_refused_with_their_line() {
    let engine = crate::patterns::builtin();
    let broken = BUILTIN
        .replace("start = \"I'm starting now.\"", "start = \"One moment.\"")
        .replace(
            "\"What features do you need? A short list is enough.\"",
            "\"Tell me more.\"",
        )
        .replace("greeting = \"Hello!", "greeting = \"{name} Hello!");
    let errors = Guide::new("assistant.toml", &broken, &engine)
        .unwrap_err()
        .0;
    let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 3, "{text:#?}");
    assert!(
        text.iter()
            .any(|e| e.contains("start: must start the work"))
    );
    assert!(
        text.iter()
            .any(|e| e.contains("ask.requirements[1]: does not ask"))
    );
    assert!(
        text.iter()
            .any(|e| e.contains("unknown placeholder {name}"))
    );
    assert!(errors.iter().all(|e| e.line.is_some()));
    assert_eq!(guide_wordings(&engine, "requirements").len(), 3);
    let unknown = BUILTIN.replace("[types]", "colour = \"blue\"\n[types]");
    let errors = Guide::new("assistant.toml", &unknown, &engine)
        .unwrap_err()
        .0;
    assert!(errors[0].message.contains("colour"), "{errors:?}");
}
