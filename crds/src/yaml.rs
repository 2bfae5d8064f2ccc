//! YAML that reads the same under YAML 1.1 and 1.2.
//!
//! kubectl, Helm and Flux read YAML 1.1, where plain `on`, `yes`, `n`, `0777`, `1:20` or
//! `2024-01-01` are booleans, numbers and timestamps; Quarterdeck's own readers are YAML 1.2.
//! yaml_serde quotes only what YAML 1.2 would misread, so this module writes the block YAML
//! itself: a string is plain only when it starts with a letter, `_`, `/`, `.` and a letter, or
//! a digit with a letter no number syntax uses (`30m`), is not one of 1.1's boolean or null words, and holds nothing either version treats
//! specially; otherwise it is a literal block (multi-line text), single-quoted, or
//! double-quoted with escapes.
//! Numbers are written in the syntax both versions share (`1.0e+300`, not `1e300`).

use serde::Serialize;
use yaml_serde::{Mapping, Number, Value};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Serialize(#[from] yaml_serde::Error),
    #[error("YAML tags (here !{0}) have no meaning in Kubernetes manifests")]
    Tag(String),
    #[error("a mapping key must be a scalar, not a mapping or a sequence")]
    ComplexKey,
    #[error("a mapping key longer than {MAX_KEY_CHARS} characters cannot be an implicit YAML key")]
    LongKey,
}

/// YAML readers find the `:` of an implicit key within 1024 characters.
const MAX_KEY_CHARS: usize = 1000;
/// YAML 1.1's booleans and nulls, compared without case (`y`, `n` included: Go's YAML 1.1
/// reader, which kubectl uses, takes them for booleans).
const WORDS: &[&str] = &["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
const INDENT: usize = 2;

/// One YAML document, ending with a line break.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let value = yaml_serde::to_value(value)?;
    let mut out = String::new();
    match &value {
        Value::Mapping(map) if !map.is_empty() => mapping(&mut out, map, 0, false)?,
        Value::Sequence(items) if !items.is_empty() => sequence(&mut out, items, 0, false)?,
        other => child(&mut out, other, 0, Parent::Document)?,
    }
    Ok(out)
}

/// Whether YAML 1.1 and 1.2 readers both take `text`, written plain, for this very string.
fn is_plain_safe(text: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let first_ok = first.is_ascii_alphabetic()
        || first == '_'
        || first == '/'
        || (!first.is_ascii() && first.is_alphanumeric())
        // `1h` and `8Gi` are text to every reader: numbers and timestamps use no letters but
        // hex digits, exponents, base prefixes and the timestamp's `T` and `Z`.
        || (first.is_ascii_digit()
            && !text.contains(['x', 'X'])
            && text.chars().any(|c| {
                c.is_ascii_alphabetic() && !c.is_ascii_hexdigit() && !"tTzZoO".contains(c)
            }))
        // `.metadata.name` is text, `.inf` and `.5` are numbers.
        || (first == '.'
            && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && ![".inf", ".nan"].iter().any(|w| text.eq_ignore_ascii_case(w)));
    first_ok
        && !text.ends_with(' ')
        && !text.contains(": ")
        && !text.ends_with(':')
        && text.chars().all(|c| c != '#' && c != '\t' && printable(c))
        && !WORDS.iter().any(|w| text.eq_ignore_ascii_case(w))
}

/// Printable in YAML 1.1, and no line break in either version (1.1 breaks lines at U+0085,
/// U+2028 and U+2029) nor a byte-order mark.
fn printable(c: char) -> bool {
    !c.is_control()
        && !matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

#[derive(Clone, Copy)]
enum Parent {
    Document,
    Key,
    Item,
}

fn pad(out: &mut String, column: usize) {
    out.extend(std::iter::repeat_n(' ', column));
}

fn mapping(
    out: &mut String,
    map: &Mapping,
    column: usize,
    inline_first: bool,
) -> Result<(), Error> {
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 || !inline_first {
            pad(out, column);
        }
        let key = scalar_key(key)?;
        if key.chars().count() > MAX_KEY_CHARS {
            return Err(Error::LongKey);
        }
        out.push_str(&key);
        out.push(':');
        child(out, value, column, Parent::Key)?;
    }
    Ok(())
}

fn sequence(
    out: &mut String,
    items: &[Value],
    column: usize,
    inline_first: bool,
) -> Result<(), Error> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 || !inline_first {
            pad(out, column);
        }
        out.push('-');
        child(out, item, column, Parent::Item)?;
    }
    Ok(())
}

