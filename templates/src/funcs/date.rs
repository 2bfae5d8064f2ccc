//! Dates with Go's reference-time layouts ("2006-01-02T15:04:05Z07:00") and durations. Go's
//! `Local` zone is UTC here.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use serde_json::Value;

use super::convert::to_i64;
use super::{FnError, FnResult, str_arg};
use crate::value::Val;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Std {
    Year,
    Year2,
    Month,
    MonthPadded,
    MonthShort,
    MonthLong,
    Day,
    DayPadded,
    DaySpace,
    YearDay,
    Hour,
    Hour12,
    Hour12Padded,
    Minute,
    MinutePadded,
    Second,
    SecondPadded,
    PmUpper,
    PmLower,
    WeekdayShort,
    WeekdayLong,
    ZoneName,
    /// `-0700`, `-07:00`, `-07`; with `Z`, UTC prints `Z`.
    Offset {
        colon: bool,
        minutes: bool,
        z: bool,
    },
    /// `.000` (fixed digits) or `.999` (trailing zeros dropped).
    Fraction {
        digits: usize,
        trim: bool,
    },
}

enum Chunk {
    Lit(String),
    Std(Std),
}

const TOKENS: &[(&str, Std)] = &[
    ("January", Std::MonthLong),
    ("Jan", Std::MonthShort),
    ("Monday", Std::WeekdayLong),
    ("Mon", Std::WeekdayShort),
    ("MST", Std::ZoneName),
    ("2006", Std::Year),
    ("002", Std::YearDay),
    ("01", Std::MonthPadded),
    ("02", Std::DayPadded),
    ("03", Std::Hour12Padded),
    ("04", Std::MinutePadded),
    ("05", Std::SecondPadded),
    ("06", Std::Year2),
    ("_2", Std::DaySpace),
    ("15", Std::Hour),
    ("1", Std::Month),
    ("2", Std::Day),
    ("3", Std::Hour12),
    ("4", Std::Minute),
    ("5", Std::Second),
    ("PM", Std::PmUpper),
    ("pm", Std::PmLower),
    (
        "Z07:00",
        Std::Offset {
            colon: true,
            minutes: true,
            z: true,
        },
    ),
    (
        "Z0700",
        Std::Offset {
            colon: false,
            minutes: true,
            z: true,
        },
    ),
    (
        "Z07",
        Std::Offset {
            colon: false,
            minutes: false,
            z: true,
        },
    ),
    (
        "-07:00",
        Std::Offset {
            colon: true,
            minutes: true,
            z: false,
        },
    ),
    (
        "-0700",
        Std::Offset {
            colon: false,
            minutes: true,
            z: false,
        },
    ),
    (
        "-07",
        Std::Offset {
            colon: false,
            minutes: false,
            z: false,
        },
    ),
];

