//! The example orchestrator (examples/orchestrator.rs, shown in docs/flows.md) against a real
//! server: workflow, task, retry and circuit-breaker sessions through a small task graph.

mod common;

#[path = "../examples/orchestrator.rs"]
mod orchestrator;

use common::TestServer;
use serde_json::json;

#[tokio::test]
async fn the_example_orchestrator_drives_a_task_graph_to_done() {
    let server = TestServer::default().await;
    let report = orchestrator::run(&server.ws_url("")).await.unwrap();
    assert_eq!(report.workflow["state"], "done");
    assert_eq!(report.workflow["counters"]["tasks_completed"], 3);
    assert_eq!(report.workflow["counters"]["tasks_failed"], 1);
    let attempts: Vec<_> = report
        .tasks
        .iter()
        .map(|(name, t)| {
            (
                name.as_str(),
                t["state"].clone(),
                t["counters"]["attempts"].clone(),
            )
        })
        .collect();
    assert_eq!(
        attempts,
        [
            ("schema", json!("completed"), json!(1)),
            ("api", json!("completed"), json!(2)),
            ("ui", json!("completed"), json!(2)),
        ]
    );
    // Two failures, each followed by a success: the breaker never opened.
    assert_eq!(report.breaker["state"], "closed");
    assert_eq!(report.breaker["counters"]["failures"], 0);
    assert!(
        report
            .log
            .iter()
            .any(|l| l.contains("retried by the \"same\" agent")),
        "{:?}",
        report.log
    );
    assert!(
        report
            .log
            .iter()
            .any(|l| l.contains("workflow blocked: \"task ui failed with high severity\"")),
        "{:?}",
        report.log
    );
    server.stop().await;
}
