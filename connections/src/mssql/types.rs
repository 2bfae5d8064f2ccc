//! Column types (COLMETADATA's TYPE_INFO) and their values as JSON.
//!
//! Integers, bits and floats are JSON numbers and booleans; DECIMAL, NUMERIC
//! and MONEY are numbers up to 15 significant digits (what an f64 carries
//! exactly) and their decimal text beyond; dates and times without a zone
//! are ISO 8601 without an offset, DATETIMEOFFSET is RFC 3339 with its
//! offset; UNIQUEIDENTIFIER is lowercase text; binary is base64.

use base64::Engine;
use chrono::{Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime};
use serde_json::{Number, Value};

use super::Error;
use super::session::Reply;

/// How a value's length travels.
#[derive(Debug, Clone, Copy)]
enum Length {
    Fixed(usize),
    /// One byte; zero is NULL.
    Byte,
    /// Two bytes; 0xFFFF is NULL.
    UShort,
    /// Partially length-prefixed: the (max) types and XML.
    Plp,
}

#[derive(Debug)]
pub(super) struct Column {
    pub(super) name: String,
    kind: u8,
    length: Length,
    scale: u8,
    collation: Option<Collation>,
}

/// Windows locale (with flags) and SQL sort id, which choose a varchar's code page.
#[derive(Debug, Clone, Copy)]
struct Collation {
    info: u32,
    sort_id: u8,
}

/// Reads one column of COLMETADATA: user type, flags, TYPE_INFO, name.
pub(super) async fn column(reply: &mut Reply<'_>, index: usize) -> Result<Column, Error> {
    reply.take(6).await?;
    let kind = reply.u8().await?;
    let mut scale = 0;
    let mut collation = None;
    let mut unsupported = None;
    let length = match kind {
        0x1F => Length::Fixed(0),
        0x30 | 0x32 => Length::Fixed(1),
        0x34 => Length::Fixed(2),
        0x38 | 0x3A | 0x3B | 0x7A => Length::Fixed(4),
        0x3C | 0x3D | 0x3E | 0x7F => Length::Fixed(8),
        0x24 | 0x26 | 0x68 | 0x6D | 0x6E | 0x6F => {
            reply.u8().await?;
            Length::Byte
        }
        0x6A | 0x6C => {
            reply.take(2).await?; // length, precision
            scale = reply.u8().await?;
            Length::Byte
        }
        0x28 => Length::Byte,
        0x29..=0x2B => {
            scale = reply.u8().await?;
            Length::Byte
        }
        0xA5 | 0xA7 | 0xAD | 0xAF | 0xE7 | 0xEF => {
            let max = reply.u16().await?;
            if matches!(kind, 0xA7 | 0xAF | 0xE7 | 0xEF) {
                let bytes: [u8; 5] = reply.array().await?;
                collation = Some(Collation {
                    info: u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
                    sort_id: bytes[4],
                });
            }
            if max == 0xFFFF {
                Length::Plp
            } else {
                Length::UShort
            }
        }
        0xF1 => {
            if reply.u8().await? == 1 {
                reply.b_varchar().await?;
                reply.b_varchar().await?;
                reply.us_varchar().await?;
            }
            Length::Plp
        }
        0x22 | 0x23 | 0x63 => {
            reply.u32().await?;
            if kind != 0x22 {
                reply.take(5).await?;
            }
            for _ in 0..reply.u8().await? {
                reply.us_varchar().await?;
            }
            unsupported = Some(match kind {
                0x22 => "image",
                0x23 => "text",
                _ => "ntext",
            });
            Length::Fixed(0)
        }
        0x62 => {
            reply.u32().await?;
            unsupported = Some("sql_variant");
            Length::Fixed(0)
        }
        0xF0 => {
            reply.u16().await?;
            for _ in 0..3 {
                reply.b_varchar().await?;
            }
            reply.us_varchar().await?;
            unsupported = Some("a CLR user-defined type");
            Length::Fixed(0)
        }
        other => {
            return Err(Error::Refused(format!(
                "column {} has the TDS type {other:#04x}, which this client does not know",
                index + 1
            )));
        }
    };
    let name = reply.b_varchar().await?;
    if let Some(type_name) = unsupported {
        return Err(Error::Column {
            column: name,
            message: format!("SQL Server type {type_name} is not read by this version"),
        });
    }
    Ok(Column {
        name,
        kind,
        length,
        scale,
        collation,
    })
}

