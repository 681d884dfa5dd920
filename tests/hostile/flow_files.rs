//! A flow file of 20,000 states and as many transitions, far past the limits: refused with its
//! errors, read in linear time (each error's line was found by reading the file from its start
//! again: 8,000 states took 27 s). The time bound is a liveness bound, not a measurement.

use std::time::{Duration, Instant};

use crate::common::{convstate, temp_path};

#[test]
fn a_flow_file_of_twenty_thousand_states_is_refused_at_once() {
    let n = 20_000;
    let mut text =
        String::from("name = \"big\"\ndescription = \"many states\"\ninitial = \"s0\"\n\n");
    for i in 0..n {
        text.push_str(&format!("[[states]]\nname = \"s{i}\"\n\n"));
    }
    text.push_str("[[events]]\nname = \"next\"\n\n");
    for i in (0..n - 1).rev() {
        text.push_str(&format!(
            "[[transitions]]\nfrom = \"s{i}\"\nevent = \"next\"\nto = \"s{}\"\nreason = \"on\"\n\n",
            i + 1
        ));
    }
    let file = temp_path("big-flow", "toml");
    std::fs::write(&file, text).unwrap();
    let started = Instant::now();
    let (ok, _, said) = convstate(&["flow", "check", file.to_str().unwrap()]);
    let took = started.elapsed();
    assert!(!ok);
    assert!(
        said.contains("more than 64 states"),
        "{}",
        &said[..said.len().min(500)]
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
}
