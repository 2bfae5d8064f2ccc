//! The template language: Go's outputs and error messages.

mod common;

use quarterdeck_templates::{Template, TemplateError, render, render_strings};
use serde_json::{Value, json};

fn data() -> Value {
    json!({
        "config": {"name": "web", "tags": {"team": "a", "env": "prod"}, "list": [1, 2, 3], "nothing": null, "replicas": 3},
        "params": {"replicas": "3", "ns": ""},
        "check": {"status": "unhealthy"},
        "env": {"TOKEN": "s3cret"},
        "items": [{"name": "a", "ok": true}, {"name": "b", "ok": false}],
    })
}

fn ok(source: &str) -> String {
    common::rendered(source, &data())
}

fn err(source: &str) -> String {
    common::failure(source, &data())
}

#[test]
fn fields_and_text() {
    assert_eq!(ok("name: {{.config.name}}!"), "name: web!");
    assert_eq!(ok("{{ .env.TOKEN }}"), "s3cret");
    assert_eq!(ok("{{.params.replicas}}"), "3");
    assert_eq!(ok("no actions"), "no actions");
    assert_eq!(ok(""), "");
}

#[test]
fn go_formatting_of_maps_slices_and_nil() {
    assert_eq!(ok("{{.config.tags}}"), "map[env:prod team:a]");
    assert_eq!(ok("{{.config.list}}"), "[1 2 3]");
    assert_eq!(ok("{{.config.nothing}}"), "<no value>");
    assert_eq!(ok("{{.config.missing}}"), "<no value>");
    assert_eq!(ok("{{print .config.missing}}"), "<nil>");
    assert_eq!(
        ok("{{.items}}"),
        "[map[name:a ok:true] map[name:b ok:false]]"
    );
    assert_eq!(
        ok("{{ 1.5 }} {{ 1e6 }} {{ 0.00001 }} {{ 3 }} {{ -2 }}"),
        "1.5 1e+06 1e-05 3 -2"
    );
}

#[test]
fn missing_keys_follow_go_default() {
    // Go's missingkey=default: a missing key is "<no value>", a field of it too.
    assert_eq!(ok("{{.config.nmae}}"), "<no value>");
    assert_eq!(ok("{{.config.nmae.first}}"), "<no value>");
    assert_eq!(
        err("{{.config.nothing.x}}"),
        "template: 1:3: executing at <.config.nothing.x>: nil pointer evaluating interface {}.x"
    );
    assert_eq!(
        err("{{.config.name.x}}"),
        "template: 1:3: executing at <.config.name.x>: can't evaluate field x in type string"
    );
}

#[test]
fn trimming_and_comments() {
    assert_eq!(ok("a  {{- .config.name -}}  b"), "awebb");
    assert_eq!(ok("a\n  {{- /* note */ -}}\n  b"), "ab");
    assert_eq!(ok("{{/* a comment */}}x"), "x");
    assert_eq!(ok("{{-3}}"), "-3");
    assert_eq!(ok("x {{- 3 }} y"), "x3 y");
}

#[test]
fn pipelines_and_parentheses() {
    assert_eq!(ok("{{ .config.name | upper | quote }}"), "\"WEB\"");
    assert_eq!(ok("{{ (len .config.list) }}"), "3");
    assert_eq!(
        ok("{{ printf \"%s-%d\" (upper .config.name) (len .config.list) }}"),
        "WEB-3"
    );
    assert_eq!(ok("{{ (dict \"a\" (dict \"b\" 5)).a.b }}"), "5");
    assert_eq!(ok("{{ \"x\" | printf \"%s%s\" \"y\" }}"), "yx");
}

#[test]
fn variables() {
    assert_eq!(ok("{{ $x := .config.name }}{{ $x }}"), "web");
    assert_eq!(ok("{{ $x := 1 }}{{ $x = 2 }}{{ $x }}"), "2");
    assert_eq!(ok("{{ $c := .config }}{{ $c.tags.env }}"), "prod");
    assert_eq!(
        ok("{{ range .items }}{{ $.config.name }}{{ end }}"),
        "webweb"
    );
    assert_eq!(
        ok("{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ $y := 3 }}{{ end }}{{ $x }}"),
        "2"
    );
    assert_eq!(
        err("{{ if true }}{{ $y := 3 }}{{ end }}{{ $y }}"),
        "template: 1:39: undefined variable \"$y\""
    );
}

