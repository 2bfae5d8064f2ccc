//! What the operator does to itself before it serves.

/// Makes this process non-dumpable: its `/proc/<pid>/` files (`environ` with
/// `DATABASE_URL`, `mem`, `fd`) become root's, and no process of the same user
/// may ptrace it. Scripts (exec checks) run as this user unless the operator
/// runs as root, and would otherwise read all of it. Their own processes are
/// unaffected: executing a program makes a process dumpable again.
pub fn forbid_inspection() -> nix::Result<()> {
    nix::sys::prctl::set_dumpable(false)
}
