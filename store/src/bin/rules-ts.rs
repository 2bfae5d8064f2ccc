//! Writes `web/src/api/rules.gen.ts` (run from the workspace root).

fn main() -> std::io::Result<()> {
    use quarterdeck_store::rbac::typescript;
    std::fs::write(typescript::PATH, typescript::rules_ts())
}
