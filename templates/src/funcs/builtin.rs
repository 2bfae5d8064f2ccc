//! Go's `text/template` builtins (and, or and call aside).

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::Value;

use super::{FnResult, fail, int_arg};
use crate::value::{Val, to_go_string};

pub(crate) fn not(args: &[Val]) -> FnResult {
    Ok(Val::bool(!args[0].truthy()))
}

pub(crate) fn len(args: &[Val]) -> FnResult {
    Ok(Val::int(match &args[0] {
        Val::Json(Value::String(s)) => s.len() as i64,
        Val::Json(Value::Array(a)) => a.len() as i64,
        Val::Json(Value::Object(o)) => o.len() as i64,
        v if v.is_nil() => return fail("len of nil pointer"),
        other => return fail(format!("len of type {}", other.type_name())),
    }))
}

fn index_of(len: usize, args: &[Val], i: usize, what: &str) -> Result<usize, super::FnError> {
    let n = int_arg(args, i).or_else(|_| {
        fail(format!(
            "cannot index {what} with type {}",
            args[i].type_name()
        ))
    })?;
    if n < 0 || n as usize >= len {
        return fail(format!("index out of range: {n}"));
    }
    Ok(n as usize)
}

pub(crate) fn index(args: &[Val]) -> FnResult {
    let mut item = args[0].clone();
    for i in 1..args.len() {
        item = match &item {
            Val::Json(Value::Array(a)) => {
                Val::Json(a[index_of(a.len(), args, i, "slice/array")?].clone())
            }
            Val::Json(Value::String(s)) => Val::int(i64::from(
                s.as_bytes()[index_of(s.len(), args, i, "string")?],
            )),
            Val::Json(Value::Object(o)) => match &args[i] {
                Val::Json(Value::String(k)) => {
                    o.get(k).cloned().map_or(Val::Json(Value::Null), Val::Json)
                }
                other => {
                    return fail(format!(
                        "value has type {}; should be string",
                        other.type_name()
                    ));
                }
            },
            v if v.is_nil() => return fail("index of untyped nil"),
            other => return fail(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(item)
}

pub(crate) fn slice(args: &[Val]) -> FnResult {
    let len = match &args[0] {
        Val::Json(Value::Array(a)) => a.len(),
        Val::Json(Value::String(s)) => s.len(),
        v if v.is_nil() => return fail("slice of untyped nil"),
        other => return fail(format!("can't slice item of type {}", other.type_name())),
    };
    if args.len() > 3 {
        return fail(format!("too many slice indexes: {}", args.len() - 1));
    }
    let mut bounds = [0, len];
    for (k, i) in (1..args.len()).enumerate() {
        let n = int_arg(args, i).or_else(|_| {
            fail(format!(
                "cannot index slice/array with type {}",
                args[i].type_name()
            ))
        })?;
        if n < 0 || n as usize > len {
            return fail(format!("index out of range: {n}"));
        }
        bounds[k] = n as usize;
    }
    if bounds[0] > bounds[1] {
        return fail(format!(
            "invalid slice index: {} > {}",
            bounds[0], bounds[1]
        ));
    }
    Ok(match &args[0] {
        Val::Json(Value::Array(a)) => Val::Json(Value::Array(a[bounds[0]..bounds[1]].to_vec())),
        Val::Json(Value::String(s)) => match s.get(bounds[0]..bounds[1]) {
            Some(sub) => Val::str(sub),
            None => return fail("slice splits a UTF-8 character"),
        },
        _ => Val::Missing,
    })
}

fn is_string(v: &Val) -> bool {
    matches!(v, Val::Json(Value::String(_)))
}

/// fmt.Sprint: operands separated by a space when neither is a string.
pub(crate) fn sprint(args: &[Val]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !is_string(a) && !is_string(&args[i - 1]) {
            out.push(' ');
        }
        out.push_str(&to_go_string(a));
    }
    out
}

pub(crate) fn print(args: &[Val]) -> FnResult {
    Ok(Val::str(sprint(args)))
}

pub(crate) fn println(args: &[Val]) -> FnResult {
    let parts: Vec<String> = args.iter().map(to_go_string).collect();
    Ok(Val::str(parts.join(" ") + "\n"))
}

/// The text html, js and urlquery escape: one string argument as it is, else fmt.Sprint.
fn eval_args(args: &[Val]) -> String {
    match args {
        [Val::Json(Value::String(s))] => s.clone(),
        _ => sprint(args),
    }
}

pub(crate) fn html(args: &[Val]) -> FnResult {
    let s = eval_args(args);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Ok(Val::str(out))
}

pub(crate) fn js(args: &[Val]) -> FnResult {
    let s = eval_args(args);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 || c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    Ok(Val::str(out))
}

/// url.QueryEscape.
pub(crate) fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

pub(crate) fn urlquery(args: &[Val]) -> FnResult {
    Ok(Val::str(query_escape(&eval_args(args))))
}

#[derive(PartialEq)]
enum Kind {
    Nil,
    Bool,
    Number,
    String,
    Other,
}

fn kind(v: &Val) -> Kind {
    match v {
        Val::Missing | Val::Json(Value::Null) => Kind::Nil,
        Val::Json(Value::Bool(_)) => Kind::Bool,
        Val::Json(Value::Number(_)) => Kind::Number,
        Val::Json(Value::String(_)) => Kind::String,
        _ => Kind::Other,
    }
}

const BAD_COMPARISON: &str = "incompatible types for comparison";
const BAD_COMPARISON_TYPE: &str = "invalid type for comparison";

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) => x == y,
        _ => a.as_f64() == b.as_f64(),
    }
}

