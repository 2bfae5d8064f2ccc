//! `folder` checks over a temporary directory with files of set ages and sizes.

mod common;

use std::fs::{File, FileTimes};
use std::path::Path;
use std::time::{Duration, SystemTime};

use common::{assert_failed_with, assert_passed, run};
use serde_json::{Value, json};
use tempfile::TempDir;

fn write(path: &Path, size: usize, age: Duration) {
    std::fs::write(path, vec![b'x'; size]).unwrap();
    let modified = SystemTime::now() - age;
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_times(FileTimes::new().set_modified(modified))
        .unwrap();
}

/// old.log (10 B, 3 days), mid.log (100 B, 2 h), new.txt (1000 B, 1 min), sub/deep.log (50 B, 1 h).
fn folder() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("old.log"),
        10,
        Duration::from_secs(3 * 86_400),
    );
    write(
        &dir.path().join("mid.log"),
        100,
        Duration::from_secs(2 * 3600),
    );
    write(&dir.path().join("new.txt"), 1000, Duration::from_secs(60));
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    write(
        &dir.path().join("sub/deep.log"),
        50,
        Duration::from_secs(3600),
    );
    dir
}

fn spec(dir: &TempDir, extra: Value) -> Value {
    let mut spec = json!({"name": "f", "path": dir.path().display().to_string()});
    for (k, v) in extra.as_object().unwrap() {
        spec[k] = v.clone();
    }
    spec
}

#[tokio::test]
async fn reports_counts_sizes_oldest_and_newest() {
    let dir = folder();
    let outcome = run("folder", spec(&dir, json!({}))).await;
    assert_passed(&outcome);
    let d = &outcome.details;
    assert_eq!(d["count"], 3);
    assert_eq!(d["size"], 1110);
    assert_eq!(d["minSize"], 10);
    assert_eq!(d["maxSize"], 1000);
    assert_eq!(d["newest"]["name"], "new.txt");
    assert_eq!(d["oldest"]["name"], "old.log");
    assert_eq!(d["oldest"]["age"], "3days");
    assert_eq!(d["oldest"]["ageSeconds"], 3 * 86_400);
    assert_eq!(d["files"].as_array().unwrap().len(), 3);
    assert!(d["availableSize"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn recursive_and_filters() {
    let dir = folder();
    let outcome = run("folder", spec(&dir, json!({"recursive": true}))).await;
    assert_eq!(outcome.details["count"], 4);
    let outcome = run(
        "folder",
        spec(
            &dir,
            json!({"recursive": true, "filter": {"regex": "\\.log$"}}),
        ),
    )
    .await;
    assert_eq!(outcome.details["count"], 3);
    let outcome = run("folder", spec(&dir, json!({"filter": {"minAge": "90m"}}))).await;
    assert_eq!(outcome.details["count"], 2);
    let outcome = run(
        "folder",
        spec(&dir, json!({"filter": {"maxAge": "1d", "minSize": "50"}})),
    )
    .await;
    assert_eq!(outcome.details["count"], 2);
    let outcome = run("folder", spec(&dir, json!({"filter": {"since": "now-1d"}}))).await;
    assert_eq!(outcome.details["count"], 2);
    let outcome = run(
        "folder",
        spec(&dir, json!({"filter": {"maxSize": "0.1Ki"}})),
    )
    .await;
    assert_eq!(outcome.details["count"], 2);
}

#[tokio::test]
async fn ages() {
    let dir = folder();
    assert_passed(&run("folder", spec(&dir, json!({"maxAge": "30m"}))).await);
    assert_failed_with(
        &run("folder", spec(&dir, json!({"maxAge": "30s"}))).await,
        "older than maxAge 30s",
    );
    assert_failed_with(
        &run("folder", spec(&dir, json!({"minAge": "1h"}))).await,
        "younger than minAge 1h",
    );
    assert_passed(&run("folder", spec(&dir, json!({"minAge": "10s"}))).await);
}

#[tokio::test]
async fn counts() {
    let dir = folder();
    assert_passed(&run("folder", spec(&dir, json!({"minCount": 3, "maxCount": 3}))).await);
    assert_failed_with(
        &run("folder", spec(&dir, json!({"minCount": 5}))).await,
        "fewer than minCount 5",
    );
    assert_failed_with(
        &run("folder", spec(&dir, json!({"maxCount": 2}))).await,
        "more than maxCount 2",
    );
}

#[tokio::test]
async fn sizes() {
    let dir = folder();
    assert_failed_with(
        &run("folder", spec(&dir, json!({"minSize": "50"}))).await,
        "smaller than minSize 50",
    );
    assert_failed_with(
        &run("folder", spec(&dir, json!({"maxSize": "500"}))).await,
        "larger than maxSize 500",
    );
    assert_failed_with(
        &run("folder", spec(&dir, json!({"totalSize": "1KB"}))).await,
        "more than totalSize 1KB",
    );
    assert_passed(
        &run(
            "folder",
            spec(&dir, json!({"totalSize": "2KB", "availableSize": "1"})),
        )
        .await,
    );
    assert_failed_with(
        &run("folder", spec(&dir, json!({"availableSize": "1000P"}))).await,
        "less than availableSize",
    );
}

#[tokio::test]
async fn empty_folders() {
    let dir = tempfile::tempdir().unwrap();
    assert_passed(&run("folder", spec(&dir, json!({}))).await);
    assert_failed_with(
        &run("folder", spec(&dir, json!({"markFailOnEmpty": true}))).await,
        "no files",
    );
    assert_failed_with(
        &run("folder", spec(&dir, json!({"maxAge": "1h"}))).await,
        "no files",
    );
}

#[tokio::test]
async fn test_expression_over_files() {
    let dir = folder();
    let outcome = run(
        "folder",
        spec(&dir, json!({"test": {"expr": "size(files) == 3 && files.exists(f, f.name == 'mid.log' && f.size == 100)"}})),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn missing_and_remote_paths_fail() {
    let outcome = run(
        "folder",
        json!({"name": "f", "path": "/nonexistent/quarterdeck"}),
    )
    .await;
    assert_failed_with(&outcome, "reading /nonexistent/quarterdeck");
    let outcome = run("folder", json!({"name": "f", "path": "s3://bucket/prefix"})).await;
    assert_failed_with(&outcome, "s3:// folders is not supported by this engine");
    let dir = folder();
    let outcome = run("folder", spec(&dir, json!({"maxAge": "soon"}))).await;
    assert_failed_with(&outcome, "invalid duration \"soon\"");
}
