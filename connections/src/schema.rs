//! The JSON Schema of the connection form's request, made from the
//! catalogue: one branch per connection type, each listing that type's
//! fields with the values `form::validate` accepts for them, so the API
//! document states exactly what a save accepts.

use serde_json::{Map, Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType};

use crate::catalogue::{ConnectionType, Field, Kind};
use crate::form::{ConnectionInput, DEFAULT_NAMESPACE};

/// The characters Rust's `str::trim` removes (Unicode `White_Space`),
/// spelled out: a pattern's `\s` differs between regex engines.
const SPACE: &str = r"[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]";

/// Anything but one of [`SPACE`]: a value that is not blank once trimmed.
const NOT_SPACE: &str =
    r"[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]";

/// A DNS-1123 subdomain, as a connection's and a Secret's name.
pub const NAME_PATTERN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// A DNS-1123 label, as a namespace.
pub const NAMESPACE_PATTERN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

/// A Secret's or ConfigMap's key.
const KEY_PATTERN: &str = r"^[-._a-zA-Z0-9]+$";

/// Creating (`POST`) or saving (`PUT`, where a secret field left out keeps
/// its stored value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Save {
    Create,
    Update,
}

/// The request body's `oneOf`: one schema per connection type, told apart
/// by `type`.
pub fn branches(save: Save) -> Value {
    ConnectionType::ALL
        .iter()
        .map(|kind| type_request(*kind, save))
        .collect()
}

fn type_request(kind: ConnectionType, save: Save) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in kind.fields() {
        properties.insert(field.key.into(), field_input(field));
        let left_out_keeps = save == Save::Update && field.is_secret();
        if field.required && field.default.is_none() && !left_out_keeps {
            required.push(field.key);
        }
    }
    let mut fields = json!({
        "type": "object",
        "description": "The type's fields by key.",
        "properties": properties,
        "additionalProperties": false,
    });
    let mut top_required = vec!["name", "type"];
    if !required.is_empty() {
        fields["required"] = json!(required);
        top_required.push("fields");
    }
    json!({
        "type": "object",
        "title": kind.title(),
        "required": top_required,
        "properties": {
            "name": reference("ConnectionName"),
            "namespace": reference("ConnectionNamespace"),
            "type": {"type": "string", "enum": [kind.id()], "description": "The type's id."},
            "fields": fields,
        },
        "additionalProperties": false,
    })
}

fn reference(component: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{component}")})
}

/// The schemas the branches share, by component name.
fn components() -> Vec<(&'static str, Value)> {
    let value = |description: &str, value: Value| {
        json!({
            "type": "object",
            "description": description,
            "required": ["value"],
            "properties": {"value": value},
            "additionalProperties": false,
        })
    };
    let key_ref = json!({
        "type": "object",
        "required": ["name", "key"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": NAME_PATTERN},
            "key": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": KEY_PATTERN},
        },
        "additionalProperties": false,
    });
    let from = |key: &str| {
        json!({
            "type": "object",
            "required": [key],
            "properties": {(key): key_ref},
            "additionalProperties": false,
        })
    };
    let scalar = json!(["string", "integer", "boolean"]);
    // Whole numbers are read as 64-bit integers.
    let (min, max) = (i64::MIN, i64::MAX);
    vec![
        (
            "ConnectionName",
            json!({
                "type": "string",
                "description": "A DNS-1123 subdomain.",
                "minLength": 1,
                "maxLength": 253,
                "pattern": NAME_PATTERN,
            }),
        ),
        (
            "ConnectionNamespace",
            json!({
                "type": "string",
                "description": "A DNS-1123 label.",
                "default": DEFAULT_NAMESPACE,
                "minLength": 1,
                "maxLength": 63,
                "pattern": NAMESPACE_PATTERN,
            }),
        ),
        (
            "TextValue",
            value(
                "A value, trimmed; left empty when blank.",
                json!({"type": scalar, "minimum": min, "maximum": max}),
            ),
        ),
        (
            "FilledTextValue",
            value(
                "A value, trimmed; not blank.",
                json!({"type": scalar, "minimum": min, "maximum": max, "pattern": NOT_SPACE}),
            ),
        ),
        (
            "SecretValue",
            value(
                "A secret value, kept as typed and encrypted; left empty when empty.",
                json!({"type": scalar, "minimum": min, "maximum": max}),
            ),
        ),
        (
            "FilledSecretValue",
            value(
                "A secret value, kept as typed and encrypted; not empty.",
                json!({"type": scalar, "minimum": min, "maximum": max, "minLength": 1}),
            ),
        ),
        (
            "BooleanValue",
            value(
                "true or false; left empty (false) when blank.",
                json!({
                    "type": ["boolean", "string"],
                    "pattern": format!("^{SPACE}*(true|false)?{SPACE}*$"),
                }),
            ),
        ),
        (
            "SecretReference",
            json!({
                "type": "object",
                "description": "A key of a Secret or ConfigMap in the connection's namespace.",
                "required": ["valueFrom"],
                "properties": {
                    "valueFrom": {"oneOf": [from("secretKeyRef"), from("configMapKeyRef")]},
                },
                "additionalProperties": false,
            }),
        ),
    ]
}

