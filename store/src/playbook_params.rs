//! Playbook parameters and specs as the server checks them (spec part 2
//! section 5, "Playbook parameters"): a run's parameter values against the
//! playbook's definitions ([`check_values`]), and a console playbook's spec
//! before it is written ([`check_spec`]). Pure functions: what needs the
//! database (does the config item exist, may the caller see it) is the
//! caller's.
//!
//! Every problem names its field (`params.replicas`,
//! `spec.actions[0].name`) and carries one of [`messages`].

use std::collections::BTreeSet;
use std::sync::LazyLock;

use quarterdeck_crds::playbook::{ParameterType, PlaybookParameter, PlaybookSpec};
use regex::Regex;
use serde::Serialize;
use serde_json::{Map, Value};

/// The texts of the problems; the first is the spec's.
pub mod messages {
    pub use quarterdeck_crds::messages::form::{
        FIELD_NOT_A_NUMBER as NOT_A_NUMBER, FIELD_REQUIRED as REQUIRED,
    };
    pub const DNS1123: &str = "Must consist of lowercase alphanumerics, '-' or '.', each label starting and ending with an alphanumeric";
    pub const BYTES: &str = "Must be a number with unit Mi, Gi or Ti, e.g. 512Mi";
    pub const MILLICORES: &str = "Must be a number of millicores with suffix m, e.g. 500m";
    pub const DURATION: &str = "Must be a duration such as 30s, 5m or 1h30m";
    pub const CHECKBOX: &str = "Must be true or false";
    pub const NOT_AN_OPTION: &str = "Must be one of the options";
    pub const NOT_AN_ID: &str = "Must be an id";
    pub const NOT_TEXT: &str = "Must be text";
    pub const NOT_A_PARAMETER: &str = "Not a parameter of this playbook";
    pub const ACTIONS_REQUIRED: &str = "A playbook needs at least one action";
    pub const ACTION_KIND: &str = "An action needs exactly one of exec, http, sql, pod, prometheus, gitops, github, azureDevopsPipeline, notification, logs, catalog, report, ai";
    pub const DUPLICATE_NAME: &str = "Another one has this name";
    pub const APPROVAL_TYPE: &str = "Must be any or all";
    pub const NOT_AN_OBJECT: &str = "Must be an object";
    pub const NOT_A_LIST: &str = "Must be a list";
    pub const BAD_REGEX: &str = "Must be a valid regular expression";
    pub const OPTIONS_REQUIRED: &str = "A list parameter needs options";
    pub const MIN_OVER_MAX: &str = "The minimum must not exceed the maximum";
}

/// One broken rule: the field at fault and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl Problem {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// The action kinds, as the spec names them.
const ACTION_KINDS: &[&str] = &[
    "exec",
    "http",
    "sql",
    "pod",
    "prometheus",
    "gitops",
    "github",
    "azureDevopsPipeline",
    "notification",
    "logs",
    "catalog",
    "report",
    "ai",
];

/// A parameter's type (`text` when not given).
pub fn type_of(parameter: &PlaybookParameter) -> ParameterType {
    parameter.type_.unwrap_or(ParameterType::Text)
}

/// A parameter's default with its strings rendered as Go templates over
/// `env` (decision 78.5), if it has one.
pub fn render_default(
    parameter: &PlaybookParameter,
    env: &Map<String, Value>,
) -> Result<Option<Value>, Problem> {
    let Some(default) = &parameter.default else {
        return Ok(None);
    };
    quarterdeck_templates::render_strings(default, &Value::Object(env.clone()))
        .map(Some)
        .map_err(|e| {
            Problem::new(
                format!("params.{}", parameter.name),
                format!("the default does not render: {e}"),
            )
        })
}

/// The values given, then each missing one's default rendered over `env`,
/// checked by [`check_values`].
pub fn with_defaults(
    parameters: &[PlaybookParameter],
    given: &Map<String, Value>,
    env: &Map<String, Value>,
) -> Result<Map<String, Value>, Problem> {
    let mut values = given.clone();
    for parameter in parameters {
        if values.contains_key(&parameter.name) {
            continue;
        }
        if let Some(rendered) = render_default(parameter, env)? {
            values.insert(parameter.name.clone(), rendered);
        }
    }
    check_values(parameters, &values)
}

