//! PostgreSQL's binary NUMERIC format, which sqlx decodes only with a decimal crate.

use serde_json::{Number, Value};

/// A number when it fits an f64 exactly enough to print back, else its decimal text.
pub(super) fn decode(bytes: &[u8]) -> Option<Value> {
    let text = to_text(bytes)?;
    Some(
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(Number::from_f64)
            .map_or(Value::String(text), Value::Number),
    )
}

fn to_text(bytes: &[u8]) -> Option<String> {
    let word = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| i16::from_be_bytes([b[0], b[1]]))
    };
    let ndigits = usize::try_from(word(0)?).ok()?;
    let weight = i32::from(word(2)?);
    let sign = u16::from_be_bytes(word(4)?.to_be_bytes());
    let dscale = usize::try_from(word(6)?).ok()?;
    let digits: Vec<i16> = (0..ndigits)
        .map(|i| word(8 + 2 * i))
        .collect::<Option<_>>()?;
    let digit = |position: i32| {
        usize::try_from(position)
            .ok()
            .and_then(|p| digits.get(p).copied())
            .unwrap_or(0)
    };
    match sign {
        0xC000 => return Some("NaN".into()),
        0xD000 => return Some("Infinity".into()),
        0xF000 => return Some("-Infinity".into()),
        _ => {}
    }
    let mut text = String::new();
    if sign == 0x4000 {
        text.push('-');
    }
    if weight < 0 {
        text.push('0');
    } else {
        for position in 0..=weight {
            if position == 0 {
                text.push_str(&digit(0).to_string());
            } else {
                text.push_str(&format!("{:04}", digit(position)));
            }
        }
    }
    if dscale > 0 {
        let mut fraction = String::new();
        let mut position = weight + 1;
        while fraction.len() < dscale {
            fraction.push_str(&format!("{:04}", digit(position)));
            position += 1;
        }
        fraction.truncate(dscale);
        text.push('.');
        text.push_str(&fraction);
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(ndigits: i16, weight: i16, sign: u16, dscale: i16, digits: &[i16]) -> Vec<u8> {
        let mut out = Vec::new();
        for w in [
            ndigits,
            weight,
            i16::from_be_bytes(sign.to_be_bytes()),
            dscale,
        ] {
            out.extend_from_slice(&w.to_be_bytes());
        }
        for d in digits {
            out.extend_from_slice(&d.to_be_bytes());
        }
        out
    }

    #[test]
    fn decodes_postgres_numerics() {
        // 12345.678 = [1, 2345, 6780], weight 1, dscale 3
        assert_eq!(
            to_text(&encode(3, 1, 0, 3, &[1, 2345, 6780])).unwrap(),
            "12345.678"
        );
        // -0.05 = [500], weight -1, dscale 2
        assert_eq!(to_text(&encode(1, -1, 0x4000, 2, &[500])).unwrap(), "-0.05");
        // 10000 = [1], weight 1, dscale 0
        assert_eq!(to_text(&encode(1, 1, 0, 0, &[1])).unwrap(), "10000");
        assert_eq!(decode(&encode(1, 0, 0, 0, &[42])), Some(Value::from(42.0)));
    }
}
