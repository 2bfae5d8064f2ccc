//! Go's `fmt.Sprintf` for template values: flags `+ - # 0 space`, width and precision (`*`
//! too), verbs `v s d f F e E g G t q x X o b c U %`, and Go's `%!d(string=x)` marks for a
//! verb that does not fit its argument, a missing one or extra ones.

use std::fmt::Write as _;

use serde_json::Value;

use super::{FnResult, str_arg};
use crate::value::{Val, format_float, to_go_string};

pub(crate) fn printf(args: &[Val]) -> FnResult {
    let format = str_arg(args, 0)?;
    Ok(Val::str(sprintf(format, &args[1..])))
}

#[derive(Default)]
struct Spec {
    plus: bool,
    minus: bool,
    sharp: bool,
    zero: bool,
    space: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

pub(crate) fn sprintf(format: &str, args: &[Val]) -> String {
    let mut out = String::new();
    let mut next = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '+' => spec.plus = true,
                '-' => spec.minus = true,
                '#' => spec.sharp = true,
                '0' => spec.zero = true,
                ' ' => spec.space = true,
                _ => break,
            }
            chars.next();
        }
        spec.width = number_or_star(&mut chars, args, &mut next);
        if chars.peek() == Some(&'.') {
            chars.next();
            spec.precision = Some(number_or_star(&mut chars, args, &mut next).unwrap_or(0));
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(next) else {
            let _ = write!(out, "%!{verb}(MISSING)");
            continue;
        };
        next += 1;
        let text = format_one(verb, &spec, arg);
        out.push_str(&pad(text, &spec, verb));
    }
    if next < args.len() {
        out.push_str("%!(EXTRA ");
        let extra: Vec<String> = args[next..]
            .iter()
            .map(|a| format!("{}={}", a.type_name(), to_go_string(a)))
            .collect();
        out.push_str(&extra.join(", "));
        out.push(')');
    }
    out
}

fn number_or_star(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    args: &[Val],
    next: &mut usize,
) -> Option<usize> {
    if chars.peek() == Some(&'*') {
        chars.next();
        let n = args
            .get(*next)
            .and_then(|a| a.as_json())
            .and_then(Value::as_i64);
        *next += 1;
        return n.map(|n| n.max(0) as usize);
    }
    let mut n: Option<usize> = None;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        n = Some(
            n.unwrap_or(0)
                .saturating_mul(10)
                .saturating_add(d as usize)
                .min(1 << 16),
        );
        chars.next();
    }
    n
}

fn bad(verb: char, arg: &Val) -> String {
    if arg.is_nil() {
        format!("%!{verb}(<nil>)")
    } else {
        format!("%!{verb}({}={})", arg.type_name(), to_go_string(arg))
    }
}

