//! The committed `web/src/api/rules.gen.ts` is what the enums and messages generate.

use quarterdeck_store::rbac::typescript;

#[test]
fn the_committed_rules_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../web/src/api/rules.gen.ts");
    let committed = std::fs::read_to_string(path).expect("web/src/api/rules.gen.ts");
    assert!(
        committed == typescript::rules_ts(),
        "{} is stale: run `cargo xtask rules-ts`",
        typescript::PATH
    );
}
