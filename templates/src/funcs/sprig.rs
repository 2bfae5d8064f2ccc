//! The Sprig functions playbooks and notifications use, with Sprig's semantics (argument order:
//! the piped value comes last, as in `{{ .name | trimPrefix "x-" }}`).

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::convert::{strslice, to_f64, to_i64};
use super::{FnError, FnResult, fail, int_arg, list_arg, str_arg};
use crate::value::{Val, strval};

/// Sprig's `empty`: nil, false, 0, "" and empty lists and maps.
fn is_empty(v: &Val) -> bool {
    !v.truthy()
}

pub(crate) fn default(args: &[Val]) -> FnResult {
    match args.get(1) {
        Some(given) if !is_empty(given) => Ok(given.clone()),
        _ => Ok(args[0].clone()),
    }
}

pub(crate) fn empty(args: &[Val]) -> FnResult {
    Ok(Val::bool(is_empty(&args[0])))
}

pub(crate) fn coalesce(args: &[Val]) -> FnResult {
    Ok(args
        .iter()
        .find(|a| !is_empty(a))
        .cloned()
        .unwrap_or(Val::Json(Value::Null)))
}

pub(crate) fn ternary(args: &[Val]) -> FnResult {
    let cond = match &args[2] {
        Val::Json(Value::Bool(b)) => *b,
        other if other.is_nil() => return Err(FnError::Arg("invalid value; expected bool".into())),
        other => {
            return Err(FnError::Arg(format!(
                "wrong type for value; expected bool; got {}",
                other.type_name()
            )));
        }
    };
    Ok(if cond {
        args[0].clone()
    } else {
        args[1].clone()
    })
}

pub(crate) fn upper(args: &[Val]) -> FnResult {
    Ok(Val::str(str_arg(args, 0)?.to_uppercase()))
}

pub(crate) fn lower(args: &[Val]) -> FnResult {
    Ok(Val::str(str_arg(args, 0)?.to_lowercase()))
}