/// A field's input: `{"value": ...}` as its kind takes it, and for a secret
/// also a reference. Text is trimmed (secrets are not), a blank value is
/// left empty, and an empty field takes its default.
fn field_input(field: &Field) -> Value {
    let may_be_blank = !field.required || field.default.is_some();
    let blank = if may_be_blank { "?" } else { "" };
    let value = match field.kind {
        Kind::Text | Kind::Textarea if may_be_blank => reference("TextValue"),
        Kind::Text | Kind::Textarea => reference("FilledTextValue"),
        Kind::Secret if may_be_blank => reference("SecretValue"),
        Kind::Secret => reference("FilledSecretValue"),
        Kind::Boolean => reference("BooleanValue"),
        Kind::Select => {
            let options: Vec<String> = field.options.iter().map(|o| escape(o)).collect();
            plain_value(json!({
                "type": "string",
                "pattern": format!("^{SPACE}*({}){blank}{SPACE}*$", options.join("|")),
            }))
        }
        Kind::Number => {
            let (min, max) = field.bounds.unwrap_or((i64::MIN, i64::MAX));
            plain_value(json!({
                "type": ["integer", "string"],
                "minimum": min,
                "maximum": max,
                "pattern": format!("^{SPACE}*({}){blank}{SPACE}*$", number_pattern(min, max)),
            }))
        }
    };
    let choices = if field.is_secret() {
        vec![value, reference("SecretReference")]
    } else {
        vec![value]
    };
    json!({"title": field.label, "oneOf": choices})
}

fn plain_value(value: Value) -> Value {
    json!({
        "type": "object",
        "required": ["value"],
        "properties": {"value": value},
        "additionalProperties": false,
    })
}

/// Decimal text `i64::from_str` reads as a number from `min` (0 or 1) to
/// `max`: an optional sign and leading zeros.
fn number_pattern(min: i64, max: i64) -> String {
    let positive = format!(r"\+?0*{}", up_to(max.unsigned_abs()));
    if min <= 0 {
        format!("[+-]?0+|{positive}")
    } else {
        positive
    }
}

/// The decimal numbers from 1 to `max`, without leading zeros.
fn up_to(max: u64) -> String {
    let digits: Vec<u8> = max.to_string().bytes().map(|b| b - b'0').collect();
    let n = digits.len();
    let mut alternatives = Vec::new();
    if n > 1 {
        alternatives.push(format!("[1-9][0-9]{{0,{}}}", n - 2));
    }
    for (i, digit) in digits.iter().enumerate() {
        let low = u8::from(i == 0);
        if *digit > low {
            let prefix: String = digits[..i].iter().map(u8::to_string).collect();
            let rest = match n - i - 1 {
                0 => String::new(),
                1 => "[0-9]".into(),
                more => format!("[0-9]{{{more}}}"),
            };
            alternatives.push(format!("{prefix}[{low}-{}]{rest}", digit - 1));
        }
    }
    alternatives.push(max.to_string());
    format!("(?:{})", alternatives.join("|"))
}

fn escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = r"\^$.|?*+()[]{}/".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// A schema from its JSON. utoipa's schema types cannot carry a pattern on
/// a union of types, so the JSON goes in verbatim under one keyword (an
/// extension map of several would change order from run to run).
fn as_schema(description: Option<&str>, keyword: &str, value: Value) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::AnyValue)
        .description(description)
        .extensions(Some(Extensions::from_iter([(keyword, value)])))
        .into()
}

fn shared_schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
    for (name, schema) in components() {
        let description = schema["description"].as_str().map(str::to_owned);
        schemas.push((
            name.into(),
            as_schema(description.as_deref(), "allOf", json!([schema])),
        ));
    }
}

impl utoipa::PartialSchema for ConnectionInput {
    fn schema() -> RefOr<Schema> {
        as_schema(
            Some(
                "`POST /api/connections`: a connection of one of the types, with that type's fields.",
            ),
            "oneOf",
            branches(Save::Create),
        )
    }
}

impl utoipa::ToSchema for ConnectionInput {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        shared_schemas(schemas);
    }
}

/// `PUT /api/connections/{id}` in the document: the body is a
/// [`ConnectionInput`], but a secret field may be left out.
pub struct ConnectionUpdate;

impl utoipa::PartialSchema for ConnectionUpdate {
    fn schema() -> RefOr<Schema> {
        as_schema(
            Some(
                "`PUT /api/connections/{id}`: as when creating, but a secret field left out keeps its stored value (required when none is stored).",
            ),
            "oneOf",
            branches(Save::Update),
        )
    }
}

impl utoipa::ToSchema for ConnectionUpdate {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        shared_schemas(schemas);
    }
}
