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

#[test]
fn deep_templates_fail_instead_of_overflowing_the_stack() {
    // Every recursion level nests 85 ifs and parentheses: the walk is bounded as a whole.
    let body = format!(
        "{}{{{{ template \"t\" ((((((((((.)))))))))) }}}}{}",
        "{{ if 1 }}".repeat(85),
        "{{ end }}".repeat(85)
    );
    let source = format!("{{{{ define \"t\" }}}}{body}{{{{ end }}}}{{{{ template \"t\" 1 }}}}");
    let e = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || err(&source))
        .unwrap()
        .join()
        .unwrap();
    assert!(e.contains("exceeded maximum"), "{e}");
}

#[test]
fn a_trim_marker_before_multibyte_text_is_not_a_delimiter() {
    assert!(err("{{ 1 -€").contains("bad number syntax"));
}

#[test]
fn every_prefix_of_a_template_renders_or_errors_without_panicking() {
    let sources = [
        r#"{{- /* c */ -}}{{ define "t" }}{{ . | printf "%-5.2f|%q" "x" }}{{ end }}{{ range $i, $v := .l }}{{ if eq $i 1 }}{{ continue }}{{ else if gt $i 5 }}{{ break }}{{ end }}{{ template "t" $v }}{{ end }}"#,
        r#"{{ with $x := (dict "a" 'é' "b" `r`) }}{{ $x.a }}{{ else with .m }}{{ . }}{{ else }}€{{ end }}{{ $y := 0x1F }}{{ $y = -1.5e3 }}{{ slice "héllo" 1 3 }}"#,
        "{{ block \"b\" . }}{{ toDate \"2006-01-02T15:04:05.999Z07:00\" \"2026-11-25T01:02:03.5Z\" | date \"Mon Jan _2 3:04PM .000\" }}{{ end }}",
    ];
    let data = json!({"l": [1, 2.5, "s", null, {"a": 1}], "m": {"k": [1]}, "a": 3});
    for source in sources {
        for (end, _) in source.char_indices() {
            let _ = quarterdeck_templates::render(&source[..end], &data);
        }
        assert!(
            quarterdeck_templates::render(source, &data).is_ok(),
            "{source}"
        );
    }
}
