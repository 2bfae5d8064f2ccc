//! The committed `web/src/api/relations.gen.ts` is what the registry generates.

use quarterdeck_dataapi::typescript;

#[test]
fn the_committed_row_types_are_current() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../web/src/api/relations.gen.ts"
    );
    let committed = std::fs::read_to_string(path).expect("web/src/api/relations.gen.ts");
    assert!(
        committed == typescript::relations_ts(),
        "{} is stale: run `cargo xtask relations-ts`",
        typescript::PATH
    );
}
