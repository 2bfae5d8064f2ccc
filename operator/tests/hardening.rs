//! A script running as the operator's own user (the operator is not root, so
//! scripts cannot switch users) cannot read the operator's environment once
//! `forbid_inspection` ran, and could before.
//!
//! The test re-runs this binary as a child (`child` argument), with a marker in
//! its environment. As root, the child runs as `nobody`: root could read any
//! process's environment anyway, so only an unprivileged child shows anything.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode, Output};

use nix::unistd::{User, geteuid};
use quarterdeck_operator::hardening::forbid_inspection;

const MARKER: &str = "QD_HARDENING_MARKER=secret-4b1d";

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("child") {
        child();
    } else {
        parent();
        println!("hardening: a same-user script cannot read the operator's environment");
    }
    ExitCode::SUCCESS
}

fn parent() {
    let me = std::env::current_exe().expect("current_exe");
    let (name, value) = MARKER.split_once('=').expect("marker");
    let output = if geteuid().is_root() {
        let nobody = User::from_name("nobody")
            .expect("reading the user database")
            .expect("the user nobody exists");
        // A copy nobody can execute, whatever the permissions of the target dir.
        let dir = tempfile::tempdir().expect("tempdir");
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        let copy = dir.path().join("hardening");
        fs::copy(&me, &copy).expect("copying the test binary");
        Command::new(&copy)
            .arg("child")
            .env(name, value)
            .current_dir("/")
            .uid(nobody.uid.as_raw())
            .gid(nobody.gid.as_raw())
            .output()
            .expect("running the child as nobody")
    } else {
        Command::new(&me)
            .arg("child")
            .env(name, value)
            .output()
            .expect("running the child")
    };
    print!("{}", String::from_utf8_lossy(&output.stdout));
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        output.status.success(),
        "the child failed: {}",
        output.status
    );
}

fn child() {
    let before = read_own_environ_as_script();
    assert!(
        before.status.success() && String::from_utf8_lossy(&before.stdout).contains(MARKER),
        "before hardening a same-user process reads the environment (else this test shows nothing): {before:?}"
    );

    forbid_inspection().expect("forbid_inspection");
    assert!(!nix::sys::prctl::get_dumpable().expect("get_dumpable"));

    let after = read_own_environ_as_script();
    assert!(
        !after.status.success() && !String::from_utf8_lossy(&after.stdout).contains(MARKER),
        "after hardening the environment is still readable: {after:?}"
    );
    let stderr = String::from_utf8_lossy(&after.stderr);
    assert!(stderr.contains("Permission denied"), "{stderr}");
}

/// What an exec check's script would run: a shell reading its parent's environ.
fn read_own_environ_as_script() -> Output {
    Command::new("sh")
        .args(["-c", "cat /proc/$PPID/environ"])
        .output()
        .expect("running sh")
}