/// Checks a run's parameter values (`params`, by name, the defaults already
/// merged in) against the definitions and answers them as stored: text for
/// every type but `configs` (a list of ids) and a `code` value given as
/// structure (written in its language). The first problem wins.
pub fn check_values(
    parameters: &[PlaybookParameter],
    params: &Map<String, Value>,
) -> Result<Map<String, Value>, Problem> {
    if let Some(unknown) = params
        .keys()
        .find(|k| !parameters.iter().any(|p| &p.name == *k))
    {
        return Err(Problem::new(
            format!("params.{unknown}"),
            messages::NOT_A_PARAMETER,
        ));
    }
    let mut checked = Map::new();
    for parameter in parameters {
        let field = format!("params.{}", parameter.name);
        let value = params.get(&parameter.name).unwrap_or(&Value::Null);
        if let Some(value) = check_value(parameter, value).map_err(|m| Problem::new(&field, m))? {
            checked.insert(parameter.name.clone(), value);
        }
    }
    Ok(checked)
}

fn properties(parameter: &PlaybookParameter) -> Map<String, Value> {
    parameter
        .properties
        .as_ref()
        .and_then(|p| serde_json::to_value(p).ok())
        .and_then(|v| match v {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default()
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// One value: `None` when it is empty and not required.
fn check_value(parameter: &PlaybookParameter, value: &Value) -> Result<Option<Value>, String> {
    if is_empty(value) {
        return if parameter.required == Some(true) {
            Err(messages::REQUIRED.into())
        } else {
            Ok(None)
        };
    }
    let props = properties(parameter);
    let checked = match type_of(parameter) {
        ParameterType::Checkbox => Value::String(checkbox(value)?.to_string()),
        ParameterType::Code => Value::String(code_text(props_str(&props, "language"), value)?),
        ParameterType::Configs => {
            Value::Array(ids(value)?.into_iter().map(Value::String).collect())
        }
        ParameterType::Config | ParameterType::Component | ParameterType::Check => {
            let text = text_of(value)?;
            uuid::Uuid::parse_str(text.trim()).map_err(|_| messages::NOT_AN_ID)?;
            Value::String(text.trim().to_owned())
        }
        ParameterType::Duration => {
            let text = text_of(value)?;
            if !DURATION.is_match(text.trim()) {
                return Err(messages::DURATION.into());
            }
            Value::String(text.trim().to_owned())
        }
        ParameterType::Bytes => {
            let text = text_of(value)?;
            let mebibytes = bytes(&text).ok_or(messages::BYTES)?;
            within(&props, mebibytes, bytes_bound)?;
            Value::String(text.trim().to_owned())
        }
        ParameterType::Millicores => {
            let millicores = match value {
                Value::Number(n) => n.as_f64().ok_or(messages::MILLICORES)?,
                other => millicores(&text_of(other)?).ok_or(messages::MILLICORES)?,
            };
            within(&props, millicores, millicores_bound)?;
            Value::String(match value {
                Value::Number(n) => format!("{n}m"),
                other => text_of(other)?.trim().to_owned(),
            })
        }
        ParameterType::List => {
            let text = text_of(value)?;
            let options = options(&props);
            if !options.is_empty() && !options.contains(&text) {
                return Err(messages::NOT_AN_OPTION.into());
            }
            Value::String(text)
        }
        ParameterType::Text
        | ParameterType::Secret
        | ParameterType::People
        | ParameterType::Team => Value::String(text(&props, text_of(value)?)?),
    };
    Ok(Some(checked))
}

fn props_str<'a>(props: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    props.get(key).and_then(Value::as_str)
}

/// A scalar as text (what the form sends).
fn text_of(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(messages::NOT_TEXT.into()),
    }
}

fn checkbox(value: &Value) -> Result<bool, String> {
    match value {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(messages::CHECKBOX.into()),
    }
}

/// A list of ids, or ids separated by commas.
fn ids(value: &Value) -> Result<Vec<String>, String> {
    let items: Vec<String> = match value {
        Value::Array(items) => items.iter().map(text_of).collect::<Result<_, _>>()?,
        other => text_of(other)?.split(',').map(str::to_owned).collect(),
    };
    items
        .iter()
        .map(|i| i.trim())
        .filter(|i| !i.is_empty())
        .map(|i| {
            uuid::Uuid::parse_str(i)
                .map(|_| i.to_owned())
                .map_err(|_| messages::NOT_AN_ID.to_owned())
        })
        .collect()
}

/// A list parameter's option values: `properties.options` of strings or of
/// `{label, value}`.
pub fn options(props: &Map<String, Value>) -> Vec<String> {
    props
        .get("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .filter_map(|o| match o {
                    Value::Object(o) => o.get("value").and_then(|v| text_of(v).ok()),
                    other => text_of(other).ok(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A `code` parameter's value or default as the editor holds it: text,
/// which must parse in its language (`yaml`, `json`); structure is written
/// in the language.
pub fn code_text(language: Option<&str>, value: &Value) -> Result<String, String> {
    let language = language.unwrap_or("yaml").to_ascii_lowercase();
    match (language.as_str(), value) {
        ("json", Value::String(text)) => serde_json::from_str::<Value>(text)
            .map(|_| text.clone())
            .map_err(|e| format!("Must be valid JSON: {e}")),
        ("yaml", Value::String(text)) => yaml_serde::from_str::<Value>(text)
            .map(|_| text.clone())
            .map_err(|e| format!("Must be valid YAML: {e}")),
        (_, Value::String(text)) => Ok(text.clone()),
        ("json", structured) => {
            serde_json::to_string_pretty(structured).map_err(|e| format!("Must be valid JSON: {e}"))
        }
        (_, structured) => {
            yaml_serde::to_string(structured).map_err(|e| format!("Must be valid YAML: {e}"))
        }
    }
}

/// The rules of text, secrets, people and teams: lengths, regex and
/// `format` (`dns1123`, `number` with `min`/`max`).
fn text(props: &Map<String, Value>, value: String) -> Result<String, String> {
    let length = value.chars().count() as u64;
    if let Some(min) = props.get("minLength").and_then(Value::as_u64)
        && length < min
    {
        return Err(format!("Must be at least {min} characters"));
    }
    if let Some(max) = props.get("maxLength").and_then(Value::as_u64)
        && length > max
    {
        return Err(format!("Must be at most {max} characters"));
    }
    if let Some(pattern) = props_str(props, "regex") {
        let regex = Regex::new(&format!("^(?:{pattern})$")).map_err(|_| messages::BAD_REGEX)?;
        if !regex.is_match(&value) {
            return Err(format!("Must match the pattern {pattern}"));
        }
    }
    match props_str(props, "format") {
        Some("dns1123") if !is_dns1123(&value) => Err(messages::DNS1123.into()),
        Some("number") => {
            let number: f64 = value.trim().parse().map_err(|_| messages::NOT_A_NUMBER)?;
            within(props, number, |v| v.as_f64())?;
            Ok(value)
        }
        _ => Ok(value),
    }
}

/// Lowercase alphanumerics, `-` and `.`, each dot-separated label starting
/// and ending with an alphanumeric, at most 253 characters (Kubernetes' RFC
/// 1123 subdomain).
pub fn is_dns1123(value: &str) -> bool {
    static LABEL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").unwrap_or_else(|_| unreachable!())
    });
    !value.is_empty() && value.len() <= 253 && value.split('.').all(|l| LABEL.is_match(l))
}

/// A Go duration: `300ms`, `1.5h`, `2h45m`.
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$").unwrap_or_else(|_| unreachable!())
});