/// Writes `value` after its `key:` or `-` (at `column`), or as a whole document.
fn child(out: &mut String, value: &Value, column: usize, parent: Parent) -> Result<(), Error> {
    let separator = if matches!(parent, Parent::Document) {
        ""
    } else {
        " "
    };
    match value {
        Value::Mapping(map) if !map.is_empty() => match parent {
            Parent::Item => {
                out.push(' ');
                mapping(out, map, column + INDENT, true)
            }
            _ => {
                out.push('\n');
                mapping(out, map, column + INDENT, false)
            }
        },
        Value::Sequence(items) if !items.is_empty() => match parent {
            Parent::Item => {
                out.push(' ');
                sequence(out, items, column + INDENT, true)
            }
            // Like kubectl and libyaml: a key's sequence is not indented further.
            _ => {
                out.push('\n');
                sequence(out, items, column, false)
            }
        },
        Value::Mapping(_) => {
            out.push_str(separator);
            out.push_str("{}\n");
            Ok(())
        }
        Value::Sequence(_) => {
            out.push_str(separator);
            out.push_str("[]\n");
            Ok(())
        }
        Value::String(text) if literal_block_fits(text) => {
            out.push_str(separator);
            literal_block(out, text, column + INDENT);
            Ok(())
        }
        Value::Tagged(tagged) => Err(Error::Tag(tagged.tag.to_string())),
        scalar => {
            out.push_str(separator);
            out.push_str(&scalar_key(scalar)?);
            out.push('\n');
            Ok(())
        }
    }
}

/// A scalar on one line: a key, or a value that is no literal block.
fn scalar_key(value: &Value) -> Result<String, Error> {
    Ok(match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(text) => string(text),
        Value::Tagged(tagged) => return Err(Error::Tag(tagged.tag.to_string())),
        Value::Mapping(_) | Value::Sequence(_) => return Err(Error::ComplexKey),
    })
}

/// Integers as digits; floats with a `.` and a signed exponent, which YAML 1.1 requires.
fn number(n: &Number) -> String {
    match n.as_f64().filter(|_| n.is_f64()) {
        Some(f) if f.is_nan() => ".nan".to_owned(),
        Some(f) if f.is_infinite() => if f > 0.0 { ".inf" } else { "-.inf" }.to_owned(),
        Some(f) => {
            let debug = format!("{f:?}");
            let (mantissa, exponent) = match debug.split_once('e') {
                Some((m, e)) => (m.to_owned(), Some(e.to_owned())),
                None => (debug, None),
            };
            let mantissa = if mantissa.contains('.') {
                mantissa
            } else {
                format!("{mantissa}.0")
            };
            match exponent {
                Some(e) if e.starts_with('-') => format!("{mantissa}e{e}"),
                Some(e) => format!("{mantissa}e+{e}"),
                None => mantissa,
            }
        }
        None => n.to_string(),
    }
}

fn string(text: &str) -> String {
    if is_plain_safe(text) {
        text.to_owned()
    } else if !text.contains(['\n', '\t'])
        && text.chars().all(printable)
        && fewer_escapes_single_quoted(text)
    {
        format!("'{}'", text.replace('\'', "''"))
    } else {
        double_quoted(text)
    }
}

/// Whether single quotes (which double `'`) escape less than double quotes (`\"`, `\\`).
fn fewer_escapes_single_quoted(text: &str) -> bool {
    let count = |set: &[char]| text.chars().filter(|c| set.contains(c)).count();
    count(&['\'']) <= count(&['"', '\\'])
}

/// Double quotes with only the escapes YAML 1.1 and 1.2 share (no `\/`).
fn double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if printable(c) => out.push(c),
            c if u32::from(c) <= 0xffff => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

/// Multi-line text that a `|` block keeps exactly: printable, no tabs or carriage returns,
/// no leading space (which would need an indentation indicator), and no line of spaces only
/// (which block indentation could swallow).
fn literal_block_fits(text: &str) -> bool {
    let body = text.trim_end_matches('\n');
    text.contains('\n')
        && !body.is_empty()
        && !body.starts_with([' ', '\n'])
        && body
            .chars()
            .all(|c| c == '\n' || (c != '\t' && printable(c)))
        && body
            .split('\n')
            .all(|line| line.is_empty() || !line.trim_start_matches(' ').is_empty())
}

