//! The values a template computes with: JSON data, a missing value (Go's invalid
//! `reflect.Value`), and times from `now`/`toDate`. Printing follows Go's `fmt` (`%v`).

use chrono::{DateTime, FixedOffset};
use serde_json::{Map, Number, Value};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    /// No value: a missing map key, or a template called without data. Prints `<no value>`.
    Missing,
    Json(Value),
    Time(DateTime<FixedOffset>),
}

impl Val {
    pub(crate) fn str(s: impl Into<String>) -> Val {
        Val::Json(Value::String(s.into()))
    }

    pub(crate) fn int(i: i64) -> Val {
        Val::Json(Value::Number(i.into()))
    }

    pub(crate) fn float(f: f64) -> Val {
        match Number::from_f64(f) {
            Some(n) => Val::Json(Value::Number(n)),
            None => Val::Json(Value::Null),
        }
    }

    pub(crate) fn bool(b: bool) -> Val {
        Val::Json(Value::Bool(b))
    }

    /// Nil or missing: what Go's functions receive as a nil `interface{}`.
    pub(crate) fn is_nil(&self) -> bool {
        matches!(self, Val::Missing | Val::Json(Value::Null))
    }

    pub(crate) fn as_json(&self) -> Option<&Value> {
        match self {
            Val::Json(v) => Some(v),
            _ => None,
        }
    }

    /// The value as JSON: times become RFC 3339 strings, missing becomes null.
    pub(crate) fn into_json(self) -> Value {
        match self {
            Val::Missing => Value::Null,
            Val::Json(v) => v,
            Val::Time(t) => Value::String(t.to_rfc3339()),
        }
    }

    /// Go's `type` as fmt's `%T` prints it, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Val::Missing | Val::Json(Value::Null) => "<nil>",
            Val::Time(_) => "time.Time",
            Val::Json(v) => json_type_name(v),
        }
    }

    /// Go's truthiness (`if`, `with`, `and`, `or`, `not`): false, 0, nil and empty strings,
    /// lists and maps are false.
    pub(crate) fn truthy(&self) -> bool {
        match self {
            Val::Missing => false,
            Val::Time(_) => true,
            Val::Json(v) => match v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
                Value::String(s) => !s.is_empty(),
                Value::Array(a) => !a.is_empty(),
                Value::Object(o) => !o.is_empty(),
            },
        }
    }
}

pub(crate) fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest representation,
/// in exponent form below 1e-4 and from 1e6 up (`1e+06`).
pub(crate) fn format_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Rust's `{:e}` is the shortest representation that round-trips, as Go's 'g' with -1.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    format!("{f}")
}

/// fmt's `%v` of a value nested in a slice or map (nil prints `<nil>`).
pub(crate) fn write_go(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&format_number(n)),
        Value::String(s) => out.push_str(s),
        Value::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_go(out, e);
            }
            out.push(']');
        }
        Value::Object(o) => write_map(out, o),
    }
}

fn write_map(out: &mut String, o: &Map<String, Value>) {
    out.push_str("map[");
    let mut keys: Vec<&String> = o.keys().collect();
    keys.sort();
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(k);
        out.push(':');
        write_go(out, &o[k]);
    }
    out.push(']');
}

pub(crate) fn format_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        format_float(n.as_f64().unwrap_or(0.0))
    }
}

/// Go's `time.Time.String()`.
pub(crate) fn format_time(t: &DateTime<FixedOffset>) -> String {
    let zone = if t.offset().local_minus_utc() == 0 {
        "UTC".to_string()
    } else {
        t.format("%z").to_string()
    };
    let mut s = t.format("%Y-%m-%d %H:%M:%S").to_string();
    let nanos = t.timestamp_subsec_nanos();
    if nanos > 0 {
        let frac = format!("{nanos:09}");
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    s.push(' ');
    s.push_str(&t.format("%z").to_string());
    s.push(' ');
    s.push_str(&zone);
    s
}

/// fmt's `%v` (and `print`'s) text of one value.
pub(crate) fn to_go_string(v: &Val) -> String {
    match v {
        Val::Missing => "<nil>".into(),
        Val::Time(t) => format_time(t),
        Val::Json(v) => {
            let mut s = String::new();
            write_go(&mut s, v);
            s
        }
    }
}

/// Sprig's `strval`/`toString`: strings as they are, nil as `<nil>`, the rest as `%v`.
pub(crate) fn strval(v: &Val) -> String {
    to_go_string(v)
}

/// Whether a value is larger than `limit` bytes (roughly: strings by length, containers by
/// their elements), stopping as soon as it is.
pub(crate) fn exceeds(v: &Val, limit: usize) -> bool {
    fn size(v: &Value, budget: &mut isize) {
        if *budget < 0 {
            return;
        }
        *budget -= match v {
            Value::String(s) => s.len() as isize + 2,
            Value::Array(a) => {
                for e in a {
                    size(e, budget);
                }
                2
            }
            Value::Object(o) => {
                for (k, e) in o {
                    *budget -= k.len() as isize;
                    size(e, budget);
                }
                2
            }
            _ => 8,
        };
    }
    match v {
        Val::Json(v) => {
            let mut budget = limit as isize;
            size(v, &mut budget);
            budget < 0
        }
        _ => false,
    }
}