/// A size in mebibytes: a number with unit Mi (the default), Gi or Ti.
fn bytes(text: &str) -> Option<f64> {
    static SIZE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^([0-9]+(?:\.[0-9]+)?)\s*(Mi|Gi|Ti)?$").unwrap_or_else(|_| unreachable!())
    });
    let captures = SIZE.captures(text.trim())?;
    let number: f64 = captures.get(1)?.as_str().parse().ok()?;
    let scale = match captures.get(2).map(|m| m.as_str()) {
        None | Some("Mi") => 1.0,
        Some("Gi") => 1024.0,
        _ => 1024.0 * 1024.0,
    };
    Some(number * scale)
}

/// Millicores: a number with suffix `m`.
fn millicores(text: &str) -> Option<f64> {
    let number = text.trim().strip_suffix('m')?;
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    number.parse().ok()
}

/// A bytes bound: a number of Mi or a size.
fn bytes_bound(bound: &Value) -> Option<f64> {
    bound.as_f64().or_else(|| bound.as_str().and_then(bytes))
}

/// A millicores bound: a number of millicores or a value with suffix m.
fn millicores_bound(bound: &Value) -> Option<f64> {
    bound
        .as_f64()
        .or_else(|| bound.as_str().and_then(millicores))
}

/// `properties.min` and `max`, read by `bound`.
fn within(
    props: &Map<String, Value>,
    value: f64,
    bound: impl Fn(&Value) -> Option<f64>,
) -> Result<(), String> {
    let shown = |b: &Value| match b {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let Some(min) = props.get("min")
        && bound(min).is_some_and(|m| value < m)
    {
        return Err(format!("Must be at least {}", shown(min)));
    }
    if let Some(max) = props.get("max")
        && bound(max).is_some_and(|m| value > m)
    {
        return Err(format!("Must be at most {}", shown(max)));
    }
    Ok(())
}

/// A console playbook's spec before it is written: actions (at least one,
/// named uniquely, exactly one kind each), parameter definitions (named
/// uniquely, a known type, well-formed properties), `approval.type`, then
/// the CRD's schema. Every problem, in field order.
pub fn check_spec(spec: &Value) -> Vec<Problem> {
    let Some(object) = spec.as_object() else {
        return vec![Problem::new("spec", messages::NOT_AN_OBJECT)];
    };
    let mut problems = Vec::new();
    match object.get("actions") {
        Some(Value::Array(actions)) if !actions.is_empty() => check_actions(actions, &mut problems),
        Some(Value::Array(_)) | None | Some(Value::Null) => {
            problems.push(Problem::new("spec.actions", messages::ACTIONS_REQUIRED))
        }
        Some(_) => problems.push(Problem::new("spec.actions", messages::NOT_A_LIST)),
    }
    match object.get("parameters") {
        None | Some(Value::Null) => {}
        Some(Value::Array(parameters)) => check_parameters(parameters, &mut problems),
        Some(_) => problems.push(Problem::new("spec.parameters", messages::NOT_A_LIST)),
    }
    match object.get("approval") {
        None | Some(Value::Null) => {}
        Some(Value::Object(approval)) => match approval.get("type") {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) if t == "any" || t == "all" => {}
            Some(_) => problems.push(Problem::new("spec.approval.type", messages::APPROVAL_TYPE)),
        },
        Some(_) => problems.push(Problem::new("spec.approval", messages::NOT_AN_OBJECT)),
    }
    if problems.is_empty()
        && let Err(e) = serde_json::from_value::<PlaybookSpec>(spec.clone())
    {
        problems.push(Problem::new("spec", e.to_string()));
    }
    problems
}

