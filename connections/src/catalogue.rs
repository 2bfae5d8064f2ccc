//! The connection types and their fields: what each form asks for, where each
//! value is stored, and how a value is read back typed.
//!
//! The table itself is in `types` (one struct per type); this module holds
//! the pieces that describe a field and the generated TypeScript the console
//! reads (`web/src/api/connections.gen.ts`).

use std::fmt::Write;

use quarterdeck_crds::messages;

pub use crate::types::ConnectionType;

/// How a form shows a field and how its value is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    /// Encrypted at rest or a reference to a Secret or ConfigMap key; never read back.
    Secret,
    Textarea,
    Boolean,
    Number,
    Select,
}

impl Kind {
    pub const fn name(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Secret => "secret",
            Self::Textarea => "textarea",
            Self::Boolean => "boolean",
            Self::Number => "number",
            Self::Select => "select",
        }
    }
}

/// Where a field's value is stored in the `connections` row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Url,
    Username,
    Password,
    Certificate,
    InsecureTls,
    /// Under `properties` by the field's key.
    Property,
}

impl Place {
    /// The field keys that name a column; every other key is a property.
    pub const fn of(key: &str) -> Self {
        match key.as_bytes() {
            b"url" => Self::Url,
            b"username" => Self::Username,
            b"password" => Self::Password,
            b"certificate" => Self::Certificate,
            b"insecureTls" => Self::InsecureTls,
            _ => Self::Property,
        }
    }
}

/// One field of a connection type's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The key in the API's `fields` and, for properties, under `properties`.
    pub key: &'static str,
    pub label: &'static str,
    pub kind: Kind,
    pub required: bool,
    /// Applied when the value is left empty.
    pub default: Option<&'static str>,
    /// The allowed values of a select.
    pub options: &'static [&'static str],
    pub help: Option<&'static str>,
    /// A secret holding several lines (a kubeconfig, a private key), shown as a text area.
    pub multiline: bool,
    /// The smallest and largest value of a number.
    pub bounds: Option<(i64, i64)>,
}

impl Field {
    pub const fn place(&self) -> Place {
        Place::of(self.key)
    }

    pub const fn is_secret(&self) -> bool {
        matches!(self.kind, Kind::Secret)
    }
}

/// The message for a value that is not a number (spec part 2, section 5).
pub const NOT_A_NUMBER: &str = "This field must be a number";

/// A field's value read typed from its text: `String` and the numbers are
/// required, `Option`s and `bool` are not.
pub trait FromField: Sized + Default {
    const REQUIRED: bool;
    const BOUNDS: Option<(i64, i64)> = None;
    fn from_field(field: &Field, raw: Option<&str>) -> Result<Self, String>;
}

fn present(raw: Option<&str>) -> Option<&str> {
    raw.filter(|v| !v.is_empty())
}

fn one_of(field: &Field, value: &str) -> Result<(), String> {
    if field.options.is_empty() || field.options.contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{} must be one of: {}",
            field.label,
            field.options.join(", ")
        ))
    }
}

impl FromField for String {
    const REQUIRED: bool = true;
    fn from_field(field: &Field, raw: Option<&str>) -> Result<Self, String> {
        let value = present(raw).ok_or(messages::form::FIELD_REQUIRED)?;
        one_of(field, value)?;
        Ok(value.to_owned())
    }
}

impl FromField for bool {
    const REQUIRED: bool = false;
    fn from_field(field: &Field, raw: Option<&str>) -> Result<Self, String> {
        match present(raw) {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(format!("{} must be true or false", field.label)),
        }
    }
}

/// A port: a whole number from 1 to 65535.
impl FromField for u16 {
    const REQUIRED: bool = true;
    const BOUNDS: Option<(i64, i64)> = Some((1, u16::MAX as i64));
    fn from_field(field: &Field, raw: Option<&str>) -> Result<Self, String> {
        let value = whole_number(raw)?;
        u16::try_from(value)
            .ok()
            .filter(|port| *port >= 1)
            .ok_or_else(|| format!("{} must be a whole number from 1 to 65535", field.label))
    }
}

/// A count or index: a whole number, 0 or more.
impl FromField for u32 {
    const REQUIRED: bool = true;
    const BOUNDS: Option<(i64, i64)> = Some((0, u32::MAX as i64));
    fn from_field(field: &Field, raw: Option<&str>) -> Result<Self, String> {
        let value = whole_number(raw)?;
        u32::try_from(value)
            .map_err(|_| format!("{} must be a whole number, 0 or more", field.label))
    }
}

