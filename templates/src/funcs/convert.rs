//! Arguments as the Go functions' parameter types, and Sprig's lenient conversions.

use serde_json::Value;

use super::FnError;
use crate::value::{Val, strval};

fn wrong_type(expected: &str, v: &Val) -> FnError {
    if v.is_nil() {
        FnError::Arg(format!("invalid value; expected {expected}"))
    } else {
        FnError::Arg(format!(
            "wrong type for value; expected {expected}; got {}",
            v.type_name()
        ))
    }
}

/// A `string` parameter: Go refuses anything else, nil included.
pub(crate) fn str_arg(args: &[Val], i: usize) -> Result<&str, FnError> {
    match &args[i] {
        Val::Json(Value::String(s)) => Ok(s),
        other => Err(wrong_type("string", other)),
    }
}

/// An `int` parameter. JSON numbers with an integral value are accepted (Go would see them as
/// float64 and refuse them).
pub(crate) fn int_arg(args: &[Val], i: usize) -> Result<i64, FnError> {
    match &args[i] {
        Val::Json(Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Ok(i),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(f as i64),
            _ => Err(wrong_type("int", &args[i])),
        },
        other => Err(wrong_type("int", other)),
    }
}

/// A list parameter (`[]interface{}`); nil is an empty list.
pub(crate) fn list_arg(args: &[Val], i: usize) -> Result<Vec<Value>, FnError> {
    match &args[i] {
        Val::Json(Value::Array(a)) => Ok(a.clone()),
        v if v.is_nil() => Ok(Vec::new()),
        other => Err(FnError::Call(format!(
            "cannot use {} as a list",
            other.type_name()
        ))),
    }
}

/// Sprig's `toInt64` (spf13/cast): numbers truncated, strings parsed (0 when they are not
/// numbers), booleans 1 and 0, anything else 0.
pub(crate) fn to_i64(v: &Val) -> i64 {
    match v {
        Val::Json(Value::Number(n)) => n
            .as_i64()
            .unwrap_or_else(|| n.as_f64().map_or(0, |f| f as i64)),
        Val::Json(Value::String(s)) => parse_int(s).unwrap_or(0),
        Val::Json(Value::Bool(b)) => i64::from(*b),
        Val::Time(t) => t.timestamp(),
        _ => 0,
    }
}

/// strconv.ParseInt(s, 0, 64) after cast's trimming of a zero decimal part ("3.0").
fn parse_int(s: &str) -> Option<i64> {
    let s = s.strip_suffix(".0").unwrap_or(s);
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let lower = body.to_ascii_lowercase();
    let v = if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()?
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        i64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Sprig's `toFloat64` (spf13/cast).
pub(crate) fn to_f64(v: &Val) -> f64 {
    match v {
        Val::Json(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Val::Json(Value::String(s)) => s.trim().parse().unwrap_or(0.0),
        Val::Json(Value::Bool(b)) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

/// Sprig's `strslice`: a list's elements as strings (nil elements dropped), or one string.
pub(crate) fn strslice(v: &Val) -> Vec<String> {
    match v {
        Val::Json(Value::Array(a)) => a
            .iter()
            .filter(|e| !e.is_null())
            .map(|e| strval(&Val::Json(e.clone())))
            .collect(),
        v if v.is_nil() => Vec::new(),
        other => vec![strval(other)],
    }
}
