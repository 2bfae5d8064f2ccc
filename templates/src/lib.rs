//! Go `text/template` syntax with Sprig-like functions, over `serde_json::Value` data: the
//! templating of playbooks, notifications and checks (`{{ .config.name | upper | quote }}`).
//!
//! ```
//! use serde_json::json;
//! let data = json!({"config": {"name": "web", "tags": {"env": "prod", "team": "a"}}});
//! let out = quarterdeck_templates::render(
//!     "{{ .config.name | upper }}:{{ range $k, $v := .config.tags }} {{$k}}={{$v}}{{ end }}",
//!     &data,
//! ).unwrap();
//! assert_eq!(out, "WEB: env=prod team=a");
//! ```
//!
//! # The language
//! Go's, as `text/template` parses and runs it: text and `{{ }}` actions, `{{- ` and ` -}}`
//! trimming, `{{/* comments */}}`, pipelines with `|`, parenthesised pipelines, variables
//! (`$x := `, `$x = `, `$` for the data), fields (`.a.b`, `$x.a`, `(pipeline).a`), literals
//! (strings with escapes, raw strings, characters, numbers, `true`, `false`, `nil`), `if` /
//! `else if` / `else`, `range` (lists, maps in sorted key order, integers, `$i, $v :=`, `else`,
//! `break`, `continue`), `with` / `else with` / `else`, `define` / `template` / `block`.
//! Truthiness is Go's: false, 0, nil and empty strings, lists and maps are false.
//!
//! Where it differs from Go, on purpose:
//! - A missing map key renders `<no value>`, as Go's default (`missingkey=default`); a field of
//!   a missing value is missing too. A field of JSON `null` is an error, as Go's `nil pointer
//!   evaluating interface {}.name`.
//! - JSON integers are integers: `{{ .replicas }}` prints `1000000` where Go, decoding JSON to
//!   float64, would print `1e+06`; integer parameters (`repeat`, `substr`, ...) accept them.
//!   `eq`, `lt`, ... compare integers with floats by value (Go refuses).
//! - Sprig's `set` updates the variable it is given (`{{ $_ := set $d "k" "v" }}`), as Go's
//!   shared maps do; `keys` is sorted; `now` and dates are in UTC (Go's `Local`).
//! - Limits, as templates may come from console users: output is capped at
//!   [`MAX_OUTPUT_BYTES`] (1 MiB, a function's result too), `template` calls nest at most
//!   [`MAX_TEMPLATE_DEPTH`] deep, one execution takes at most [`MAX_STEPS`] steps, parentheses
//!   and control structures nest at most 100 deep. Each error names its limit.
//!
//! # Functions
//! | function | what it does |
//! | --- | --- |
//! | `and`, `or` | the first falsy (`and`) / truthy (`or`) argument, else the last; lazy |
//! | `not` | the boolean negation of the argument's truthiness |
//! | `len` | length of a string (bytes), list or map |
//! | `index` | `index x 1 "k"`: list elements and map values |
//! | `slice` | `slice x 1 3`: part of a list or string |
//! | `print`, `println` | Go's `fmt.Sprint` / `fmt.Sprintln` |
//! | `printf` | Go's `fmt.Sprintf`: `%s %d %v %q %f %.2f %t %x %X %e %g %c %o %b %T %%`, width, flags |
//! | `eq` | `eq a b c`: a equals any of the rest |
//! | `ne`, `lt`, `le`, `gt`, `ge` | comparisons of numbers and strings |
//! | `html`, `js`, `urlquery` | Go's escapers |
//! | `default` | `default "x" .v`: `.v`, or "x" when `.v` is empty |
//! | `empty` | nil, false, 0, "" or an empty list or map |
//! | `coalesce` | the first non-empty argument |
//! | `ternary` | `ternary "yes" "no" cond` |
//! | `upper`, `lower`, `title`, `trim` | case and white space |
//! | `trimPrefix`, `trimSuffix`, `trimAll` | `trimPrefix "x-" .name`; `trimAll "$" s` cuts those characters at both ends |
//! | `contains`, `hasPrefix`, `hasSuffix` | `contains "sub" s` |
//! | `replace` | `replace "old" "new" s` |
//! | `repeat` | `repeat 3 s` |
//! | `substr` | `substr 0 5 s` (bytes) |
//! | `trunc` | `trunc 5 s`; negative counts keep the end |
//! | `abbrev` | `abbrev 10 s`: at most 10 bytes, ending in `...` |
//! | `quote`, `squote` | each argument in double (Go-escaped) / single quotes |
//! | `cat` | the arguments joined by spaces, nils left out |
//! | `indent`, `nindent` | `indent 4 s` indents every line; `nindent` starts with a newline |
//! | `join` | `join ", " list` |
//! | `split` | `split "." s`: a map `_0`, `_1`, ... |
//! | `splitList` | `splitList "," s`: a list |
//! | `toString` | the argument as `%v` prints it |
//! | `toJson`, `toPrettyJson`, `fromJson` | JSON text (Go escapes `<`, `>`, `&`); `fromJson` gives nil for bad text |
//! | `toYaml` | YAML text, without the final newline |
//! | `b64enc`, `b64dec` | standard base64 |
//! | `sha256sum` | hex SHA-256 of a string |
//! | `list` | a list of the arguments |
//! | `dict` | `dict "k1" v1 "k2" v2`: a map |
//! | `get`, `set` | `get $d "k"` ("" when absent); `set $d "k" v` |
//! | `keys` | the sorted keys of one or more maps |
//! | `hasKey` | `hasKey $d "k"` |
//! | `pluck` | `pluck "k" $d1 $d2`: the values of "k" in each map that has it |
//! | `first`, `last` | a list's first / last element (nil when empty) |
//! | `uniq` | a list without repeated elements |
//! | `sortAlpha` | a list's elements as strings, sorted |
//! | `add`, `sub`, `mul`, `div`, `mod`, `max`, `min` | integer arithmetic (Sprig's int64); dividing by zero is an error |
//! | `int`, `int64`, `float64` | conversions (text is parsed; 0 when it is not a number) |
//! | `atoi` | a decimal text as an integer, 0 when it is not one |
//! | `now` | the current time (UTC) |
//! | `date` | `date "2006-01-02" t`: a time (or Unix seconds, or an RFC 3339 text) in a Go layout |
//! | `toDate` | `toDate "2006-01-02" "2026-11-25"`: text to a time by a Go layout |
//! | `unixEpoch` | a time as Unix seconds (text) |
//! | `duration` | seconds as Go prints durations: `1h2m3s` |
//! | `humanizeDuration` | seconds as `1d2h3m4s`, zero units left out |
//! | `regexMatch`, `regexFind`, `regexReplaceAll` | `regexMatch "^a" s`; `regexReplaceAll "a(x*)b" s "${1}W"` |
//! | `uuidv4` | a random UUID |

