//! Command-line tools (kubectl, helm, bash) run from async tests.

use std::process::{Output, Stdio};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

/// Runs `command` to its end, feeding it `stdin`, within `limit`; never
/// blocks the runtime, which also serves the console the tool may call.
pub async fn run_to_end(mut command: Command, stdin: Option<&str>, limit: Duration) -> Output {
    let description = format!("{:?}", command.as_std());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{description}: {e}"));
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).await.unwrap();
    }
    drop(input);
    tokio::time::timeout(limit, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{description} did not finish"))
        .unwrap()
}
