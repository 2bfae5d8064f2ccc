//! Writes `web/src/api/relations.gen.ts` (run from the workspace root).

fn main() -> std::io::Result<()> {
    use quarterdeck_dataapi::typescript;
    std::fs::write(typescript::PATH, typescript::relations_ts())
}