#[test]
fn literals() {
    assert_eq!(ok(r#"{{ "a\tb\n\"c\" \u00e9 \x41" }}"#), "a\tb\n\"c\" é A");
    assert_eq!(ok("{{ `raw \\n` }}"), "raw \\n");
    assert_eq!(
        ok("{{ 'a' }} {{ 0x1F }} {{ 0o17 }} {{ 1_000 }} {{ 2.50 }}"),
        "97 31 15 1000 2.5"
    );
    assert_eq!(ok("{{ true }} {{ false }}"), "true false");
    assert_eq!(
        err("{{ nil }}"),
        "template: 1:4: executing at <nil>: nil is not a command"
    );
}

#[test]
fn if_else_with_and_truthiness() {
    assert_eq!(
        ok("{{ if eq .check.status \"unhealthy\" }}down{{ end }}"),
        "down"
    );
    assert_eq!(
        ok("{{ if .params.ns }}a{{ else if .config.list }}b{{ else }}c{{ end }}"),
        "b"
    );
    assert_eq!(ok("{{ if .config.missing }}a{{ else }}c{{ end }}"), "c");
    for falsy in ["0", "\"\"", "false", "(list)", "(dict)", ".config.nothing"] {
        assert_eq!(
            ok(&format!(
                "{{{{ if {falsy} }}}}t{{{{ else }}}}f{{{{ end }}}}"
            )),
            "f",
            "{falsy}"
        );
    }
    for truthy in ["1", "\"x\"", "true", "(list 0)", "(dict \"a\" 1)", "0.5"] {
        assert_eq!(
            ok(&format!(
                "{{{{ if {truthy} }}}}t{{{{ else }}}}f{{{{ end }}}}"
            )),
            "t",
            "{truthy}"
        );
    }
    assert_eq!(ok("{{ with .config.tags }}{{ .env }}{{ end }}"), "prod");
    assert_eq!(
        ok("{{ with .params.ns }}x{{ else with .config.name }}{{ . }}{{ else }}z{{ end }}"),
        "web"
    );
    assert_eq!(
        ok("{{ with $t := .config.tags }}{{ $t.team }}{{ end }}"),
        "a"
    );
    assert_eq!(ok("{{ with .params.ns }}x{{ else }}none{{ end }}"), "none");
}

#[test]
fn range_over_lists_maps_and_integers() {
    assert_eq!(ok("{{ range .config.list }}{{ . }},{{ end }}"), "1,2,3,");
    assert_eq!(
        ok("{{ range $i, $v := .config.list }}{{ $i }}:{{ $v }} {{ end }}"),
        "0:1 1:2 2:3 "
    );
    assert_eq!(
        ok("{{ range $k, $v := .config.tags }}{{$k}}={{$v}} {{ end }}"),
        "env=prod team=a "
    );
    assert_eq!(
        ok("{{ range $v := .config.tags }}{{$v}} {{ end }}"),
        "prod a "
    );
    assert_eq!(
        ok("{{ range .params.none }}x{{ else }}empty{{ end }}"),
        "empty"
    );
    assert_eq!(ok("{{ range (list) }}x{{ else }}empty{{ end }}"), "empty");
    assert_eq!(ok("{{ range 3 }}{{ . }}{{ end }}"), "012");
    assert_eq!(
        ok(
            "{{ range .config.list }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ if eq . 3 }}{{ break }}{{ end }}{{ . }}{{ end }}"
        ),
        "1"
    );
    assert_eq!(
        ok("{{ range .items }}{{ if .ok }}{{ .name }}{{ end }}{{ end }}"),
        "a"
    );
    assert_eq!(
        ok("{{ $n := 0 }}{{ range .config.list }}{{ $n = add $n . }}{{ end }}{{ $n }}"),
        "6"
    );
    assert_eq!(
        err("{{ range .config.name }}{{ end }}"),
        "template: 1:10: executing at <.config.name>: range can't iterate over web"
    );
    assert_eq!(
        err("{{ break }}"),
        "template: 1:4: {{break}} outside {{range}}"
    );
}

#[test]
fn define_template_block() {
    assert_eq!(
        ok("{{ define \"t\" }}[{{ . }}]{{ end }}{{ template \"t\" .config.name }}"),
        "[web]"
    );
    assert_eq!(
        ok("{{ define \"t\" }}{{ . }}{{ end }}{{ template \"t\" }}"),
        "<no value>"
    );
    assert_eq!(
        ok("{{ block \"b\" .config.tags }}{{ .env }}{{ end }}"),
        "prod"
    );
    // As Go: one source cannot define a template twice, a block included.
    assert_eq!(
        err("{{ define \"b\" }}override{{ end }}{{ block \"b\" . }}default{{ end }}"),
        "template: 1:43: template: multiple definition of template \"b\""
    );
    assert_eq!(
        ok("{{ define \"t\" }}{{ $.team }}{{ end }}{{ template \"t\" .config.tags }}"),
        "a"
    );
    assert_eq!(
        err("{{ template \"nope\" }}"),
        "template: 1:13: executing at <template \"nope\">: template \"nope\" not defined"
    );
    assert_eq!(
        err("{{ define \"t\" }}a{{ end }}{{ define \"t\" }}b{{ end }}"),
        "template: 1:37: template: multiple definition of template \"t\""
    );
}

#[test]
fn parse_errors_name_line_and_column() {
    assert_eq!(
        err("{{ .config.name | uper }}"),
        "template: 1:19: function \"uper\" not defined"
    );
    assert_eq!(
        err("line one\n  {{ if }}"),
        "template: 2:9: missing value for if"
    );
    assert_eq!(err("{{ if true }}x"), "template: 1:15: unexpected EOF");
    assert_eq!(err("{{ end }}"), "template: 1:4: unexpected {{end}}");
    assert_eq!(err("{{ .a"), "template: 1:1: unclosed action");
    assert_eq!(
        err("{{ \"abc }}"),
        "template: 1:4: unterminated quoted string"
    );
    assert_eq!(err("{{ $x }}"), "template: 1:4: undefined variable \"$x\"");
    assert_eq!(
        err("{{ .a | 3 }}"),
        "template: 1:9: non executable command in pipeline stage 2"
    );
    assert_eq!(err("{{ ( .a }}"), "template: 1:9: unclosed left paren");
    assert_eq!(
        err("{{ /* x */ }}"),
        "template: 1:1: comment ends before closing delimiter"
    );
    let e: TemplateError = render("a\nb {{ uper }}", &json!({})).unwrap_err();
    assert_eq!((e.line, e.column), (2, 6));
}

#[test]
fn exec_errors_are_gos() {
    assert_eq!(
        err("{{ index .config.list 5 }}"),
        "template: 1:4: executing at <index>: error calling index: index out of range: 5"
    );
    assert_eq!(
        err("{{ upper 5 }}"),
        "template: 1:4: executing at <upper>: wrong type for value; expected string; got int"
    );
    assert_eq!(
        err("{{ .config.missing | upper }}"),
        "template: 1:22: executing at <upper>: invalid value; expected string"
    );
    assert_eq!(
        err("{{ upper \"a\" \"b\" }}"),
        "template: 1:4: executing at <upper>: wrong number of args for upper: want 1 got 2"
    );
    assert_eq!(
        err("{{ eq \"a\" 1 }}"),
        "template: 1:4: executing at <eq>: error calling eq: incompatible types for comparison"
    );
    assert_eq!(
        err("{{ 3 4 }}"),
        "template: 1:4: executing at <3>: can't give argument to non-function 3"
    );
}

#[test]
fn parse_once_execute_many() {
    let t = Template::parse("{{ .n }}").unwrap();
    let outs: Vec<String> = (0..3)
        .map(|n| t.execute(&json!({ "n": n })).unwrap())
        .collect();
    assert_eq!(outs, ["0", "1", "2"]);
    let t = std::sync::Arc::new(t);
    let handle = {
        let t = t.clone();
        std::thread::spawn(move || t.execute(&json!({"n": "thread"})).unwrap())
    };
    assert_eq!(handle.join().unwrap(), "thread");
}

#[test]
fn render_strings_templates_values_not_keys() {
    let spec = json!({
        "actions": [{"name": "{{.config.name}}", "http": {"url": "https://x/{{ .params.replicas }}", "port": 80}}],
        "{{keys}}": "plain",
    });
    let out = render_strings(&spec, &data()).unwrap();
    assert_eq!(
        out,
        json!({"actions": [{"name": "web", "http": {"url": "https://x/3", "port": 80}}], "{{keys}}": "plain"})
    );
    let bad = json!({"actions": [{"http": {"url": "{{ .x | nope }}"}}]});
    let e = render_strings(&bad, &data()).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("actions[0].http.url"));
    assert_eq!(
        e.to_string(),
        "actions[0].http.url: template: 1:9: function \"nope\" not defined"
    );
}