/// Go's eq: true when the first argument equals any of the others. Integers and floats compare
/// by value (Go refuses to compare an int with a float64).
pub(crate) fn eq(args: &[Val]) -> FnResult {
    if args.len() < 2 {
        return fail("missing argument for comparison");
    }
    let a = &args[0];
    let ka = kind(a);
    if ka == Kind::Other {
        return fail(format!(
            "non-comparable type {}: {}",
            to_go_string(a),
            a.type_name()
        ));
    }
    for b in &args[1..] {
        let kb = kind(b);
        let equal = match (&ka, &kb) {
            (Kind::Nil, Kind::Nil) => true,
            (Kind::Nil, _) | (_, Kind::Nil) => false,
            _ if ka != kb => {
                if kb == Kind::Other {
                    return fail(format!(
                        "non-comparable type {}: {}",
                        to_go_string(b),
                        b.type_name()
                    ));
                }
                return fail(BAD_COMPARISON);
            }
            (Kind::Number, _) => numbers_equal(
                a.as_json().unwrap_or(&Value::Null),
                b.as_json().unwrap_or(&Value::Null),
            ),
            _ => a == b,
        };
        if equal {
            return Ok(Val::bool(true));
        }
    }
    Ok(Val::bool(false))
}

pub(crate) fn ne(args: &[Val]) -> FnResult {
    let equal = eq(args)?;
    Ok(Val::bool(!equal.truthy()))
}

fn compare(a: &Val, b: &Val) -> Result<Ordering, super::FnError> {
    let (ka, kb) = (kind(a), kind(b));
    if matches!(ka, Kind::Nil | Kind::Bool | Kind::Other)
        || matches!(kb, Kind::Nil | Kind::Bool | Kind::Other)
    {
        return fail(BAD_COMPARISON_TYPE);
    }
    if ka != kb {
        return fail(BAD_COMPARISON);
    }
    match (a, b) {
        (Val::Json(Value::String(x)), Val::Json(Value::String(y))) => Ok(x.cmp(y)),
        (Val::Json(Value::Number(x)), Val::Json(Value::Number(y))) => {
            match (x.as_i64(), y.as_i64()) {
                (Some(x), Some(y)) => Ok(x.cmp(&y)),
                _ => Ok(x
                    .as_f64()
                    .partial_cmp(&y.as_f64())
                    .unwrap_or(Ordering::Equal)),
            }
        }
        _ => fail(BAD_COMPARISON_TYPE),
    }
}

pub(crate) fn lt(args: &[Val]) -> FnResult {
    Ok(Val::bool(compare(&args[0], &args[1])? == Ordering::Less))
}

pub(crate) fn le(args: &[Val]) -> FnResult {
    Ok(Val::bool(compare(&args[0], &args[1])? != Ordering::Greater))
}

pub(crate) fn gt(args: &[Val]) -> FnResult {
    Ok(Val::bool(compare(&args[0], &args[1])? == Ordering::Greater))
}

pub(crate) fn ge(args: &[Val]) -> FnResult {
    Ok(Val::bool(compare(&args[0], &args[1])? != Ordering::Less))
}