fn literal_block(out: &mut String, text: &str, column: usize) {
    let body = text.trim_end_matches('\n');
    let trailing = text.len() - body.len();
    out.push_str(match trailing {
        0 => "|-\n",
        1 => "|\n",
        _ => "|+\n",
    });
    for line in body.split('\n') {
        if !line.is_empty() {
            pad(out, column);
            out.push_str(line);
        }
        out.push('\n');
    }
    for _ in 1..trailing {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use super::*;

    fn round_trip(value: &Json) -> String {
        let yaml = to_string(value).unwrap();
        let back: Json = yaml_serde::from_str(&yaml).unwrap();
        assert_eq!(&back, value, "{yaml}");
        yaml
    }

    #[test]
    fn yaml11_lookalikes_are_quoted_keys_and_values() {
        let yaml = round_trip(&json!({
            "on": "off", "Yes": "NO", "y": "n", "null": "~", "true": "False",
            "octal": "0777", "sexagesimal": "1:20", "exponent": "1e3", "inf": ".inf",
            "path": ".metadata.name", "quote": "'' != a",
            "date": "2024-01-01", "stamp": "2024-01-01T10:00:00Z", "hex": "0x1F", "duration": "30m",
            "size": "8Gi", "version": "0.1.0-rc.1", "merge": "<<", "value": "=", "plain": "quarterdeck",
            "url": "https://example.test/a?b=c", "sentence": "It's fine, really",
        }));
        for line in [
            "'on': 'off'",
            "'Yes': 'NO'",
            "'y': 'n'",
            "'null': '~'",
            "'true': 'False'",
            "octal: '0777'",
            "sexagesimal: '1:20'",
            "exponent: '1e3'",
            "inf: '.inf'",
            "path: .metadata.name",
            r#"quote: "'' != a""#,
            "date: '2024-01-01'",
            "stamp: '2024-01-01T10:00:00Z'",
            "hex: '0x1F'",
            "duration: 30m",
            "size: 8Gi",
            "version: 0.1.0-rc.1",
            "merge: '<<'",
            "value: '='",
            "plain: quarterdeck",
            "url: https://example.test/a?b=c",
            "sentence: It's fine, really",
        ] {
            assert!(yaml.lines().any(|l| l == line), "{line:?} in:\n{yaml}");
        }
    }

    #[test]
    fn layout_is_block_style() {
        let yaml = round_trip(&json!({
            "a": {"b": [1, {"c": "d", "e": []}, [true, null]], "f": {}},
        }));
        assert_eq!(
            yaml,
            "a:\n  b:\n  - 1\n  - c: d\n    e: []\n  - - true\n    - null\n  f: {}\n"
        );
    }

    #[test]
    fn multi_line_text_is_a_literal_block_when_it_can_be() {
        let yaml = round_trip(&json!({
            "strip": "one\ntwo", "clip": "one\n\n  two\n", "keep": "one\n\n\n",
            "leading space": " one\ntwo", "blank line of spaces": "one\n  \ntwo",
            "crlf": "a\r\nb", "tab": "a\tb\n",
        }));
        assert!(yaml.contains("strip: |-\n  one\n  two\n"), "{yaml}");
        assert!(yaml.contains("clip: |\n  one\n\n    two\n"), "{yaml}");
        assert!(yaml.contains("keep: |+\n  one\n\n\n"), "{yaml}");
        assert!(yaml.contains(r#"leading space: " one\ntwo""#), "{yaml}");
        assert!(yaml.contains(r#"crlf: "a\r\nb""#), "{yaml}");
    }

    #[test]
    fn odd_characters_are_escaped() {
        round_trip(&json!({
            "bell": "\u{7}", "nel": "a\u{85}b", "ls": "a\u{2028}b", "bom": "\u{feff}x",
            "quotes": "'\"", "backslash": "\\", "emoji": "🚀 ok", "": "empty key",
            "hash": "a #b", "colon": "a: b", "trailing": "a ", "dash": "- x",
        }));
    }

    #[test]
    fn numbers_use_the_syntax_both_versions_share() {
        let yaml = round_trip(&json!([0, -1, 1.5, 1e300, 1e-7, 18446744073709551615u64]));
        assert_eq!(
            yaml,
            "- 0\n- -1\n- 1.5\n- 1.0e+300\n- 1.0e-7\n- 18446744073709551615\n"
        );
    }

    #[test]
    fn scalars_and_empty_documents() {
        assert_eq!(to_string("on").unwrap(), "'on'\n");
        assert_eq!(to_string(&json!({})).unwrap(), "{}\n");
        assert_eq!(to_string(&json!("a\nb")).unwrap(), "|-\n  a\n  b\n");
    }

    #[test]
    fn long_keys_are_refused() {
        let key = "k".repeat(MAX_KEY_CHARS + 1);
        assert!(matches!(to_string(&json!({ key: 1 })), Err(Error::LongKey)));
    }
}
