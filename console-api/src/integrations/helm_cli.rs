//! The Helm CLI tab: shell commands adding the chart repository and
//! installing the chart, with the user's values as `--set` flags.
//!
//! Values become one flag per leaf, keyed the way Helm's `strvals` parser
//! reads them (`a.b`, `list[0].name`; `\` escapes `.`, `[`, `=`, `,` and `\`
//! in keys, and `,` and `\` in values). Which flag carries a leaf:
//!
//! - `--set` for booleans, null, integers Helm reads as integers, and
//!   strings Helm leaves alone.
//! - `--set-string` for strings `--set` would coerce: `true`, `false` and
//!   `null` in any case, `0`, and integers not starting with `0` (`42`,
//!   `-7`, `+3`). Only those, so the common case reads as plain `--set`.
//! - `--set-json` where `--set` has no way to say it: empty lists and maps
//!   (`--set a={}` would be a list holding one empty string), numbers that
//!   are not 64-bit integers (`--set` makes `1.5` a string), maps with an
//!   empty key, and maps nested deeper than the parser's 30 levels.
//!
//! A value starting with `{` is escaped too, as `--set` would read it as a
//! list. Arguments are quoted for a POSIX shell only when they need it.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::REPOSITORY_NAME;

/// The deepest key (in `.`s) Helm's parser accepts.
const MAX_KEY_DOTS: usize = 30;

#[derive(Debug, thiserror::Error)]
pub enum HelmCliError {
    #[error("Helm cannot set a value with an empty top-level key")]
    EmptyTopLevelKey,
}

/// What the commands install.
pub struct Install<'a> {
    /// The chart, which also names the release.
    pub chart: &'a str,
    pub namespace: &'a str,
    pub repository_url: &'a str,
    pub values: &'a Map<String, Value>,
}

/// The flag that sets one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    Set,
    SetString,
    SetJson,
}

impl Flag {
    pub fn as_str(self) -> &'static str {
        match self {
            Flag::Set => "--set",
            Flag::SetString => "--set-string",
            Flag::SetJson => "--set-json",
        }
    }
}

/// The three commands, one per line; the install command's arguments are
/// continued over lines with ` \`.
pub fn commands(install: &Install<'_>) -> Result<String, HelmCliError> {
    let add = [
        "helm",
        "repo",
        "add",
        REPOSITORY_NAME,
        install.repository_url,
    ];
    let chart_ref = format!("{REPOSITORY_NAME}/{}", install.chart);
    let mut lines = vec![
        format!(
            "helm install {} {}",
            quote(install.chart),
            quote(&chart_ref)
        ),
        format!("--namespace {}", quote(install.namespace)),
        "--create-namespace".to_owned(),
    ];
    for (flag, argument) in set_arguments(install.values)? {
        lines.push(format!("{} {}", flag.as_str(), quote(&argument)));
    }
    Ok(format!(
        "{}\nhelm repo update\n{}\n",
        add.map(quote).join(" "),
        lines.join(" \\\n  ")
    ))
}

/// The `--set`-style flags giving Helm these values, in order.
pub fn set_arguments(values: &Map<String, Value>) -> Result<Vec<(Flag, String)>, HelmCliError> {
    if values.contains_key("") {
        return Err(HelmCliError::EmptyTopLevelKey);
    }
    let mut out = Vec::new();
    for (key, value) in values {
        leaf_flags(&escape_key(key), 0, value, &mut out);
    }
    Ok(out)
}

fn leaf_flags(path: &str, dots: usize, value: &Value, out: &mut Vec<(Flag, String)>) {
    match value {
        Value::Object(map) => {
            if map.is_empty() || map.contains_key("") || dots >= MAX_KEY_DOTS {
                out.push((Flag::SetJson, format!("{path}={value}")));
            } else {
                for (key, child) in map {
                    leaf_flags(&format!("{path}.{}", escape_key(key)), dots + 1, child, out);
                }
            }
        }
        Value::Array(items) if items.is_empty() => {
            out.push((Flag::SetJson, format!("{path}=[]")));
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                leaf_flags(&format!("{path}[{i}]"), dots, child, out);
            }
        }
        Value::Null | Value::Bool(_) => out.push((Flag::Set, format!("{path}={value}"))),
        Value::Number(n) if n.is_i64() => out.push((Flag::Set, format!("{path}={n}"))),
        Value::Number(n) => out.push((Flag::SetJson, format!("{path}={n}"))),
        Value::String(s) => {
            let flag = if helm_would_coerce(s) {
                Flag::SetString
            } else {
                Flag::Set
            };
            out.push((flag, format!("{path}={}", escape_value(s))));
        }
    }
}

