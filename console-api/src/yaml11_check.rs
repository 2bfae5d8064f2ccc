//! Tests' check that YAML the console writes reads the same under YAML 1.1 (kubectl, Helm,
//! Flux) and YAML 1.2: hack/yaml11_check.py, run with `python3` (or `$QD_PYTHON`) and PyYAML.

use std::path::Path;
use std::process::Command;

/// Panics listing every scalar of these (name, YAML) files that YAML 1.1 reads differently.
pub fn assert_reads_alike(files: &[(String, String)]) {
    let dir = tempfile::tempdir().expect("temporary folder");
    for (name, text) in files {
        std::fs::write(dir.path().join(format!("{name}.yaml")), text).expect("write YAML");
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hack/yaml11_check.py");
    let python = std::env::var("QD_PYTHON").unwrap_or_else(|_| "python3".into());
    let output = Command::new(&python)
        .arg(&script)
        .arg(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{python} {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn yaml11_lookalikes_written_by_the_shared_writer_read_alike() {
    let words = [
        "on",
        "off",
        "yes",
        "no",
        "y",
        "n",
        "Y",
        "N",
        "true",
        "False",
        "null",
        "~",
        "",
        "1e3",
        "0777",
        "0o17",
        "0x1F",
        "1_000",
        "1:20",
        "2024-01-01",
        ".inf",
        ".nan",
        "-.5",
        "=",
        "<<",
        "12",
        "+1",
        "a\nb",
        "it's",
        "\"",
        "\u{85}",
        "\u{2028}",
    ];
    let value: serde_json::Map<String, serde_json::Value> = words
        .iter()
        .map(|w| ((*w).to_owned(), serde_json::json!([w, {(*w): w}])))
        .collect();
    let yaml = quarterdeck_crds::yaml::to_string(&value).expect("YAML");
    assert_reads_alike(&[("words".into(), yaml)]);
}

#[test]
fn generated_crds_read_alike() {
    let files: Vec<_> = quarterdeck_crds::generated_files()
        .expect("CRDs render")
        .into_iter()
        .map(|f| (f.name.trim_end_matches(".yaml").to_owned(), f.contents))
        .collect();
    assert_reads_alike(&files);
}