fn chunks(layout: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut rest = layout;
    'outer: while !rest.is_empty() {
        // Fractional seconds: "." or "," then a run of 0s or 9s not followed by a digit.
        if rest.starts_with(['.', ',']) {
            let run = rest[1..]
                .bytes()
                .take_while(|&b| b == rest.as_bytes()[1])
                .count();
            let digit = rest.as_bytes().get(1).copied();
            if run > 0
                && matches!(digit, Some(b'0' | b'9'))
                && !rest[1 + run..].starts_with(|c: char| c.is_ascii_digit())
            {
                if !lit.is_empty() {
                    out.push(Chunk::Lit(std::mem::take(&mut lit)));
                }
                out.push(Chunk::Std(Std::Fraction {
                    digits: run,
                    trim: digit == Some(b'9'),
                }));
                rest = &rest[1 + run..];
                continue;
            }
        }
        for (token, std) in TOKENS {
            if let Some(after) = rest.strip_prefix(token) {
                // "Jan" and "Mon" are not tokens inside a longer lower-case word ("Monkey").
                let word = matches!(std, Std::MonthShort | Std::WeekdayShort)
                    && after.starts_with(|c: char| c.is_ascii_lowercase());
                if !word {
                    if !lit.is_empty() {
                        out.push(Chunk::Lit(std::mem::take(&mut lit)));
                    }
                    out.push(Chunk::Std(*std));
                    rest = after;
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        lit.push(c);
        rest = &rest[c.len_utf8()..];
    }
    if !lit.is_empty() {
        out.push(Chunk::Lit(lit));
    }
    out
}

/// time.Time.Format.
pub(crate) fn format(t: &DateTime<FixedOffset>, layout: &str) -> String {
    let mut out = String::new();
    for chunk in chunks(layout) {
        let std = match chunk {
            Chunk::Lit(s) => {
                out.push_str(&s);
                continue;
            }
            Chunk::Std(std) => std,
        };
        let hour12 = match t.hour() % 12 {
            0 => 12,
            h => h,
        };
        let piece = match std {
            Std::Year => format!("{:04}", t.year()),
            Std::Year2 => format!("{:02}", t.year().rem_euclid(100)),
            Std::Month => t.month().to_string(),
            Std::MonthPadded => format!("{:02}", t.month()),
            Std::MonthShort => t.format("%b").to_string(),
            Std::MonthLong => t.format("%B").to_string(),
            Std::Day => t.day().to_string(),
            Std::DayPadded => format!("{:02}", t.day()),
            Std::DaySpace => format!("{:>2}", t.day()),
            Std::YearDay => format!("{:03}", t.ordinal()),
            Std::Hour => format!("{:02}", t.hour()),
            Std::Hour12 => hour12.to_string(),
            Std::Hour12Padded => format!("{hour12:02}"),
            Std::Minute => t.minute().to_string(),
            Std::MinutePadded => format!("{:02}", t.minute()),
            Std::Second => t.second().to_string(),
            Std::SecondPadded => format!("{:02}", t.second()),
            Std::PmUpper => (if t.hour() >= 12 { "PM" } else { "AM" }).into(),
            Std::PmLower => (if t.hour() >= 12 { "pm" } else { "am" }).into(),
            Std::WeekdayShort => t.format("%a").to_string(),
            Std::WeekdayLong => t.format("%A").to_string(),
            Std::ZoneName => {
                if t.offset().local_minus_utc() == 0 {
                    "UTC".into()
                } else {
                    t.format("%z").to_string()
                }
            }
            Std::Offset { colon, minutes, z } => {
                let secs = t.offset().local_minus_utc();
                if z && secs == 0 {
                    "Z".into()
                } else {
                    let sign = if secs < 0 { '-' } else { '+' };
                    let (h, m) = (secs.abs() / 3600, secs.abs() / 60 % 60);
                    match (minutes, colon) {
                        (false, _) => format!("{sign}{h:02}"),
                        (true, true) => format!("{sign}{h:02}:{m:02}"),
                        (true, false) => format!("{sign}{h:02}{m:02}"),
                    }
                }
            }
            Std::Fraction { digits, trim } => {
                let nanos = format!("{:09}", t.nanosecond() % 1_000_000_000);
                let mut frac = nanos[..digits.min(9)].to_string();
                if trim {
                    frac = frac.trim_end_matches('0').to_string();
                }
                if frac.is_empty() {
                    String::new()
                } else {
                    format!(".{frac}")
                }
            }
        };
        out.push_str(&piece);
    }
    out
}

/// The layout as a chrono format, for parsing.
fn strftime(layout: &str) -> String {
    let mut out = String::new();
    for chunk in chunks(layout) {
        match chunk {
            Chunk::Lit(s) => out.push_str(&s.replace('%', "%%")),
            Chunk::Std(std) => out.push_str(match std {
                Std::Year => "%Y",
                Std::Year2 => "%y",
                Std::Month | Std::MonthPadded => "%m",
                Std::MonthShort => "%b",
                Std::MonthLong => "%B",
                Std::Day | Std::DayPadded => "%d",
                Std::DaySpace => "%e",
                Std::YearDay => "%j",
                Std::Hour => "%H",
                Std::Hour12 | Std::Hour12Padded => "%I",
                Std::Minute | Std::MinutePadded => "%M",
                Std::Second | Std::SecondPadded => "%S",
                Std::PmUpper | Std::PmLower => "%p",
                Std::WeekdayShort => "%a",
                Std::WeekdayLong => "%A",
                Std::ZoneName => "%Z",
                Std::Offset { colon: true, .. } => "%:z",
                Std::Offset { .. } => "%z",
                Std::Fraction { .. } => "%.f",
            }),
        }
    }
    out
}

fn utc(t: DateTime<Utc>) -> DateTime<FixedOffset> {
    t.fixed_offset()
}

/// time.Parse with Go's layout; `Z` stands for UTC where the layout has `Z07:00`.
pub(crate) fn parse(layout: &str, value: &str) -> Option<DateTime<FixedOffset>> {
    let fmt = strftime(layout);
    let zulu = value.ends_with('Z') && layout.contains("Z07");
    let value_for_parse;
    let (fmt, value) = if zulu {
        value_for_parse = format!("{}+00:00", &value[..value.len() - 1]);
        (fmt, value_for_parse.as_str())
    } else {
        (fmt, value)
    };
    if let Ok(t) = DateTime::parse_from_str(value, &fmt) {
        return Some(t);
    }
    if let Ok(t) = NaiveDateTime::parse_from_str(value, &fmt) {
        return Some(utc(Utc.from_utc_datetime(&t)));
    }
    NaiveDate::parse_from_str(value, &fmt)
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| utc(Utc.from_utc_datetime(&t)))
}

pub(crate) fn now(_: &[Val]) -> FnResult {
    Ok(Val::Time(utc(Utc::now())))
}

/// A time argument: a time, Unix seconds, or nil for now, as Sprig's date accepts; and an
/// RFC 3339 text, as JSON data holds times (Sprig would take the current time).
fn time_arg(v: &Val) -> Result<DateTime<FixedOffset>, FnError> {
    match v {
        Val::Time(t) => Ok(*t),
        v if v.is_nil() => Ok(utc(Utc::now())),
        Val::Json(Value::Number(_)) => Utc
            .timestamp_opt(to_i64(v), 0)
            .single()
            .map(utc)
            .ok_or_else(|| FnError::Call("time out of range".into())),
        Val::Json(Value::String(s)) => DateTime::parse_from_rfc3339(s).map_err(|_| {
            FnError::Arg(format!(
                "wrong type for value; expected time.Time; got string {s:?}"
            ))
        }),
        other => Err(FnError::Arg(format!(
            "wrong type for value; expected time.Time; got {}",
            other.type_name()
        ))),
    }
}

pub(crate) fn date(args: &[Val]) -> FnResult {
    let layout = str_arg(args, 0)?;
    Ok(Val::str(format(&time_arg(&args[1])?, layout)))
}

/// Sprig's toDate: the zero time when the text does not match the layout.
pub(crate) fn to_date(args: &[Val]) -> FnResult {
    let (layout, value) = (str_arg(args, 0)?, str_arg(args, 1)?);
    let zero = NaiveDate::from_ymd_opt(1, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| utc(Utc.from_utc_datetime(&t)));
    match parse(layout, value).or(zero) {
        Some(t) => Ok(Val::Time(t)),
        None => super::fail("time out of range"),
    }
}

pub(crate) fn unix_epoch(args: &[Val]) -> FnResult {
    Ok(Val::str(time_arg(&args[0])?.timestamp().to_string()))
}

/// time.Duration.String of whole seconds: `1h2m3s`, `2m0s`, `45s`, `0s`.
pub(crate) fn duration(args: &[Val]) -> FnResult {
    let secs = to_i64(&args[0]);
    let (sign, a) = (if secs < 0 { "-" } else { "" }, secs.unsigned_abs());
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    Ok(Val::str(if h > 0 {
        format!("{sign}{h}h{m}m{s}s")
    } else if m > 0 {
        format!("{sign}{m}m{s}s")
    } else {
        format!("{sign}{s}s")
    }))
}

/// Seconds as days, hours, minutes and seconds, zero units left out: `1d2h`, `3m5s`, `0s`.
pub(crate) fn humanize_duration(args: &[Val]) -> FnResult {
    let secs = to_i64(&args[0]);
    let (sign, a) = (if secs < 0 { "-" } else { "" }, secs.unsigned_abs());
    let parts = [
        (a / 86_400, 'd'),
        (a / 3600 % 24, 'h'),
        (a / 60 % 60, 'm'),
        (a % 60, 's'),
    ];
    let text: String = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, u)| format!("{n}{u}"))
        .collect();
    Ok(Val::str(if text.is_empty() {
        "0s".into()
    } else {
        format!("{sign}{text}")
    }))
}
