use super::*;
use crate::store::RECENT_IDS;

#[test]
fn recent_ids_are_bounded() {
    let mut r = RecentIds::default();
    for i in 0..(RECENT_IDS as u64 + 10) {
        r.insert(&format!("c-{i}"), i, i);
    }
    assert_eq!(r.get("c-0"), None);
    let last = RECENT_IDS as u64 + 9;
    assert_eq!(r.get(&format!("c-{last}")), Some((last, last)));
    assert_eq!(r.len(), RECENT_IDS);
    // A retry of a remembered id keeps its first answer.
    r.insert(&format!("c-{last}"), 0, 0);
    assert_eq!(r.get(&format!("c-{last}")), Some((last, last)));
    assert_eq!(r.len(), RECENT_IDS);
}

/// Sessions on a memory store, with the built-in patterns and the default settings.
fn memory_sessions() -> Sessions {
    Sessions::new(
        crate::patterns::builtin(),
        None,
        None,
        Arc::new(store::memory::MemoryStore::default()),
        Arc::new(Metrics::default()),
        &crate::config::ServerConfig::default(),
    )
}

/// A session whose last client left keeps its state only: no channels, no frame; a client
/// that comes back gets the same frame, written again from the state.
#[test]
fn a_session_without_clients_keeps_its_state_only() {
    let sessions = memory_sessions();
    let now = Utc::now();
    let session = sessions.create(now, None).unwrap();
    let (pushes, progress) = session.subscribe();
    let text = "I want to build a todo app in React";
    let input = Input::Message {
        role: Role::User,
        text,
        artifact: false,
    };
    sessions.apply(&session, input, None, now, None).unwrap();
    assert!(session.listened());
    let (seq, frame) = sessions.current_frame(&session);
    assert_eq!(seq, 1);
    assert!(session.view().text.is_some());

    // One subscription still held: the channels stay.
    drop(pushes);
    sessions.left(&session);
    assert!(session.clients().is_some());
    drop(progress);
    sessions.left(&session);
    assert!(session.clients().is_none() && !session.listened());
    assert!(session.view().text.is_none());
    // A change that changes nothing (an idle sweep before the deadline, as on loading)
    // leaves it so.
    sessions
        .apply(&session, Input::Tick, None, now, None)
        .unwrap();
    assert!(session.view().text.is_none());

    // A client again: its welcome is written from the state and not kept; channels and
    // frames as before.
    let (_first, _progress) = session.subscribe();
    let joined = sessions.join(&session, Some(seq)).unwrap();
    assert!(joined.resumed && joined.welcome.as_str().contains(r#""type":"welcome""#));
    assert!(session.view().text.is_none());
    assert_eq!(sessions.current_frame(&session), (seq, frame));
    let mut pushes = joined.pushes;
    let input = Input::Message {
        role: Role::User,
        text: "it should track tasks",
        artifact: false,
    };
    sessions.apply(&session, input, None, now, None).unwrap();
    match pushes.try_recv().as_deref() {
        Ok(Push::Frame { seq, .. }) => assert_eq!(*seq, 2),
        other => panic!("expected the frame of change 2, got {other:?}"),
    }
}

/// A client that joins a session deleted since it was looked up is told so: the deletion's
/// push went to the subscribers of then.
#[test]
fn joining_a_deleted_session_says_so() {
    let sessions = memory_sessions();
    let now = Utc::now();
    let session = sessions.create(now, None).unwrap();
    let input = Input::Message {
        role: Role::User,
        text: "hello",
        artifact: false,
    };
    sessions.apply(&session, input, None, now, None).unwrap();
    assert!(!sessions.join(&session, None).unwrap().deleted);
    // Removed from memory and marked deleted at once; the store's deletion is waited for
    // in a runtime, which this test has not (the error says so).
    let _ = sessions.remove(&session.id);
    assert!(sessions.join(&session, None).unwrap().deleted);
}

#[test]
fn session_ids_are_random_hex() {
    let new_session_id = || session_id_from(getrandom::fill).unwrap();
    let a = new_session_id();
    let b = new_session_id();
    // Without randomness, no id.
    assert_eq!(session_id_from(|_| Err(())), None);
    assert_ne!(a, b);
    assert_eq!(a.len(), 26);
    assert!(a.starts_with("s-") && a[2..].chars().all(|c| c.is_ascii_hexdigit()));
}