/// Reads one value of `column` from a row.
pub(super) async fn value(reply: &mut Reply<'_>, column: &Column) -> Result<Value, Error> {
    let bytes = match column.length {
        Length::Fixed(0) => return Ok(Value::Null),
        Length::Fixed(n) => reply.take(n).await?.to_vec(),
        Length::Byte => match reply.u8().await? {
            0 => return Ok(Value::Null),
            n => reply.take(usize::from(n)).await?.to_vec(),
        },
        Length::UShort => match reply.u16().await? {
            0xFFFF => return Ok(Value::Null),
            n => reply.take(usize::from(n)).await?.to_vec(),
        },
        Length::Plp => {
            if reply.u64().await? == u64::MAX {
                return Ok(Value::Null);
            }
            let mut data = Vec::new();
            loop {
                let chunk = reply.u32().await?;
                if chunk == 0 {
                    break data;
                }
                let chunk = usize::try_from(chunk).map_err(|_| too_long(column))?;
                data.extend_from_slice(reply.take(chunk).await?);
            }
        }
    };
    if matches!(column.kind, 0xA7 | 0xAF) {
        return narrow_text(column, &bytes);
    }
    decode(column, &bytes).ok_or_else(|| Error::Column {
        column: column.name.clone(),
        message: format!(
            "a value of {} bytes does not fit its type {:#04x}",
            bytes.len(),
            column.kind
        ),
    })
}

fn too_long(column: &Column) -> Error {
    Error::Column {
        column: column.name.clone(),
        message: "a value is longer than this machine can hold".into(),
    }
}

/// The value, or None when its bytes do not fit its type.
fn decode(column: &Column, b: &[u8]) -> Option<Value> {
    Some(match (column.kind, b.len()) {
        (0x30 | 0x26, 1) => Value::from(b[0]),
        (0x34 | 0x26, 2) => Value::from(i16::from_le_bytes(b.try_into().ok()?)),
        (0x38 | 0x26, 4) => Value::from(i32::from_le_bytes(b.try_into().ok()?)),
        (0x7F | 0x26, 8) => Value::from(i64::from_le_bytes(b.try_into().ok()?)),
        (0x32 | 0x68, 1) => Value::Bool(b[0] != 0),
        (0x3B | 0x6D, 4) => float(
            f32::from_le_bytes(b.try_into().ok()?)
                .to_string()
                .parse()
                .ok()?,
        ),
        (0x3E | 0x6D, 8) => float(f64::from_le_bytes(b.try_into().ok()?)),
        (0x7A | 0x6E, 4) => decimal(i128::from(i32::from_le_bytes(b.try_into().ok()?)), 4),
        (0x3C | 0x6E, 8) => {
            // MONEY: the high four bytes first.
            let high = i64::from(i32::from_le_bytes(b[..4].try_into().ok()?));
            let low = i64::from(u32::from_le_bytes(b[4..].try_into().ok()?));
            decimal(i128::from((high << 32) | low), 4)
        }
        (0x6A | 0x6C, 5 | 9 | 13 | 17) => {
            let mut magnitude = [0u8; 16];
            magnitude[..b.len() - 1].copy_from_slice(&b[1..]);
            let magnitude = i128::try_from(u128::from_le_bytes(magnitude)).ok()?;
            let sign = if b[0] == 0 { -1 } else { 1 };
            decimal(sign * magnitude, column.scale)
        }
        (0x3A | 0x6F, 4) => {
            let days = u16::from_le_bytes([b[0], b[1]]);
            let minutes = u16::from_le_bytes([b[2], b[3]]);
            naive(
                epoch_1900()?
                    .checked_add_signed(Duration::days(i64::from(days)))?
                    .and_time(NaiveTime::from_num_seconds_from_midnight_opt(
                        u32::from(minutes) * 60,
                        0,
                    )?),
            )
        }
        (0x3D | 0x6F, 8) => {
            let days = i32::from_le_bytes(b[..4].try_into().ok()?);
            let ticks = u32::from_le_bytes(b[4..].try_into().ok()?);
            // 1/300 s ticks, rounded to the millisecond as SQL Server shows them.
            let millis = (u64::from(ticks) * 10 + 1) / 3;
            naive(
                epoch_1900()?
                    .checked_add_signed(Duration::days(i64::from(days)))?
                    .and_hms_opt(0, 0, 0)?
                    .checked_add_signed(Duration::milliseconds(i64::try_from(millis).ok()?))?,
            )
        }
        (0x28, 3) => Value::String(date(b)?.format("%Y-%m-%d").to_string()),
        (0x29, _) => Value::String(time(b, column.scale)?.format("%H:%M:%S%.f").to_string()),
        (0x2A, n) if n > 3 => naive(date(&b[n - 3..])?.and_time(time(&b[..n - 3], column.scale)?)),
        (0x2B, n) if n > 5 => {
            let utc = date(&b[n - 5..n - 2])?.and_time(time(&b[..n - 5], column.scale)?);
            let minutes = i16::from_le_bytes([b[n - 2], b[n - 1]]);
            let offset = FixedOffset::east_opt(i32::from(minutes) * 60)?;
            Value::String(utc.and_utc().with_timezone(&offset).to_rfc3339())
        }
        (0x24, 16) => Value::String(format!(
            "{:08x}-{:04x}-{:04x}-{}-{}",
            u32::from_le_bytes(b[..4].try_into().ok()?),
            u16::from_le_bytes([b[4], b[5]]),
            u16::from_le_bytes([b[6], b[7]]),
            hex(&b[8..10]),
            hex(&b[10..])
        )),
        (0xE7 | 0xEF | 0xF1, n) if n % 2 == 0 => {
            let text = super::session::utf16(b);
            // XML may start with a byte order mark.
            Value::String(text.strip_prefix('\u{FEFF}').unwrap_or(&text).to_owned())
        }
        (0xA5 | 0xAD, _) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
        _ => return None,
    })
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// `unscaled / 10^scale`: a number up to 15 significant digits, its text beyond.
fn decimal(unscaled: i128, scale: u8) -> Value {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    let text = if scale == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    };
    if digits.trim_start_matches('0').len() <= 15
        && let Some(number) = text.parse::<f64>().ok().and_then(Number::from_f64)
    {
        return Value::Number(number);
    }
    Value::String(text)
}

