//! Every committed generated file is what its generator writes now: `cargo xtask all
//! --check` (every generator). Run as a test so that the test build
//! links the generator with the features the rest of the suite unifies to; a
//! separate `cargo xtask` run would compile the workspace a second time.
use std::process::Command;

#[test]
fn committed_generated_files_are_current() {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["all", "--check"])
        .output()
        .expect("xtask runs");
    assert!(
        output.status.success(),
        "stale generated files:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
