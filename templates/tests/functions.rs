//! Every function, with Go's and Sprig's outputs.

mod common;

use serde_json::{Value, json};

fn data() -> Value {
    json!({
        "s": "Hello World",
        "n": 7,
        "f": 2.5,
        "list": ["b", "a", "b", 3],
        "m": {"b": 2, "a": 1},
        "maps": [{"k": 1}, {"x": 2}, {"k": 3}],
        "none": null,
        "json": "{\"a\":[1,2]}",
        "when": "2026-11-25T10:30:05Z",
    })
}

fn ok(source: &str) -> String {
    common::rendered(source, &data())
}

fn err(source: &str) -> String {
    common::failure(source, &data())
}

fn check(cases: &[(&str, &str)]) {
    for (source, want) in cases {
        assert_eq!(ok(source), *want, "{source}");
    }
}

#[test]
fn go_builtins() {
    check(&[
        ("{{ and 1 0 2 }}", "0"),
        ("{{ and 1 2 }}", "2"),
        ("{{ or 0 \"\" \"x\" }}", "x"),
        ("{{ or 0 \"\" }}", ""),
        // and/or stop at the first deciding argument: the second is never evaluated.
        ("{{ or 1 (index .list 99) }}", "1"),
        ("{{ not 0 }} {{ not .s }}", "true false"),
        ("{{ len .s }} {{ len .list }} {{ len .m }}", "11 4 2"),
        (
            "{{ index .list 1 }} {{ index .m \"b\" }} {{ index .maps 2 \"k\" }} {{ index .m \"zz\" }}",
            "a 2 3 <no value>",
        ),
        (
            "{{ slice .list 1 3 }} {{ slice .s 6 }} {{ slice .s 0 5 }}",
            "[a b] World Hello",
        ),
        ("{{ print \"a\" 1 2 \"b\" .none }}", "a1 2b<nil>"),
        ("{{ println \"a\" 1 }}", "a 1\n"),
        (
            "{{ eq .n 7 }} {{ eq .s \"x\" \"Hello World\" }} {{ eq .none nil }} {{ eq .f 2.5 }} {{ eq .n 7.0 }}",
            "true true true true true",
        ),
        (
            "{{ ne .n 3 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt \"b\" \"a\" }} {{ ge 1.5 2 }}",
            "true true true true false",
        ),
        (
            "{{ html \"<a href='x'>&\\\"\" }}",
            "&lt;a href=&#39;x&#39;&gt;&amp;&#34;",
        ),
        (
            "{{ js \"it's <b> \\\"x\\\" = \\\\\" }}",
            "it\\'s \\u003Cb\\u003E \\\"x\\\" \\u003D \\\\",
        ),
        ("{{ urlquery \"a b&c=d/é\" }}", "a+b%26c%3Dd%2F%C3%A9"),
    ]);
    assert_eq!(
        err("{{ lt .none 1 }}"),
        "template: 1:4: executing at <lt>: error calling lt: invalid type for comparison"
    );
    assert_eq!(
        err("{{ len 3 }}"),
        "template: 1:4: executing at <len>: error calling len: len of type int"
    );
    assert_eq!(
        err("{{ eq .list .list }}"),
        "template: 1:4: executing at <eq>: error calling eq: non-comparable type [b a b 3]: []interface {}"
    );
}

#[test]
fn printf_verbs() {
    check(&[
        (
            "{{ printf \"%s|%d|%v|%q|%f|%.2f|%t|%x|%X|%%\" .s .n .list \"q\" .f 3.14159 true 255 \"hi\" }}",
            "Hello World|7|[b a b 3]|\"q\"|2.500000|3.14|true|ff|6869|%",
        ),
        (
            "{{ printf \"%5d|%-5d|%05d|%+d|%x\" 42 42 42 42 -255 }}",
            "   42|42   |00042|+42|-ff",
        ),
        (
            "{{ printf \"%8.3f|%-8s|%8s|%.3s\" 3.14159 \"ab\" \"ab\" \"abcdef\" }}",
            "   3.142|ab      |      ab|abc",
        ),
        (
            "{{ printf \"%e %g %g %g\" 123456.789 0.000012 100000000.0 1.5 }}",
            "1.234568e+05 1.2e-05 1e+08 1.5",
        ),
        (
            "{{ printf \"%v %v %T %T\" .m .none .m .s }}",
            "map[a:1 b:2] <nil> map[string]interface {} string",
        ),
        (
            "{{ printf \"%c %U %o %b %#x\" 65 65 8 5 255 }}",
            "A U+0041 10 101 0xff",
        ),
        ("{{ printf \"%d %s\" \"x\" 3 }}", "%!d(string=x) %!s(int=3)"),
        ("{{ printf \"%s %s\" \"a\" }}", "a %!s(MISSING)"),
        ("{{ printf \"%s\" \"a\" \"b\" }}", "a%!(EXTRA string=b)"),
        ("{{ printf \"%d\" .f }}", "%!d(float64=2.5)"),
        ("{{ printf \"%.1f\" .n }}", "7.0"),
        ("{{ printf \"%q\" \"tab\\there\" }}", "\"tab\\there\""),
    ]);
}