fn epoch_1900() -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(1900, 1, 1)
}

fn naive(t: NaiveDateTime) -> Value {
    Value::String(t.format("%Y-%m-%dT%H:%M:%S%.f").to_string())
}

/// DATE: three bytes, days since 0001-01-01.
fn date(b: &[u8]) -> Option<NaiveDate> {
    let days = u32::from_le_bytes([*b.first()?, *b.get(1)?, *b.get(2)?, 0]);
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(days).ok()? + 1)
}

/// TIME(scale): 10^-scale second units since midnight in three to five bytes.
fn time(b: &[u8], scale: u8) -> Option<NaiveTime> {
    if !(3..=5).contains(&b.len()) || scale > 7 {
        return None;
    }
    let mut units = [0u8; 8];
    units[..b.len()].copy_from_slice(b);
    let nanos = u64::from_le_bytes(units) * 10u64.pow(9 - u32::from(scale));
    NaiveTime::from_num_seconds_from_midnight_opt(
        u32::try_from(nanos / 1_000_000_000).ok()?,
        u32::try_from(nanos % 1_000_000_000).ok()?,
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// VARCHAR and CHAR by their collation: UTF-8 collations, ASCII under any
/// code page, Windows-1252 (Latin1) collations; other code pages are an error
/// of the column rather than guessed.
fn narrow_text(column: &Column, b: &[u8]) -> Result<Value, Error> {
    const UTF8: u32 = 1 << 26;
    let failure = |message: String| Error::Column {
        column: column.name.clone(),
        message,
    };
    let Some(collation) = column.collation else {
        return Err(failure("a text value without a collation".into()));
    };
    if collation.info & UTF8 != 0 {
        return std::str::from_utf8(b)
            .map(|text| Value::String(text.to_owned()))
            .map_err(|_| failure("a value of a UTF-8 collation is not UTF-8".into()));
    }
    if b.is_ascii() {
        return Ok(Value::String(String::from_utf8_lossy(b).into_owned()));
    }
    if is_windows_1252(collation) {
        return Ok(Value::String(b.iter().map(|&c| windows_1252(c)).collect()));
    }
    Err(failure(format!(
        "its collation (locale {:#06x}, sort id {}) uses a code page this version does not \
         decode: cast the column to nvarchar in the query",
        collation.info & 0xF_FFFF,
        collation.sort_id
    )))
}

/// SQL collations on code page 1252 (SQL_Latin1_General_CP1_*, the Danish,
/// Swedish and Icelandic Pref_CP1 ones), or Windows collations of the
/// Western European languages.
fn is_windows_1252(collation: Collation) -> bool {
    match collation.sort_id {
        0 => {
            let language = collation.info & 0x3FF;
            matches!(
                language,
                0x03 | 0x06
                    | 0x07
                    | 0x09
                    | 0x0A
                    | 0x0B
                    | 0x0C
                    | 0x0F
                    | 0x10
                    | 0x13
                    | 0x14
                    | 0x16
                    | 0x1D
                    | 0x21
                    | 0x2D
                    | 0x36
                    | 0x3E
                    | 0x41
                    | 0x56
            )
        }
        51..=54 | 183..=186 => true,
        _ => false,
    }
}

fn windows_1252(byte: u8) -> char {
    const HIGH: [u16; 32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
        0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ];
    match byte {
        0x80..=0x9F => {
            char::from_u32(u32::from(HIGH[usize::from(byte - 0x80)])).unwrap_or('\u{FFFD}')
        }
        other => char::from(other),
    }
}