/// strings.Title: the first letter of each word upper-cased.
pub(crate) fn title(args: &[Val]) -> FnResult {
    let s = str_arg(args, 0)?;
    let mut out = String::with_capacity(s.len());
    let mut prev_separator = true;
    for c in s.chars() {
        if prev_separator {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_separator = !(c.is_alphanumeric() || c == '_');
    }
    Ok(Val::str(out))
}

pub(crate) fn trim(args: &[Val]) -> FnResult {
    Ok(Val::str(str_arg(args, 0)?.trim()))
}

pub(crate) fn trim_prefix(args: &[Val]) -> FnResult {
    let (prefix, s) = (str_arg(args, 0)?, str_arg(args, 1)?);
    Ok(Val::str(s.strip_prefix(prefix).unwrap_or(s)))
}

pub(crate) fn trim_suffix(args: &[Val]) -> FnResult {
    let (suffix, s) = (str_arg(args, 0)?, str_arg(args, 1)?);
    Ok(Val::str(s.strip_suffix(suffix).unwrap_or(s)))
}

pub(crate) fn trim_all(args: &[Val]) -> FnResult {
    let (cutset, s) = (str_arg(args, 0)?, str_arg(args, 1)?);
    Ok(Val::str(s.trim_matches(|c| cutset.contains(c))))
}

pub(crate) fn contains(args: &[Val]) -> FnResult {
    Ok(Val::bool(str_arg(args, 1)?.contains(str_arg(args, 0)?)))
}

pub(crate) fn has_prefix(args: &[Val]) -> FnResult {
    Ok(Val::bool(str_arg(args, 1)?.starts_with(str_arg(args, 0)?)))
}

pub(crate) fn has_suffix(args: &[Val]) -> FnResult {
    Ok(Val::bool(str_arg(args, 1)?.ends_with(str_arg(args, 0)?)))
}

pub(crate) fn replace(args: &[Val]) -> FnResult {
    let (old, new, s) = (str_arg(args, 0)?, str_arg(args, 1)?, str_arg(args, 2)?);
    Ok(Val::str(s.replace(old, new)))
}

pub(crate) fn repeat(args: &[Val]) -> FnResult {
    let (count, s) = (int_arg(args, 0)?, str_arg(args, 1)?);
    if count < 0 {
        return fail("strings: negative Repeat count");
    }
    let total = (count as u128) * (s.len() as u128);
    if total > crate::MAX_OUTPUT_BYTES as u128 {
        return fail(format!(
            "the result would be larger than the limit of {} bytes",
            crate::MAX_OUTPUT_BYTES
        ));
    }
    Ok(Val::str(s.repeat(count as usize)))
}

/// A byte range of a string, widened to character boundaries.
fn byte_slice(s: &str, start: usize, end: usize) -> &str {
    let mut start = start.min(s.len());
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = end.clamp(start, s.len());
    while !s.is_char_boundary(end) {
        end += 1;
    }
    &s[start..end]
}

pub(crate) fn substr(args: &[Val]) -> FnResult {
    let (start, end, s) = (int_arg(args, 0)?, int_arg(args, 1)?, str_arg(args, 2)?);
    let len = s.len() as i64;
    Ok(Val::str(if start < 0 {
        byte_slice(s, 0, end.max(0) as usize)
    } else if end < 0 || end > len {
        byte_slice(s, start as usize, s.len())
    } else {
        byte_slice(s, start as usize, end as usize)
    }))
}

pub(crate) fn trunc(args: &[Val]) -> FnResult {
    let (c, s) = (int_arg(args, 0)?, str_arg(args, 1)?);
    let len = s.len() as i64;
    Ok(Val::str(if c < 0 && len + c > 0 {
        byte_slice(s, (len + c) as usize, s.len())
    } else if c >= 0 && len > c {
        byte_slice(s, 0, c as usize)
    } else {
        s
    }))
}

pub(crate) fn abbrev(args: &[Val]) -> FnResult {
    let (width, s) = (int_arg(args, 0)?, str_arg(args, 1)?);
    if width < 4 || s.len() as i64 <= width {
        return Ok(Val::str(s));
    }
    Ok(Val::str(format!(
        "{}...",
        byte_slice(s, 0, (width - 3) as usize)
    )))
}

/// strconv.Quote.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() || c == '\u{FEFF}' || c == '\u{200B}' => {
                if (c as u32) < 0x10000 {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                } else {
                    let _ = write!(out, "\\U{:08x}", c as u32);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub(crate) fn quote(args: &[Val]) -> FnResult {
    let parts: Vec<String> = args
        .iter()
        .filter(|a| !a.is_nil())
        .map(|a| go_quote(&strval(a)))
        .collect();
    Ok(Val::str(parts.join(" ")))
}

pub(crate) fn squote(args: &[Val]) -> FnResult {
    let parts: Vec<String> = args
        .iter()
        .filter(|a| !a.is_nil())
        .map(|a| format!("'{}'", strval(a)))
        .collect();
    Ok(Val::str(parts.join(" ")))
}

pub(crate) fn cat(args: &[Val]) -> FnResult {
    let parts: Vec<String> = args.iter().filter(|a| !a.is_nil()).map(strval).collect();
    Ok(Val::str(parts.join(" ")))
}

pub(crate) fn indent(args: &[Val]) -> FnResult {
    let (n, s) = (int_arg(args, 0)?, str_arg(args, 1)?);
    let pad = " ".repeat(n.clamp(0, 1024) as usize);
    Ok(Val::str(format!(
        "{pad}{}",
        s.replace('\n', &format!("\n{pad}"))
    )))
}

pub(crate) fn nindent(args: &[Val]) -> FnResult {
    let indented = indent(args)?;
    Ok(Val::str(format!("\n{}", strval(&indented))))
}

pub(crate) fn join(args: &[Val]) -> FnResult {
    let sep = str_arg(args, 0)?;
    Ok(Val::str(strslice(&args[1]).join(sep)))
}

pub(crate) fn split(args: &[Val]) -> FnResult {
    let (sep, s) = (str_arg(args, 0)?, str_arg(args, 1)?);
    let map: Map<String, Value> = s
        .split(sep)
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), Value::String(p.into())))
        .collect();
    Ok(Val::Json(Value::Object(map)))
}

pub(crate) fn split_list(args: &[Val]) -> FnResult {
    let (sep, s) = (str_arg(args, 0)?, str_arg(args, 1)?);
    Ok(Val::Json(Value::Array(
        s.split(sep).map(|p| Value::String(p.into())).collect(),
    )))
}

pub(crate) fn to_string(args: &[Val]) -> FnResult {
    Ok(Val::str(strval(&args[0])))
}