#[test]
fn defaults_and_logic() {
    check(&[
        (
            "{{ default \"x\" .missing }} {{ default \"x\" \"\" }} {{ default \"x\" .s }} {{ .missing | default \"y\" }}",
            "x x Hello World y",
        ),
        (
            "{{ default 5 0 }} {{ default \"d\" .none }} {{ default \"d\" (list) }}",
            "5 d d",
        ),
        (
            "{{ empty .missing }} {{ empty 0 }} {{ empty .list }} {{ empty (dict) }} {{ empty false }}",
            "true true false true true",
        ),
        (
            "{{ coalesce .missing \"\" 0 \"z\" }} {{ coalesce .none }}",
            "z <no value>",
        ),
        (
            "{{ ternary \"yes\" \"no\" true }} {{ ternary \"yes\" \"no\" (eq .n 8) }}",
            "yes no",
        ),
    ]);
}

#[test]
fn strings() {
    check(&[
        (
            "{{ upper .s }} {{ lower .s }} {{ title \"hello wide-world foo_bar\" }}",
            "HELLO WORLD hello world Hello Wide-World Foo_bar",
        ),
        (
            "[{{ trim \"  a b \\n\" }}] {{ trimPrefix \"He\" .s }} {{ trimSuffix \"ld\" .s }} {{ trimAll \"$-\" \"$-a$-\" }}",
            "[a b] llo World Hello Wor a",
        ),
        (
            "{{ contains \"lo W\" .s }} {{ hasPrefix \"Hell\" .s }} {{ hasSuffix \"x\" .s }}",
            "true true false",
        ),
        (
            "{{ replace \"o\" \"0\" .s }} {{ repeat 3 \"ab\" }}",
            "Hell0 W0rld ababab",
        ),
        (
            "{{ substr 0 5 .s }}|{{ substr 6 100 .s }}|{{ substr -1 3 .s }}",
            "Hello|World|Hel",
        ),
        (
            "{{ trunc 5 .s }}|{{ trunc -5 .s }}|{{ trunc 50 .s }}",
            "Hello|World|Hello World",
        ),
        (
            "{{ abbrev 8 .s }}|{{ abbrev 20 .s }}",
            "Hello...|Hello World",
        ),
        (
            "{{ quote .s 3 .none }} {{ squote \"a\" \"b\" }} {{ .s | quote }}",
            "\"Hello World\" \"3\" 'a' 'b' \"Hello World\"",
        ),
        ("{{ cat \"a\" 1 .none \"b\" }}", "a 1 b"),
        (
            "{{ indent 2 \"a\\nb\" }}|{{ nindent 2 \"a\" }}",
            "  a\n  b|\n  a",
        ),
        (
            "{{ join \", \" .list }} {{ join \"-\" (list 1 2) }}",
            "b, a, b, 3 1-2",
        ),
        (
            "{{ $p := split \".\" \"a.b.c\" }}{{ $p._0 }}{{ $p._2 }} {{ splitList \",\" \"x,y\" }}",
            "ac [x y]",
        ),
        (
            "{{ toString 5 }} {{ toString .list }} {{ toString .s }}",
            "5 [b a b 3] Hello World",
        ),
    ]);
}