/// Each entry of the spec's list `key`: an object with a name no other
/// entry has; `rest` checks the rest of it (its field, the entry, the object).
fn check_named(
    entries: &[Value],
    key: &str,
    problems: &mut Vec<Problem>,
    mut rest: impl FnMut(String, &Value, &Map<String, Value>, &mut Vec<Problem>),
) {
    let mut names = BTreeSet::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = format!("spec.{key}[{i}]");
        let Some(object) = entry.as_object() else {
            problems.push(Problem::new(field, messages::NOT_AN_OBJECT));
            continue;
        };
        match object.get("name").and_then(Value::as_str).map(str::trim) {
            None | Some("") => {
                problems.push(Problem::new(format!("{field}.name"), messages::REQUIRED))
            }
            Some(name) if !names.insert(name.to_owned()) => problems.push(Problem::new(
                format!("{field}.name"),
                messages::DUPLICATE_NAME,
            )),
            Some(_) => {}
        }
        rest(field, entry, object, problems);
    }
}

fn check_actions(actions: &[Value], problems: &mut Vec<Problem>) {
    check_named(
        actions,
        "actions",
        problems,
        |field, _, action, problems| {
            let kinds = ACTION_KINDS
                .iter()
                .filter(|k| action.get(**k).is_some_and(|v| !v.is_null()))
                .count();
            if kinds != 1 {
                problems.push(Problem::new(field, messages::ACTION_KIND));
            }
        },
    );
}

fn check_parameters(parameters: &[Value], problems: &mut Vec<Problem>) {
    check_named(parameters, "parameters", problems, check_parameter);
}