/// Whether `--set` would read this string as something else (Helm's
/// `typedVal`): a boolean or null in any case, `0`, or an integer that
/// does not start with `0`.
fn helm_would_coerce(s: &str) -> bool {
    ["true", "false", "null"]
        .iter()
        .any(|word| s.eq_ignore_ascii_case(word))
        || s == "0"
        || (!s.starts_with('0') && s.parse::<i64>().is_ok())
}

fn escape_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.chars() {
        if matches!(c, '\\' | '.' | '[' | '=' | ',') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn escape_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 1);
    if value.starts_with('{') {
        out.push('\\');
    }
    for c in value.chars() {
        if matches!(c, '\\' | ',') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The argument as one POSIX shell word: as is when it holds only
/// characters no shell treats specially, else in single quotes (with `'`
/// written `'\''`).
pub fn quote(arg: &str) -> Cow<'_, str> {
    let plain = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
    if plain {
        Cow::Borrowed(arg)
    } else {
        Cow::Owned(format!("'{}'", arg.replace('\'', r"'\''")))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn install(values: &Value) -> String {
        let Value::Object(values) = values else {
            panic!("values must be an object")
        };
        commands(&Install {
            chart: "quarterdeck-aws",
            namespace: "ops",
            repository_url: "https://charts.example.test/stable?x=1&y=2",
            values,
        })
        .unwrap()
    }

    /// The arguments of the `helm install` command, as bash passes them.
    fn run_in_bash(script: &str) -> Vec<String> {
        let script = format!(
            "helm() {{ if [ \"$1\" = install ]; then printf '%s\\0' \"$@\"; fi; }}\n{script}"
        );
        let output = std::process::Command::new("bash")
            .arg("-c")
            .arg(&script)
            .env("HOME", "/home/should-not-expand")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut args: Vec<String> = String::from_utf8(output.stdout)
            .unwrap()
            .split('\0')
            .map(str::to_owned)
            .collect();
        assert_eq!(args.pop().as_deref(), Some(""), "NUL-terminated");
        args
    }

    #[derive(Debug)]
    enum Segment {
        Key(String),
        Index(usize),
    }

    /// Helm's strvals reading of one `key=value` argument (the subset the
    /// generator writes; anything else fails the test).
    fn parse_set(flag: &str, argument: &str) -> (Vec<Segment>, Value) {
        let mut segments = Vec::new();
        let mut key = String::new();
        let mut chars = argument.chars();
        loop {
            match chars.next() {
                Some('\\') => key.push(chars.next().unwrap()),
                Some('.') => {
                    if !key.is_empty() {
                        segments.push(Segment::Key(std::mem::take(&mut key)));
                    }
                }
                Some('[') => {
                    if !key.is_empty() {
                        segments.push(Segment::Key(std::mem::take(&mut key)));
                    }
                    let index: String = chars.by_ref().take_while(|c| *c != ']').collect();
                    segments.push(Segment::Index(index.parse().unwrap()));
                }
                Some('=') => {
                    if !key.is_empty() {
                        segments.push(Segment::Key(std::mem::take(&mut key)));
                    }
                    break;
                }
                Some(c) => key.push(c),
                None => panic!("no `=` in {argument:?}"),
            }
        }
        let raw: String = chars.collect();
        let value = match flag {
            "--set-json" => serde_json::from_str(&raw).unwrap(),
            "--set" | "--set-string" => {
                assert!(!raw.starts_with('{'), "would be a list: {argument:?}");
                let mut text = String::new();
                let mut chars = raw.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => text.push(chars.next().unwrap()),
                        ',' => panic!("unescaped `,` in {argument:?}"),
                        c => text.push(c),
                    }
                }
                if flag == "--set-string" {
                    Value::String(text)
                } else if text.eq_ignore_ascii_case("true") {
                    Value::Bool(true)
                } else if text.eq_ignore_ascii_case("false") {
                    Value::Bool(false)
                } else if text.eq_ignore_ascii_case("null") {
                    Value::Null
                } else if text == "0" {
                    json!(0)
                } else if let Some(n) = (!text.starts_with('0'))
                    .then(|| text.parse::<i64>().ok())
                    .flatten()
                {
                    json!(n)
                } else {
                    Value::String(text)
                }
            }
            other => panic!("unexpected flag {other}"),
        };
        (segments, value)
    }

    fn insert(into: &mut Value, segments: &[Segment], value: Value) {
        let Some((first, rest)) = segments.split_first() else {
            *into = value;
            return;
        };
        let slot = match first {
            Segment::Key(key) => {
                if !into.is_object() {
                    *into = json!({});
                }
                into.as_object_mut()
                    .unwrap()
                    .entry(key.clone())
                    .or_insert(Value::Null)
            }
            Segment::Index(i) => {
                if !into.is_array() {
                    *into = json!([]);
                }
                let list = into.as_array_mut().unwrap();
                if list.len() <= *i {
                    list.resize(i + 1, Value::Null);
                }
                &mut list[*i]
            }
        };
        insert(slot, rest, value);
    }

    /// The values Helm would build from the install command's arguments.
    fn values_from(args: &[String]) -> Value {
        assert_eq!(
            args[..3],
            ["install", "quarterdeck-aws", "quarterdeck/quarterdeck-aws"]
        );
        let mut values = json!({});
        let mut rest = args[3..].iter();
        while let Some(arg) = rest.next() {
            match arg.as_str() {
                "--namespace" => assert_eq!(rest.next().unwrap(), "ops"),
                "--create-namespace" => {}
                flag => {
                    let (segments, value) = parse_set(flag, rest.next().unwrap());
                    insert(&mut values, &segments, value);
                }
            }
        }
        values
    }

    fn tricky() -> Value {
        // In parts: one json! this size exceeds the macro recursion limit.
        let parts = [
            json!({
                "spaces": "a b  c ",
                "single": "it's",
                "double": "say \"hi\"",
                "both": "'\"'\"",
                "newlines": "line 1\nline 2\n",
                "home": "$HOME",
                "braces": "${HOME} $(id) `id`",
                "comma": "a,b,,c",
                "backslash": "C:\\dir\\",
                "backslash comma": "\\,",
                "equals": "a=b==c",
                "list lookalike": "{a,b}",
            }),
            json!({
                "glob": "*?[a]",
                "tilde": "~root",
                "semicolon": "a; rm -rf /",
                "unicode": "Grüße 日本語 🚀",
                "empty": "",
                "true": "true",
                "TRUE": "TRUE",
                "null": "null",
                "zero": "0",
                "leading zero": "0123",
                "number": "42",
                "negative": "-7",
            }),
            json!({
                "plus": "+3",
                "float string": "1.5",
                "huge string": "99999999999999999999",
                "dotted.key": "v",
                "key [0] = x, y": "v",
                "key\\with\\backslash": "v",
                "-leading-dash": "v",
                "it's": "key quote",
                "real": {"bool": true, "false": false, "null": null, "int": -12, "zero": 0, "float": 1.5, "big": 18446744073709551615u64},
                "nested": {"a": {"b": {"c": "d"}}},
                "list": ["x", "1", 1, {"name": "n", "tags": ["t"]}, [1, [2]], {}],
                "empty list": [],
            }),
            json!({
                "empty map": {},
                "empty key": {"": "v", "k": "w"},
                "list of maps": [{"name": "a", "value": "1"}, {"name": "b", "value": 2}],
            }),
            // What YAML 1.1 misreads: `--set` takes them as the strings they are.
            json!({
                "on": "on", "yes": "yes", "n": "n", "off": "OFF", "exponent": "1e3",
                "octal": "0777", "clock": "1:20", "date": "2024-01-01", "bare tilde": "~",
            }),
        ];
        let mut all = Map::new();
        for part in parts {
            if let Value::Object(map) = part {
                all.extend(map);
            }
        }
        Value::Object(all)
    }

    #[test]
    fn the_commands_add_the_repository_and_install_the_chart() {
        let script = install(&json!({"clusterName": "prod", "scraper": {"schedule": "@every 1h"}}));
        assert_eq!(
            script,
            "helm repo add quarterdeck 'https://charts.example.test/stable?x=1&y=2'\n\
             helm repo update\n\
             helm install quarterdeck-aws quarterdeck/quarterdeck-aws \\\n  \
             --namespace ops \\\n  \
             --create-namespace \\\n  \
             --set clusterName=prod \\\n  \
             --set 'scraper.schedule=@every 1h'\n"
        );
    }

    #[test]
    fn flags_follow_helms_typing() {
        let Value::Object(values) = json!({
            "s": "x", "t": "true", "n": "12", "z": "0", "lz": "007", "b": false,
            "i": 3, "f": 2.5, "nil": null, "l": [], "m": {}, "v": "{x}"
        }) else {
            unreachable!()
        };
        let flags: Vec<String> = set_arguments(&values)
            .unwrap()
            .into_iter()
            .map(|(flag, arg)| format!("{} {arg}", flag.as_str()))
            .collect();
        assert_eq!(
            flags,
            [
                "--set b=false",
                "--set-json f=2.5",
                "--set i=3",
                "--set-json l=[]",
                "--set lz=007",
                "--set-json m={}",
                "--set-string n=12",
                "--set nil=null",
                "--set s=x",
                "--set-string t=true",
                "--set v=\\{x}",
                "--set-string z=0",
            ]
        );
    }

    #[test]
    fn an_empty_top_level_key_cannot_be_set() {
        let Value::Object(values) = json!({"": 1}) else {
            unreachable!()
        };
        assert!(set_arguments(&values).is_err());
    }

    #[test]
    fn deep_maps_fall_back_to_json() {
        let mut deep = json!("leaf");
        for i in 0..40 {
            deep = json!({ format!("k{i}"): deep });
        }
        let Value::Object(values) = deep.clone() else {
            unreachable!()
        };
        let flags = set_arguments(&values).unwrap();
        assert_eq!(flags.len(), 1);
        assert_eq!(flags[0].0, Flag::SetJson);
        assert_eq!(
            flags[0].1.matches('.').count(),
            MAX_KEY_DOTS,
            "{}",
            flags[0].1
        );
        assert_eq!(values_from(&run_in_bash(&install(&deep))), deep);
    }

    #[test]
    fn shell_quoting_only_when_needed() {
        assert_eq!(quote("a.b=c,d"), "a.b=c,d");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("list[0]=x"), "'list[0]=x'");
        assert_eq!(quote("~x"), "'~x'");
    }

    #[test]
    fn the_install_command_round_trips_through_bash_and_strvals() {
        let values = tricky();
        let script = install(&values);
        let args = run_in_bash(&script);
        assert_eq!(values_from(&args), values, "{script}");
    }

    #[test]
    fn no_values_means_no_flags() {
        let args = run_in_bash(&install(&json!({})));
        assert_eq!(
            args,
            [
                "install",
                "quarterdeck-aws",
                "quarterdeck/quarterdeck-aws",
                "--namespace",
                "ops",
                "--create-namespace"
            ]
        );
    }

    #[test]
    fn namespaces_yaml11_misreads_are_passed_as_written() {
        for namespace in ["on", "yes", "1e3", "0777", "null"] {
            let Value::Object(values) = json!({"region": "no"}) else {
                unreachable!()
            };
            let script = commands(&Install {
                chart: "quarterdeck-aws",
                namespace,
                repository_url: "https://charts.example.test",
                values: &values,
            })
            .unwrap();
            let args = run_in_bash(&script);
            assert_eq!(args[3..5], ["--namespace", namespace], "{script}");
            assert_eq!(args[6..], ["--set", "region=no"], "{script}");
        }
    }
}
