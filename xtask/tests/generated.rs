//! Every committed generated file is what its generator writes now: `cargo xtask
//! <command> --check` for each command. Run as a test so that the test build
//! links the generator with the features the rest of the suite unifies to; a
//! separate `cargo xtask` run would compile the workspace a second time.
use std::process::Command;

const COMMANDS: [&str; 5] = [
    "crdgen",
    "openapi",
    "rules-ts",
    "relations-ts",
    "connections-ts",
];

#[test]
fn committed_generated_files_are_current() {
    let stale: Vec<String> = COMMANDS
        .iter()
        .filter_map(|command| {
            let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
                .args([command, "--check"])
                .output()
                .expect("xtask runs");
            (!output.status.success()).then(|| {
                format!(
                    "{command}:\n{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                )
            })
        })
        .collect();
    assert!(
        stale.is_empty(),
        "stale generated files:\n{}",
        stale.join("\n")
    );
}
