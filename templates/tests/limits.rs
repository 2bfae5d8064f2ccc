//! The limits that keep a console user's template from exhausting the server.

mod common;

use quarterdeck_templates::{MAX_OUTPUT_BYTES, MAX_STEPS, MAX_TEMPLATE_DEPTH};
use serde_json::json;

fn err(source: &str) -> String {
    common::failure(source, &json!({}))
}

#[test]
fn output_is_capped() {
    let e = err("{{ range 2000 }}{{ repeat 1000 \"x\" }}{{ end }}");
    assert!(
        e.contains(&format!(
            "template output exceeds the limit of {MAX_OUTPUT_BYTES} bytes"
        )),
        "{e}"
    );
    let e = err("{{ repeat 2000000 \"x\" }}");
    assert!(
        e.contains(
            "error calling repeat: the result would be larger than the limit of 1048576 bytes"
        ),
        "{e}"
    );
}

#[test]
fn values_are_capped() {
    // Doubling a string in a loop would take memory without ever writing output.
    let e = err("{{ $s := \"xxxxxxxxxxxxxxxx\" }}{{ range 40 }}{{ $s = cat $s $s }}{{ end }}");
    assert!(
        e.contains("cat made a value larger than the limit of 1048576 bytes"),
        "{e}"
    );
}

#[test]
fn template_recursion_is_bounded() {
    let e = err("{{ define \"loop\" }}{{ template \"loop\" . }}{{ end }}{{ template \"loop\" . }}");
    assert!(
        e.contains(&format!(
            "exceeded maximum template depth ({MAX_TEMPLATE_DEPTH})"
        )),
        "{e}"
    );
}

#[test]
fn evaluation_steps_are_bounded() {
    let e = err("{{ range 100000 }}{{ range 100000 }}{{ end }}{{ end }}");
    assert!(
        e.contains(&format!(
            "template exceeded the limit of {MAX_STEPS} evaluation steps"
        )),
        "{e}"
    );
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("{{{{ {}1{} }}}}", "(".repeat(200), ")".repeat(200));
    assert!(err(&deep).contains("template nests deeper than 100 levels"));
    let ifs = format!("{}{}", "{{ if 1 }}".repeat(200), "{{ end }}".repeat(200));
    assert!(err(&ifs).contains("template nests deeper than 100 levels"));
}