#[test]
fn encodings() {
    check(&[
        (
            "{{ toJson .m }} {{ toJson .list }} {{ toJson \"<a&b>\" }}",
            "{\"a\":1,\"b\":2} [\"b\",\"a\",\"b\",3] \"\\u003ca\\u0026b\\u003e\"",
        ),
        ("{{ toJson (list 1.0 2.5 .n) }}", "[1,2.5,7]"),
        ("{{ toPrettyJson .m }}", "{\n  \"a\": 1,\n  \"b\": 2\n}"),
        (
            "{{ (fromJson .json).a }} {{ fromJson \"not json\" }}",
            "[1 2] <no value>",
        ),
        ("{{ toYaml .m }}", "a: 1\nb: 2"),
        (
            "{{ b64enc \"hello\" }} {{ b64dec \"aGVsbG8=\" }}",
            "aGVsbG8= hello",
        ),
        (
            "{{ sha256sum \"abc\" }}",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
    ]);
}

#[test]
fn lists_and_dicts() {
    check(&[
        ("{{ list 1 \"a\" .none }}", "[1 a <nil>]"),
        ("{{ dict \"a\" 1 \"b\" (list 2) }}", "map[a:1 b:[2]]"),
        ("{{ get .m \"a\" }}|{{ get .m \"zz\" }}", "1|"),
        (
            "{{ $d := dict \"a\" 1 }}{{ $_ := set $d \"b\" 2 }}{{ $d }}",
            "map[a:1 b:2]",
        ),
        (
            "{{ keys .m }} {{ keys .m (dict \"c\" 1) }}",
            "[a b] [a b c]",
        ),
        ("{{ hasKey .m \"a\" }} {{ hasKey .m \"z\" }}", "true false"),
        (
            "{{ pluck \"k\" (index .maps 0) (index .maps 1) (index .maps 2) }}",
            "[1 3]",
        ),
        (
            "{{ first .list }} {{ last .list }} {{ first (list) }}",
            "b 3 <no value>",
        ),
        (
            "{{ uniq .list }} {{ sortAlpha .list }}",
            "[b a 3] [3 a b b]",
        ),
    ]);
}

#[test]
fn numbers() {
    check(&[
        (
            "{{ add 1 2 \"3\" }} {{ sub 10 .n }} {{ mul 2 3 4 }} {{ div 7 2 }} {{ mod 7 3 }}",
            "6 3 24 3 1",
        ),
        ("{{ max 1 9 3 }} {{ min 4 2 8 }} {{ add .f 1 }}", "9 2 3"),
        (
            "{{ int \"42\" }} {{ int64 3.9 }} {{ int \"x\" }} {{ float64 \"1.5\" }} {{ atoi \"12\" }} {{ atoi \"1x\" }}",
            "42 3 0 1.5 12 0",
        ),
    ]);
    assert_eq!(
        err("{{ div 1 0 }}"),
        "template: 1:4: executing at <div>: error calling div: runtime error: integer divide by zero"
    );
}

#[test]
fn dates_and_durations() {
    check(&[
        (
            "{{ toDate \"2006-01-02\" \"2026-11-25\" | date \"Jan 2, 2006 (Mon)\" }}",
            "Nov 25, 2026 (Wed)",
        ),
        (
            "{{ date \"2006-01-02 15:04:05 MST\" .when }}",
            "2026-11-25 10:30:05 UTC",
        ),
        (
            "{{ date \"02/01/06 3:04PM -07:00 Z07:00\" .when }}",
            "25/11/26 10:30AM +00:00 Z",
        ),
        (
            "{{ toDate \"2006-01-02T15:04:05Z07:00\" \"2026-11-25T10:30:05+02:00\" | unixEpoch }}",
            "1795595405",
        ),
        ("{{ date \"2006-01-02\" 0 }}", "1970-01-01"),
        (
            "{{ toDate \"2006-01-02\" \"nonsense\" | date \"2006\" }}",
            "0001",
        ),
        (
            "{{ toDate \"2006-01-02 15:04:05.000\" \"2026-01-02 03:04:05.120\" | date \"15:04:05.000 .999\" }}",
            "03:04:05.120 .12",
        ),
        (
            "{{ duration 3723 }} {{ duration 120 }} {{ duration \"45\" }} {{ duration 0 }}",
            "1h2m3s 2m0s 45s 0s",
        ),
        (
            "{{ humanizeDuration 93784 }} {{ humanizeDuration 60 }} {{ humanizeDuration 0 }}",
            "1d2h3m4s 1m 0s",
        ),
    ]);
    let year = ok("{{ now | date \"2006\" }}");
    assert!(year.parse::<i32>().is_ok_and(|y| y >= 2025), "{year}");
    assert!(ok("{{ now }}").contains(" +0000 UTC"));
}

#[test]
fn regular_expressions_and_uuids() {
    check(&[
        (
            "{{ regexMatch \"^H.*d$\" .s }} {{ regexMatch \"^x\" .s }}",
            "true false",
        ),
        (
            "{{ regexFind \"[A-Z]\\\\w+\" \"abc Def ghi\" }}|{{ regexFind \"z\" \"abc\" }}",
            "Def|",
        ),
        (
            "{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"${1}W\" }}",
            "-W-xxW-",
        ),
    ]);
    assert!(
        err("{{ regexMatch \"(\" \"x\" }}")
            .contains("error calling regexMatch: error parsing regexp")
    );
    let id = ok("{{ uuidv4 }}");
    assert_eq!(id.len(), 36);
    assert_ne!(id, ok("{{ uuidv4 }}"));
}