fn whole_number(raw: Option<&str>) -> Result<i64, String> {
    let value = present(raw).ok_or(messages::form::FIELD_REQUIRED)?;
    value.parse::<i64>().map_err(|_| NOT_A_NUMBER.to_owned())
}

impl<T: FromField> FromField for Option<T> {
    const REQUIRED: bool = false;
    const BOUNDS: Option<(i64, i64)> = T::BOUNDS;
    fn from_field(field: &Field, raw: Option<&str>) -> Result<Self, String> {
        match present(raw) {
            None => Ok(None),
            Some(value) => T::from_field(field, Some(value)).map(Some),
        }
    }
}

/// Where the generated catalogue lives, from the workspace root.
pub const TS_PATH: &str = "web/src/api/connections.gen.ts";

/// Prettier's line width in the web project.
const WIDTH: usize = 140;

/// `web/src/api/connections.gen.ts`, formatted as prettier leaves it.
pub fn typescript() -> String {
    let mut out = String::from(
        "// Generated by `cargo xtask connections-ts` from the connections crate's\n\
         // catalogue. Do not edit.\n\
         \n\
         export type ConnectionFieldKind = 'text' | 'secret' | 'textarea' | 'boolean' | 'number' | 'select';\n\
         \n\
         export interface ConnectionField {\n  \
           key: string;\n  \
           label: string;\n  \
           kind: ConnectionFieldKind;\n  \
           required: boolean;\n  \
           default?: string | number | boolean;\n  \
           options?: readonly string[];\n  \
           help?: string;\n  \
           /** A secret holding several lines (a kubeconfig, a private key). */\n  \
           multiline?: boolean;\n\
         }\n\
         \n\
         export interface ConnectionTypeInfo {\n  \
           id: string;\n  \
           title: string;\n  \
           notificationOnly: boolean;\n  \
           hidden: boolean;\n  \
           fields: readonly ConnectionField[];\n\
         }\n\
         \n\
         export const CONNECTION_TYPES: readonly ConnectionTypeInfo[] = [\n",
    );
    for kind in ConnectionType::ALL {
        out.push_str("  {\n");
        let _ = writeln!(out, "    id: {},", quote(kind.id()));
        let _ = writeln!(out, "    title: {},", quote(kind.title()));
        let _ = writeln!(out, "    notificationOnly: {},", kind.notification_only());
        let _ = writeln!(out, "    hidden: {},", kind.hidden());
        let fields: Vec<Vec<String>> = kind.fields().iter().map(field_ts).collect();
        let one_line = |parts: &[String]| format!("{{ {} }}", parts.join(", "));
        match fields.as_slice() {
            [] => out.push_str("    fields: [],\n"),
            [only] if "    fields: [".len() + one_line(only).len() + "],".len() <= WIDTH => {
                let _ = writeln!(out, "    fields: [{}],", one_line(only));
            }
            _ => {
                out.push_str("    fields: [\n");
                for parts in &fields {
                    let line = one_line(parts);
                    if "      ".len() + line.len() + ",".len() <= WIDTH {
                        let _ = writeln!(out, "      {line},");
                    } else {
                        out.push_str("      {\n");
                        for part in parts {
                            let _ = writeln!(out, "        {part},");
                        }
                        out.push_str("      },\n");
                    }
                }
                out.push_str("    ],\n");
            }
        }
        out.push_str("  },\n");
    }
    out.push_str("];\n");
    out
}

/// One field's object literal, property by property.
fn field_ts(field: &Field) -> Vec<String> {
    let mut parts = vec![
        format!("key: {}", quote(field.key)),
        format!("label: {}", quote(field.label)),
        format!("kind: {}", quote(field.kind.name())),
        format!("required: {}", field.required),
    ];
    if let Some(default) = field.default {
        let literal = match field.kind {
            Kind::Number | Kind::Boolean => default.to_owned(),
            _ => quote(default),
        };
        parts.push(format!("default: {literal}"));
    }
    if !field.options.is_empty() {
        let options: Vec<String> = field.options.iter().map(|o| quote(o)).collect();
        parts.push(format!("options: [{}]", options.join(", ")));
    }
    if let Some(help) = field.help {
        parts.push(format!("help: {}", quote(help)));
    }
    if field.multiline {
        parts.push("multiline: true".into());
    }
    parts
}

/// A TypeScript string literal as prettier writes it.
fn quote(text: &str) -> String {
    if text.matches('\'').count() > text.matches('"').count() {
        format!("\"{}\"", text.replace('"', "\\\""))
    } else {
        format!("'{}'", text.replace('\'', "\\'"))
    }
}
