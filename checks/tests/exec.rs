//! `exec` checks: real scripts run by bash.

mod common;

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::{assert_failed_with, assert_passed, context, run};
use quarterdeck_checks::StaticLookup;
use serde_json::json;

#[tokio::test]
async fn passing_script_reports_stdout() {
    let outcome = run(
        "exec",
        json!({"name": "e", "script": "echo hello; echo warn >&2"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["stdout"], "hello\n");
    assert_eq!(outcome.details["stderr"], "warn\n");
    assert_eq!(outcome.details["exitCode"], 0);
    assert_eq!(outcome.message, "hello");
}

#[tokio::test]
async fn non_zero_exit_fails_with_the_code_and_stderr() {
    let outcome = run(
        "exec",
        json!({"name": "e", "script": "echo broken >&2; exit 3"}),
    )
    .await;
    assert_failed_with(&outcome, "exit code 3: broken");
    assert_eq!(outcome.details["exitCode"], 3);
}

#[tokio::test]
async fn a_test_expression_decides_over_the_exit_code() {
    let outcome = run(
        "exec",
        json!({"name": "e", "script": "echo 42; exit 1", "test": {"expr": "exitCode == 1 && stdout.startsWith('42')"}}),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn runs_with_bash() {
    let outcome = run(
        "exec",
        json!({"name": "e", "script": "[[ -n $BASH_VERSION ]] && echo bash"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "bash");
}

#[tokio::test]
async fn env_vars_from_values_and_config_maps() {
    let lookup = StaticLookup::new().with_config_map("default", "settings", "region", "eu-west");
    let spec = json!({"name": "e", "script": "echo \"$GREETING $REGION\"", "env": [
        {"name": "GREETING", "value": "hi"},
        {"name": "REGION", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "region"}}}
    ]});
    let outcome = quarterdeck_checks::run("exec", &spec, &context(lookup)).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["stdout"], "hi eu-west\n");
}

#[tokio::test]
async fn a_missing_secret_fails_the_check() {
    let spec = json!({"name": "e", "script": "true", "env": [
        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "absent", "key": "token"}}}
    ]});
    let outcome = run("exec", spec).await;
    assert_failed_with(&outcome, "secret default/absent has no key \"token\"");
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    // The script may run as another user (when the tests run as root).
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let pid_file = dir.path().join("child.pid");
    let script = format!("sleep 30 & echo $! > {}; sleep 30", pid_file.display());
    let mut ctx = context(StaticLookup::new());
    ctx.default_timeout = Duration::from_secs(1);
    let started = Instant::now();
    let outcome =
        quarterdeck_checks::run("exec", &json!({"name": "e", "script": script}), &ctx).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_failed_with(&outcome, "timed out after 1s");

    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_owned();
    let proc = format!("/proc/{pid}");
    let deadline = Instant::now() + Duration::from_secs(5);
    // Killed processes linger briefly as zombies until reaped by init.
    while std::path::Path::new(&proc).exists()
        && !std::fs::read_to_string(format!("{proc}/stat"))
            .unwrap_or_default()
            .contains(") Z")
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let state = std::fs::read_to_string(format!("{proc}/stat")).unwrap_or_default();
    assert!(
        state.is_empty() || state.contains(") Z"),
        "background child still running: {state}"
    );
}

#[tokio::test]
async fn scripts_run_as_an_unprivileged_user_when_root() {
    let outcome = run("exec", json!({"name": "e", "script": "id -u"})).await;
    assert_passed(&outcome);
    assert_ne!(outcome.message, "0", "the script ran as root");
    if nix::unistd::geteuid().is_root() {
        let nobody = nix::unistd::User::from_name("nobody").unwrap().unwrap();
        assert_eq!(outcome.message, nobody.uid.to_string());
    }
}

#[tokio::test]
async fn scripts_do_not_see_the_environment_of_the_process() {
    // Cargo sets this for the test process; it stands for any secret there.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let spec = json!({"name": "e", "script": "env", "env": [{"name": "OWN", "value": "mine"}]});
    let outcome = run("exec", spec).await;
    assert_passed(&outcome);
    let stdout = outcome.details["stdout"].as_str().unwrap();
    assert!(!stdout.contains("CARGO_MANIFEST_DIR"), "{stdout}");
    assert!(stdout.contains("OWN=mine"), "{stdout}");
    let names: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once('=').map(|(name, _)| name))
        .collect();
    // Besides these, only what the shell itself sets (PWD, SHLVL, _).
    let allowed = ["PATH", "HOME", "LANG", "OWN", "PWD", "OLDPWD", "SHLVL", "_"];
    assert!(
        names.iter().all(|n| allowed.contains(n)),
        "unexpected variables: {names:?}"
    );
}

#[tokio::test]
async fn scripts_run_in_a_fresh_home_removed_afterwards() {
    let outcome = run(
        "exec",
        json!({"name": "e", "script": "[ \"$HOME\" = \"$(pwd)\" ] && touch made && pwd"}),
    )
    .await;
    assert_passed(&outcome);
    let dir = std::path::PathBuf::from(&outcome.message);
    assert!(
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("quarterdeck-script-"),
        "{dir:?}"
    );
    assert!(!dir.exists(), "{dir:?} was left behind");
}

#[tokio::test]
async fn the_time_limit_kills_a_sleeping_script() {
    let mut ctx = context(StaticLookup::new());
    ctx.default_timeout = Duration::from_secs(1);
    let started = Instant::now();
    let outcome =
        quarterdeck_checks::run("exec", &json!({"name": "e", "script": "sleep 30"}), &ctx).await;
    assert_failed_with(&outcome, "timed out after 1s");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn output_beyond_the_limit_is_truncated() {
    let outcome = run(
        "exec",
        json!({"name": "e", "script": "head -c 3000000 /dev/zero | tr '\\0' a; echo done >&2"}),
    )
    .await;
    assert_passed(&outcome);
    let stdout = outcome.details["stdout"].as_str().unwrap();
    assert!(
        stdout.ends_with("(output truncated at 1 MiB)"),
        "{}",
        &stdout[stdout.len() - 60..]
    );
    assert!(stdout.len() < 1024 * 1024 + 100, "{}", stdout.len());
    assert_eq!(outcome.details["stderr"], "done\n");
}