/// Floats with an integral value as integers, as Go's encoding/json writes them (`1`, not `1.0`).
fn integral_floats(v: Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => {
                Value::Number((f as i64).into())
            }
            _ => Value::Number(n),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(integral_floats).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, integral_floats(v)))
                .collect(),
        ),
        other => other,
    }
}

/// json.Marshal escapes <, > and & for HTML.
fn go_json(v: Value, pretty: bool) -> Result<String, FnError> {
    let v = integral_floats(v);
    let s = if pretty {
        serde_json::to_string_pretty(&v)
    } else {
        serde_json::to_string(&v)
    };
    let s = s.or_else(|e| fail(e.to_string()))?;
    Ok(s.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026"))
}

pub(crate) fn to_json(args: &[Val]) -> FnResult {
    Ok(Val::str(go_json(args[0].clone().into_json(), false)?))
}

pub(crate) fn to_pretty_json(args: &[Val]) -> FnResult {
    Ok(Val::str(go_json(args[0].clone().into_json(), true)?))
}

/// Sprig's fromJson: nil when the text is not JSON.
pub(crate) fn from_json(args: &[Val]) -> FnResult {
    Ok(Val::Json(
        serde_json::from_str(str_arg(args, 0)?).unwrap_or(Value::Null),
    ))
}

pub(crate) fn to_yaml(args: &[Val]) -> FnResult {
    let yaml = yaml_serde::to_string(&args[0].clone().into_json()).unwrap_or_default();
    Ok(Val::str(yaml.strip_suffix('\n').unwrap_or(&yaml)))
}

pub(crate) fn b64enc(args: &[Val]) -> FnResult {
    Ok(Val::str(
        base64::engine::general_purpose::STANDARD.encode(strval(&args[0])),
    ))
}

/// Sprig's b64dec: the error's text when the input is not base64.
pub(crate) fn b64dec(args: &[Val]) -> FnResult {
    Ok(Val::str(
        match base64::engine::general_purpose::STANDARD.decode(strval(&args[0])) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => e.to_string(),
        },
    ))
}

pub(crate) fn sha256sum(args: &[Val]) -> FnResult {
    let digest = Sha256::digest(str_arg(args, 0)?.as_bytes());
    Ok(Val::str(digest.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })))
}

pub(crate) fn list(args: &[Val]) -> FnResult {
    Ok(Val::Json(Value::Array(
        args.iter().map(|a| a.clone().into_json()).collect(),
    )))
}

pub(crate) fn dict(args: &[Val]) -> FnResult {
    let mut map = Map::new();
    for pair in args.chunks(2) {
        let value = pair
            .get(1)
            .map_or(Value::String(String::new()), |v| v.clone().into_json());
        map.insert(strval(&pair[0]), value);
    }
    Ok(Val::Json(Value::Object(map)))
}

fn map_arg(args: &[Val], i: usize) -> Result<&Map<String, Value>, FnError> {
    match &args[i] {
        Val::Json(Value::Object(m)) => Ok(m),
        other if other.is_nil() => Err(FnError::Arg(
            "invalid value; expected map[string]interface {}".into(),
        )),
        other => Err(FnError::Arg(format!(
            "wrong type for value; expected map[string]interface {{}}; got {}",
            other.type_name()
        ))),
    }
}

pub(crate) fn get(args: &[Val]) -> FnResult {
    let (map, key) = (map_arg(args, 0)?, str_arg(args, 1)?);
    Ok(map.get(key).cloned().map_or(Val::str(""), Val::Json))
}

pub(crate) fn set(args: &[Val]) -> FnResult {
    let mut map = map_arg(args, 0)?.clone();
    map.insert(str_arg(args, 1)?.to_string(), args[2].clone().into_json());
    Ok(Val::Json(Value::Object(map)))
}

/// The keys of one or more maps, sorted (Go's map order is random).
pub(crate) fn keys(args: &[Val]) -> FnResult {
    let mut keys = Vec::new();
    for i in 0..args.len() {
        keys.extend(map_arg(args, i)?.keys().cloned().map(Value::String));
    }
    keys.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    Ok(Val::Json(Value::Array(keys)))
}

pub(crate) fn has_key(args: &[Val]) -> FnResult {
    Ok(Val::bool(map_arg(args, 0)?.contains_key(str_arg(args, 1)?)))
}