fn check_parameter(
    field: String,
    parameter: &Value,
    object: &Map<String, Value>,
    problems: &mut Vec<Problem>,
) {
    let parsed = match serde_json::from_value::<PlaybookParameter>(parameter.clone()) {
        Ok(parsed) => parsed,
        Err(e) => {
            let at = if object.contains_key("type") && e.to_string().contains("variant") {
                format!("{field}.type")
            } else {
                field
            };
            problems.push(Problem::new(at, e.to_string()));
            return;
        }
    };
    let props = properties(&parsed);
    let field = format!("{field}.properties");
    if let Some(pattern) = props_str(&props, "regex")
        && Regex::new(pattern).is_err()
    {
        problems.push(Problem::new(format!("{field}.regex"), messages::BAD_REGEX));
    }
    let number = |key: &str| props.get(key).and_then(Value::as_f64);
    if let (Some(min), Some(max)) = (number("minLength"), number("maxLength"))
        && min > max
    {
        problems.push(Problem::new(
            format!("{field}.minLength"),
            messages::MIN_OVER_MAX,
        ));
    }
    let bound: fn(&Value) -> Option<f64> = match type_of(&parsed) {
        ParameterType::Bytes => bytes_bound,
        ParameterType::Millicores => millicores_bound,
        _ => Value::as_f64,
    };
    if let (Some(min), Some(max)) = (
        props.get("min").and_then(bound),
        props.get("max").and_then(bound),
    ) && min > max
    {
        problems.push(Problem::new(format!("{field}.min"), messages::MIN_OVER_MAX));
    }
    if type_of(&parsed) == ParameterType::List && options(&props).is_empty() {
        problems.push(Problem::new(
            format!("{field}.options"),
            messages::OPTIONS_REQUIRED,
        ));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parameter(definition: Value) -> PlaybookParameter {
        serde_json::from_value(definition).unwrap()
    }

    /// The message for one value of one parameter, or the stored value.
    fn check(definition: Value, value: Value) -> Result<Value, String> {
        let p = parameter(definition);
        let mut params = Map::new();
        params.insert(p.name.clone(), value);
        check_values(std::slice::from_ref(&p), &params)
            .map(|mut v| v.remove(&p.name).unwrap_or(Value::Null))
            .map_err(|problem| {
                assert_eq!(problem.field, format!("params.{}", p.name));
                problem.message
            })
    }

    #[test]
    fn required_values() {
        for t in [
            "text",
            "bytes",
            "millicores",
            "config",
            "list",
            "code",
            "people",
        ] {
            let def = json!({"name": "x", "type": t, "required": true});
            for empty in [json!(null), json!(""), json!("  "), json!([])] {
                assert_eq!(
                    check(def.clone(), empty),
                    Err(messages::REQUIRED.into()),
                    "{t}"
                );
            }
        }
        assert_eq!(check(json!({"name": "x"}), json!("")), Ok(Value::Null));
        let missing = check_values(
            &[parameter(json!({"name": "x", "required": true}))],
            &Map::new(),
        );
        assert_eq!(
            missing.unwrap_err().to_string(),
            "params.x: This field is required"
        );
    }

    #[test]
    fn unknown_parameters_are_refused() {
        let mut params = Map::new();
        params.insert("y".into(), json!("1"));
        let problem = check_values(&[parameter(json!({"name": "x"}))], &params).unwrap_err();
        assert_eq!(problem, Problem::new("params.y", messages::NOT_A_PARAMETER));
    }

    #[test]
    fn text_lengths_regex_and_formats() {
        let def = json!({"name": "t", "properties": {"multiline": true, "minLength": 2, "maxLength": 4, "regex": "[a-z\n]+"}});
        assert_eq!(check(def.clone(), json!("a\nb")), Ok(json!("a\nb")));
        assert_eq!(
            check(def.clone(), json!("a")),
            Err("Must be at least 2 characters".into())
        );
        assert_eq!(
            check(def.clone(), json!("abcde")),
            Err("Must be at most 4 characters".into())
        );
        assert_eq!(
            check(def, json!("AB")),
            Err("Must match the pattern [a-z\n]+".into())
        );
        let dns = json!({"name": "n", "properties": {"format": "dns1123"}});
        for ok in ["web", "web-1.shop", "a", "0a.b-c"] {
            assert_eq!(check(dns.clone(), json!(ok)), Ok(json!(ok)));
        }
        for bad in ["Web", "-web", "web-", "a..b", "web_1", "a.-b"] {
            assert_eq!(
                check(dns.clone(), json!(bad)),
                Err(messages::DNS1123.into()),
                "{bad}"
            );
        }
        let number = json!({"name": "n", "properties": {"format": "number", "min": 1, "max": 5}});
        assert_eq!(check(number.clone(), json!(3)), Ok(json!("3")));
        assert_eq!(
            check(number.clone(), json!("x")),
            Err(messages::NOT_A_NUMBER.into())
        );
        assert_eq!(
            check(number.clone(), json!("0")),
            Err("Must be at least 1".into())
        );
        assert_eq!(check(number, json!("6")), Err("Must be at most 5".into()));
        assert_eq!(
            check(json!({"name": "s", "type": "secret"}), json!({})),
            Err(messages::NOT_TEXT.into())
        );
    }

    #[test]
    fn bytes_with_units_and_bounds() {
        let def =
            json!({"name": "m", "type": "bytes", "properties": {"min": "256Mi", "max": "2Gi"}});
        for ok in ["512", "512Mi", "1Gi", "1.5Gi", "2Gi"] {
            assert_eq!(check(def.clone(), json!(ok)), Ok(json!(ok)), "{ok}");
        }
        for bad in ["1G", "Mi", "1 GB", "-1Mi", "1Ki"] {
            assert_eq!(
                check(def.clone(), json!(bad)),
                Err(messages::BYTES.into()),
                "{bad}"
            );
        }
        assert_eq!(
            check(def.clone(), json!("128Mi")),
            Err("Must be at least 256Mi".into())
        );
        assert_eq!(check(def, json!("1Ti")), Err("Must be at most 2Gi".into()));
        let numeric = json!({"name": "m", "type": "bytes", "properties": {"max": 1024}});
        assert_eq!(check(numeric.clone(), json!("1Gi")), Ok(json!("1Gi")));
        assert_eq!(
            check(numeric, json!("1025")),
            Err("Must be at most 1024".into())
        );
    }

    #[test]
    fn millicores_with_suffix_and_bounds() {
        let def = json!({"name": "cpu", "type": "millicores", "properties": {"min": 100, "max": "2000m"}});
        assert_eq!(check(def.clone(), json!("500m")), Ok(json!("500m")));
        assert_eq!(check(def.clone(), json!(250)), Ok(json!("250m")));
        for bad in ["500", "m", "1 core", "5x00m"] {
            assert_eq!(
                check(def.clone(), json!(bad)),
                Err(messages::MILLICORES.into()),
                "{bad}"
            );
        }
        assert_eq!(
            check(def.clone(), json!("50m")),
            Err("Must be at least 100".into())
        );
        assert_eq!(
            check(def, json!("2500m")),
            Err("Must be at most 2000m".into())
        );
    }

    #[test]
    fn the_other_types() {
        let id = uuid::Uuid::from_u128(1).to_string();
        for t in ["config", "component", "check"] {
            let def = json!({"name": "x", "type": t});
            assert_eq!(check(def.clone(), json!(id)), Ok(json!(id)));
            assert_eq!(check(def, json!("web-1")), Err(messages::NOT_AN_ID.into()));
        }
        let configs = json!({"name": "x", "type": "configs"});
        assert_eq!(check(configs.clone(), json!([id])), Ok(json!([id])));
        assert_eq!(
            check(configs.clone(), json!(format!("{id}, {id}"))),
            Ok(json!([id, id]))
        );
        assert_eq!(
            check(configs, json!(["x"])),
            Err(messages::NOT_AN_ID.into())
        );
        let checkbox = json!({"name": "x", "type": "checkbox"});
        assert_eq!(check(checkbox.clone(), json!(true)), Ok(json!("true")));
        assert_eq!(check(checkbox.clone(), json!("False")), Ok(json!("false")));
        assert_eq!(
            check(checkbox, json!("yes")),
            Err(messages::CHECKBOX.into())
        );
        let duration = json!({"name": "x", "type": "duration"});
        for ok in ["30s", "1h30m", "1.5h", "300ms", "0"] {
            assert_eq!(check(duration.clone(), json!(ok)), Ok(json!(ok)));
        }
        for bad in ["1d", "h", "10", "1h 30m"] {
            assert_eq!(
                check(duration.clone(), json!(bad)),
                Err(messages::DURATION.into()),
                "{bad}"
            );
        }
        let list = json!({"name": "x", "type": "list", "properties": {"options": [{"label": "Small", "value": "s"}, "m"]}});
        assert_eq!(check(list.clone(), json!("s")), Ok(json!("s")));
        assert_eq!(check(list.clone(), json!("m")), Ok(json!("m")));
        assert_eq!(
            check(list, json!("Small")),
            Err(messages::NOT_AN_OPTION.into())
        );
        assert_eq!(
            check(json!({"name": "x", "type": "team"}), json!("sre")),
            Ok(json!("sre"))
        );
    }

    #[test]
    fn code_is_parsed_by_its_language() {
        let yaml = json!({"name": "c", "type": "code", "properties": {"language": "yaml"}});
        assert_eq!(check(yaml.clone(), json!("a: 1\n")), Ok(json!("a: 1\n")));
        assert!(
            check(yaml.clone(), json!("a: [1"))
                .unwrap_err()
                .starts_with("Must be valid YAML")
        );
        assert_eq!(check(yaml, json!({"a": 1})), Ok(json!("a: 1\n")));
        let json_code = json!({"name": "c", "type": "code", "properties": {"language": "json"}});
        assert!(
            check(json_code.clone(), json!("{"))
                .unwrap_err()
                .starts_with("Must be valid JSON")
        );
        assert_eq!(
            check(json_code, json!({"a": 1})),
            Ok(json!("{\n  \"a\": 1\n}"))
        );
        let shell = json!({"name": "c", "type": "code", "properties": {"language": "bash"}});
        assert_eq!(check(shell, json!("echo {")), Ok(json!("echo {")));
    }

    fn fields(spec: Value) -> Vec<String> {
        check_spec(&spec)
            .into_iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
    }

    #[test]
    fn specs() {
        let ok = json!({"actions": [{"name": "a", "http": {"url": "http://x"}}],
                        "parameters": [{"name": "p", "type": "list", "properties": {"options": ["x"]}}],
                        "approval": {"type": "all", "approvers": {"people": ["a@b.c"]}}});
        assert_eq!(fields(ok), Vec::<String>::new());
        assert_eq!(fields(json!([])), ["spec: Must be an object"]);
        assert_eq!(
            fields(json!({})),
            [format!("spec.actions: {}", messages::ACTIONS_REQUIRED)]
        );
        assert_eq!(
            fields(json!({"actions": []})),
            [format!("spec.actions: {}", messages::ACTIONS_REQUIRED)]
        );
        assert_eq!(
            fields(json!({"actions": [
                {"name": "a"},
                {"name": "a", "exec": {"script": "x"}, "http": {"url": "u"}},
                {"exec": {"script": "x"}}
            ]})),
            [
                format!("spec.actions[0]: {}", messages::ACTION_KIND),
                format!("spec.actions[1].name: {}", messages::DUPLICATE_NAME),
                format!("spec.actions[1]: {}", messages::ACTION_KIND),
                "spec.actions[2].name: This field is required".to_owned(),
            ]
        );
        let action = json!([{"name": "a", "exec": {"script": "x"}}]);
        assert_eq!(
            fields(json!({"actions": action, "parameters": [
                {"name": "p", "type": "nope"},
                {"name": "p"},
                {"type": "text"},
                {"name": "l", "type": "list"},
                {"name": "r", "properties": {"regex": "(", "minLength": 5, "maxLength": 1}},
                {"name": "b", "type": "bytes", "properties": {"min": "2Gi", "max": "1Gi"}}
            ]})),
            [
                "spec.parameters[0].type: unknown variant `nope`, expected one of `check`, `checkbox`, `code`, `component`, `config`, `configs`, `duration`, `list`, `people`, `team`, `text`, `bytes`, `millicores`, `secret`".to_owned(),
                format!("spec.parameters[1].name: {}", messages::DUPLICATE_NAME),
                "spec.parameters[2].name: This field is required".to_owned(),
                "spec.parameters[2]: missing field `name`".to_owned(),
                format!("spec.parameters[3].properties.options: {}", messages::OPTIONS_REQUIRED),
                format!("spec.parameters[4].properties.regex: {}", messages::BAD_REGEX),
                format!("spec.parameters[4].properties.minLength: {}", messages::MIN_OVER_MAX),
                format!("spec.parameters[5].properties.min: {}", messages::MIN_OVER_MAX),
            ]
        );
        assert_eq!(
            fields(json!({"actions": action, "approval": {"type": "some"}})),
            [format!("spec.approval.type: {}", messages::APPROVAL_TYPE)]
        );
        assert_eq!(
            fields(json!({"actions": action, "timeout": 5})),
            ["spec: invalid type: integer `5`, expected a string"]
        );
    }
}