mod exec;
mod funcs;
mod lex;
mod parse;
mod value;

use serde_json::Value;

pub use exec::{MAX_OUTPUT_BYTES, MAX_STEPS, MAX_TEMPLATE_DEPTH};

/// A template that could not be parsed or run: where (1-based line and column in the template
/// text) and Go's message. `path` names the JSON value it came from (`render_strings`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}template: {line}:{column}: {message}", path_prefix(.path))]
pub struct TemplateError {
    pub path: Option<String>,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn path_prefix(path: &Option<String>) -> String {
    path.as_ref().map(|p| format!("{p}: ")).unwrap_or_default()
}

impl TemplateError {
    pub(crate) fn at(src: &str, pos: usize, message: impl Into<String>) -> TemplateError {
        let pos = pos.min(src.len());
        let before = src.get(..pos).unwrap_or(src);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        TemplateError {
            path: None,
            line,
            column: before[line_start..].chars().count() + 1,
            message: message.into(),
        }
    }
}

/// A parsed template: parse once, execute many times (from any thread).
#[derive(Debug)]
pub struct Template {
    source: String,
    tree: parse::Tree,
}

impl Template {
    pub fn parse(source: &str) -> Result<Template, TemplateError> {
        let tokens = lex::lex(source)?;
        let tree = parse::parse(source, tokens)?;
        Ok(Template {
            source: source.to_string(),
            tree,
        })
    }

    pub fn execute(&self, data: &Value) -> Result<String, TemplateError> {
        self.execute_val(&value::Val::Json(data.clone()))
    }

    fn execute_val(&self, data: &value::Val) -> Result<String, TemplateError> {
        exec::execute(&self.source, &self.tree, data)
    }

    /// The template's source text.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Parses and runs a template once.
pub fn render(source: &str, data: &Value) -> Result<String, TemplateError> {
    Template::parse(source)?.execute(data)
}

/// Templates every string inside a JSON value (keys stay as they are); an error names the path
/// of the string that failed (`actions[0].http.url`). Strings without `{{` are kept as they are.
pub fn render_strings(value: &Value, data: &Value) -> Result<Value, TemplateError> {
    fn walk(value: &Value, data: &value::Val, path: &mut String) -> Result<Value, TemplateError> {
        let render = |s: &str| Template::parse(s)?.execute_val(data);
        Ok(match value {
            Value::String(s) if s.contains("{{") => Value::String(render(s).map_err(|mut e| {
                e.path = Some(if path.is_empty() {
                    "$".into()
                } else {
                    path.clone()
                });
                e
            })?),
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    out.push(walk(item, data, path)?);
                    path.truncate(len);
                }
                Value::Array(out)
            }
            Value::Object(map) => {
                let mut out = serde_json::Map::with_capacity(map.len());
                for (k, v) in map {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                    out.insert(k.clone(), walk(v, data, path)?);
                    path.truncate(len);
                }
                Value::Object(out)
            }
            other => other.clone(),
        })
    }
    // The data is copied once for all the strings.
    walk(value, &value::Val::Json(data.clone()), &mut String::new())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_function_is_in_the_table() {
        let doc = include_str!("lib.rs");
        for name in crate::funcs::names() {
            assert!(
                doc.contains(&format!("`{name}`")),
                "{name} is missing from the table in lib.rs"
            );
        }
    }

    #[test]
    fn templates_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<crate::Template>();
    }
}