pub(crate) fn pluck(args: &[Val]) -> FnResult {
    let key = str_arg(args, 0)?;
    let mut out = Vec::new();
    for i in 1..args.len() {
        if let Some(v) = map_arg(args, i)?.get(key) {
            out.push(v.clone());
        }
    }
    Ok(Val::Json(Value::Array(out)))
}

pub(crate) fn first(args: &[Val]) -> FnResult {
    Ok(list_arg(args, 0)?
        .into_iter()
        .next()
        .map_or(Val::Json(Value::Null), Val::Json))
}

pub(crate) fn last(args: &[Val]) -> FnResult {
    Ok(list_arg(args, 0)?
        .pop()
        .map_or(Val::Json(Value::Null), Val::Json))
}

pub(crate) fn uniq(args: &[Val]) -> FnResult {
    let mut out: Vec<Value> = Vec::new();
    for v in list_arg(args, 0)? {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(Val::Json(Value::Array(out)))
}

pub(crate) fn sort_alpha(args: &[Val]) -> FnResult {
    let mut items = strslice(&args[0]);
    items.sort();
    Ok(Val::Json(Value::Array(
        items.into_iter().map(Value::String).collect(),
    )))
}

pub(crate) fn add(args: &[Val]) -> FnResult {
    Ok(Val::int(
        args.iter().fold(0i64, |a, b| a.wrapping_add(to_i64(b))),
    ))
}

pub(crate) fn sub(args: &[Val]) -> FnResult {
    Ok(Val::int(to_i64(&args[0]).wrapping_sub(to_i64(&args[1]))))
}

pub(crate) fn mul(args: &[Val]) -> FnResult {
    Ok(Val::int(
        args.iter().fold(1i64, |a, b| a.wrapping_mul(to_i64(b))),
    ))
}

pub(crate) fn div(args: &[Val]) -> FnResult {
    let (a, b) = (to_i64(&args[0]), to_i64(&args[1]));
    match a.checked_div(b) {
        Some(v) => Ok(Val::int(v)),
        None => fail("runtime error: integer divide by zero"),
    }
}

pub(crate) fn modulo(args: &[Val]) -> FnResult {
    let (a, b) = (to_i64(&args[0]), to_i64(&args[1]));
    match a.checked_rem(b) {
        Some(v) => Ok(Val::int(v)),
        None => fail("runtime error: integer divide by zero"),
    }
}

pub(crate) fn max(args: &[Val]) -> FnResult {
    Ok(Val::int(args.iter().map(to_i64).max().unwrap_or(0)))
}

pub(crate) fn min(args: &[Val]) -> FnResult {
    Ok(Val::int(args.iter().map(to_i64).min().unwrap_or(0)))
}

pub(crate) fn int(args: &[Val]) -> FnResult {
    Ok(Val::int(to_i64(&args[0])))
}

pub(crate) fn float64(args: &[Val]) -> FnResult {
    Ok(Val::float(to_f64(&args[0])))
}

/// strconv.Atoi, 0 when the text is not a decimal integer.
pub(crate) fn atoi(args: &[Val]) -> FnResult {
    Ok(Val::int(str_arg(args, 0)?.parse().unwrap_or(0)))
}

fn regex(pattern: &str) -> Result<regex::Regex, FnError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .or_else(|e| fail(format!("error parsing regexp: {e}")))
}

pub(crate) fn regex_match(args: &[Val]) -> FnResult {
    let (pattern, s) = (str_arg(args, 0)?, str_arg(args, 1)?);
    Ok(Val::bool(regex(pattern)?.is_match(s)))
}

pub(crate) fn regex_find(args: &[Val]) -> FnResult {
    let (pattern, s) = (str_arg(args, 0)?, str_arg(args, 1)?);
    Ok(Val::str(regex(pattern)?.find(s).map_or("", |m| m.as_str())))
}

/// Regexp.ReplaceAllString: `$1` and `${name}` in the replacement expand.
pub(crate) fn regex_replace_all(args: &[Val]) -> FnResult {
    let (pattern, s, repl) = (str_arg(args, 0)?, str_arg(args, 1)?, str_arg(args, 2)?);
    Ok(Val::str(regex(pattern)?.replace_all(s, repl).into_owned()))
}

pub(crate) fn uuidv4(_: &[Val]) -> FnResult {
    Ok(Val::str(uuid::Uuid::new_v4().to_string()))
}