fn sign(neg: bool, spec: &Spec) -> &'static str {
    if neg {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn format_int(verb: char, spec: &Spec, i: i128) -> Option<String> {
    let neg = i < 0;
    let a = i.unsigned_abs();
    let digits = match verb {
        'd' | 'v' => a.to_string(),
        'x' => format!("{}{a:x}", if spec.sharp { "0x" } else { "" }),
        'X' => format!("{}{a:X}", if spec.sharp { "0X" } else { "" }),
        'o' => format!("{}{a:o}", if spec.sharp { "0" } else { "" }),
        'b' => format!("{a:b}"),
        'c' => return char::from_u32(u32::try_from(i).ok()?).map(String::from),
        'q' => return char::from_u32(u32::try_from(i).ok()?).map(|c| format!("{c:?}")),
        'U' => return Some(format!("U+{a:04X}")),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => return format_float_verb(verb, spec, i as f64),
        _ => return None,
    };
    let digits = match spec.precision {
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    };
    Some(format!("{}{digits}", sign(neg, spec)))
}

fn format_float_verb(verb: char, spec: &Spec, f: f64) -> Option<String> {
    let neg = f.is_sign_negative() && f != 0.0;
    let a = f.abs();
    let body = match verb {
        'v' | 'g' | 'G' => match spec.precision {
            None => format_float(a),
            Some(p) => go_g(a, p.max(1)),
        },
        'f' | 'F' => format!("{:.*}", spec.precision.unwrap_or(6), a),
        'e' | 'E' => go_e(a, spec.precision.unwrap_or(6)),
        'd' if a.fract() == 0.0 => format!("{a:.0}"),
        _ => return None,
    };
    let body = if verb.is_ascii_uppercase() {
        body.to_uppercase()
    } else {
        body
    };
    Some(format!("{}{body}", sign(neg, spec)))
}

/// `%.Ne`: Rust writes `1.5e3`, Go `1.5e+03`.
fn go_e(a: f64, precision: usize) -> String {
    let s = format!("{:.*e}", precision, a);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%.Ng`: N significant digits, exponent form when the exponent is below -4 or at least N.
fn go_g(a: f64, precision: usize) -> String {
    if a == 0.0 {
        return "0".into();
    }
    let e = go_e(a, precision - 1);
    let exp: i32 = e
        .rsplit_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    if exp < -4 || exp >= precision as i32 {
        let (m, x) = e.split_once('e').unwrap_or((&e, ""));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        format!("{m}e{x}")
    } else {
        let decimals = (precision as i32 - 1 - exp).max(0) as usize;
        let s = format!("{:.*}", decimals, a);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

fn quote(s: &str) -> String {
    crate::funcs::sprig::go_quote(s)
}

fn format_one(verb: char, spec: &Spec, arg: &Val) -> String {
    let text = match arg {
        Val::Json(Value::Number(n)) => {
            if let Some(i) = n.as_i64() {
                format_int(verb, spec, i128::from(i))
            } else if let Some(u) = n.as_u64() {
                format_int(verb, spec, i128::from(u))
            } else {
                format_float_verb(verb, spec, n.as_f64().unwrap_or(0.0))
            }
        }
        Val::Json(Value::String(s)) => match verb {
            'v' | 's' => Some(match spec.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s.clone(),
            }),
            'q' => Some(quote(s)),
            'x' => Some(s.bytes().map(|b| format!("{b:02x}")).collect()),
            'X' => Some(s.bytes().map(|b| format!("{b:02X}")).collect()),
            _ => None,
        },
        Val::Json(Value::Bool(b)) => matches!(verb, 'v' | 't').then(|| b.to_string()),
        Val::Json(Value::Array(a)) if verb != 'T' => {
            let parts: Vec<String> = a
                .iter()
                .map(|e| format_one(verb, spec, &Val::Json(e.clone())))
                .collect();
            Some(format!("[{}]", parts.join(" ")))
        }
        Val::Json(Value::Object(_)) | Val::Time(_) if matches!(verb, 'v' | 's') => {
            Some(to_go_string(arg))
        }
        Val::Missing | Val::Json(Value::Null) if verb == 'v' => Some("<nil>".into()),
        _ => None,
    };
    if verb == 'T' {
        return arg.type_name().to_string();
    }
    text.unwrap_or_else(|| bad(verb, arg))
}

fn pad(text: String, spec: &Spec, verb: char) -> String {
    let Some(width) = spec.width else { return text };
    let len = text.chars().count();
    if len >= width {
        return text;
    }
    let fill = width - len;
    if spec.minus {
        return format!("{text}{}", " ".repeat(fill));
    }
    let numeric = matches!(
        verb,
        'd' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'x' | 'X' | 'o' | 'b'
    );
    if spec.zero && numeric {
        let (sign, digits) = match text.chars().next() {
            Some(c @ ('-' | '+' | ' ')) => (c.to_string(), text[1..].to_string()),
            _ => (String::new(), text.clone()),
        };
        return format!("{sign}{}{digits}", "0".repeat(fill));
    }
    format!("{}{text}", " ".repeat(fill))
}
