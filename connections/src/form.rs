//! A connection's form on the wire: what an admin sends to save one, how it
//! is validated and turned into the stored row, and the view that reads it
//! back without any secret value.

use std::collections::BTreeMap;
use std::fmt;

use quarterdeck_crds::messages;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::catalogue::{ConnectionType, Field, Kind, Place};
use crate::keyring::Keyring;
use crate::types::Values;

/// The namespace of a connection saved without one.
pub const DEFAULT_NAMESPACE: &str = "default";

/// `POST /api/connections` and `PUT /api/connections/{id}`; its schema in
/// the API document comes from the catalogue (`schema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionInput {
    #[serde(default)]
    pub name: String,
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// The type's id, such as `postgres` or `slack`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// By field key; on an update a secret field left out keeps its stored value.
    #[serde(default)]
    pub fields: BTreeMap<String, FieldInput>,
}

fn default_namespace() -> String {
    DEFAULT_NAMESPACE.into()
}

/// A field's value: typed in, or (secret fields only) read from a key of a
/// Secret or ConfigMap in the connection's namespace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FieldInput {
    #[serde(rename = "value")]
    Value(Scalar),
    #[serde(rename = "valueFrom")]
    ValueFrom(ValueFrom),
}

/// A plain value. Numbers are whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum Scalar {
    Boolean(bool),
    Integer(i64),
    Text(String),
}

/// A whole number may come written as a float (`1.0`, `1e3`): JSON Schema's
/// `integer` includes those, and so does the API document.
impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged, expecting = "a string, a whole number or a boolean")]
        enum Wire {
            Boolean(bool),
            Integer(i64),
            Float(f64),
            Text(String),
        }
        // 2^63 is exact as a float. Below -2^63 an integer arrives rounded
        // to -2^63 (a float), so that bound is exclusive too.
        const LIMIT: f64 = 9_223_372_036_854_775_808.0;
        Ok(match Wire::deserialize(deserializer)? {
            Wire::Boolean(b) => Self::Boolean(b),
            Wire::Integer(n) => Self::Integer(n),
            Wire::Float(f) if f.fract() == 0.0 && f > -LIMIT && f < LIMIT => {
                Self::Integer(f as i64)
            }
            Wire::Float(_) => {
                return Err(serde::de::Error::custom(
                    "expected a whole number from -2^63 to 2^63-1",
                ));
            }
            Wire::Text(t) => Self::Text(t),
        })
    }
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Self::Boolean(b) => b.to_string(),
            Self::Integer(n) => n.to_string(),
            Self::Text(t) => t.clone(),
        }
    }
}

/// Where a secret field's value comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum ValueFrom {
    #[serde(rename = "secretKeyRef")]
    SecretKeyRef(KeyRef),
    #[serde(rename = "configMapKeyRef")]
    ConfigMapKeyRef(KeyRef),
}

/// A key of a named Secret or ConfigMap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyRef {
    pub name: String,
    pub key: String,
}

const SECRET_SCHEME: &str = "secret://";
const CONFIG_MAP_SCHEME: &str = "configmap://";

impl ValueFrom {
    /// The stored form: `secret://name/key` or `configmap://name/key`.
    pub fn to_stored(&self) -> String {
        match self {
            Self::SecretKeyRef(r) => format!("{SECRET_SCHEME}{}/{}", r.name, r.key),
            Self::ConfigMapKeyRef(r) => format!("{CONFIG_MAP_SCHEME}{}/{}", r.name, r.key),
        }
    }

    /// The reference a stored value holds, if it is one.
    pub fn from_stored(stored: &str) -> Option<Self> {
        let key_ref = |rest: &str| {
            rest.split_once('/').map(|(name, key)| KeyRef {
                name: name.into(),
                key: key.into(),
            })
        };
        if let Some(rest) = stored.strip_prefix(SECRET_SCHEME) {
            key_ref(rest).map(Self::SecretKeyRef)
        } else if let Some(rest) = stored.strip_prefix(CONFIG_MAP_SCHEME) {
            key_ref(rest).map(Self::ConfigMapKeyRef)
        } else {
            None
        }
    }

    fn key_ref(&self) -> &KeyRef {
        match self {
            Self::SecretKeyRef(r) | Self::ConfigMapKeyRef(r) => r,
        }
    }
}

/// A field as the form reads it back: a plain value, whether a secret is
/// set (never the secret), or the reference it is read from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub enum FieldView {
    #[serde(rename = "value")]
    Value(Scalar),
    #[serde(rename = "set")]
    Set(bool),
    #[serde(rename = "valueFrom")]
    ValueFrom(ValueFrom),
}

/// The stored columns of a connection. Secret values are encrypted
/// (`enc:v1:...`) or references; the rest is plain text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredFields {
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub certificate: Option<String>,
    pub insecure_tls: bool,
    pub properties: BTreeMap<String, String>,
}

impl StoredFields {
    /// The stored text of `field`, if any.
    pub fn get(&self, field: &Field) -> Option<String> {
        let column = match field.place() {
            Place::Url => &self.url,
            Place::Username => &self.username,
            Place::Password => &self.password,
            Place::Certificate => &self.certificate,
            Place::InsecureTls => return Some(self.insecure_tls.to_string()),
            Place::Property => return self.properties.get(field.key).cloned(),
        };
        column.clone()
    }

    fn set(&mut self, field: &Field, value: String) {
        match field.place() {
            Place::Url => self.url = Some(value),
            Place::Username => self.username = Some(value),
            Place::Password => self.password = Some(value),
            Place::Certificate => self.certificate = Some(value),
            Place::InsecureTls => self.insecure_tls = value == "true",
            Place::Property => {
                self.properties.insert(field.key.into(), value);
            }
        }
    }
}

/// What was wrong with a form, by field key (or `name`, `namespace`, `type`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(transparent)]
pub struct FieldErrors(pub BTreeMap<String, String>);

impl FieldErrors {
    /// Records `message` for `key`, keeping the first message a key gets.
    pub fn insert(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.0.entry(key.into()).or_insert_with(|| message.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    fn merge(&mut self, other: FieldErrors) {
        for (key, message) in other.0 {
            self.insert(key, message);
        }
    }
}

impl fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (key, message) in &self.0 {
            if !first {
                f.write_str("; ")?;
            }
            first = false;
            write!(f, "{key}: {message}")?;
        }
        Ok(())
    }
}

impl std::error::Error for FieldErrors {}

/// A field's value while saving.
enum Slot {
    Empty,
    /// Typed in (a secret in plain text, until it is encrypted).
    Plain(String),
    /// A Secret or ConfigMap key, in its stored form.
    Reference(String),
    /// A secret left out of an update: the stored value, as stored.
    Kept(String),
}

/// Checks `input` and makes the row to store: static secrets encrypted with
/// `keyring`, references in their stored form, defaults applied, and for
/// notification types the composite URL built and encrypted. On an update,
/// `existing` is the stored row: a secret field left out keeps its value.
pub fn validate(
    input: &ConnectionInput,
    existing: Option<&StoredFields>,
    keyring: &Keyring,
) -> Result<(ConnectionType, StoredFields), FieldErrors> {
    let mut errors = FieldErrors::default();
    if let Err(message) = check_name(&input.name, 253, true) {
        errors.insert("name", message);
    }
    if let Err(message) = check_name(&input.namespace, 63, false) {
        errors.insert("namespace", message);
    }
    let kind = match ConnectionType::from_id(input.kind.trim()) {
        Some(kind) => kind,
        None => {
            let message = if input.kind.trim().is_empty() {
                messages::form::FIELD_REQUIRED.to_owned()
            } else {
                format!("Unknown connection type '{}'", input.kind)
            };
            errors.insert("type", message);
            return Err(errors);
        }
    };
    for key in input.fields.keys() {
        if !kind.fields().iter().any(|f| f.key == key) {
            errors.insert(key, format!("Not a field of {} connections", kind.title()));
        }
    }

    let mut slots = Vec::new();
    for field in kind.fields() {
        let slot = match slot(field, input.fields.get(field.key), existing) {
            Ok(slot) => slot,
            Err(message) => {
                errors.insert(field.key, message);
                Slot::Empty
            }
        };
        slots.push((field, slot));
    }

    let values: Values = slots
        .iter()
        .filter_map(|(field, slot)| match slot {
            Slot::Empty => None,
            Slot::Plain(v) | Slot::Reference(v) | Slot::Kept(v) => {
                Some((field.key.to_owned(), v.clone()))
            }
        })
        .collect();
    if let Err(type_errors) = kind.check(&values) {
        errors.merge(type_errors);
    }

    let url = if kind.has_composite_url() {
        composite_url(kind, &slots, keyring, &mut errors)
    } else {
        None
    };
    if !errors.is_empty() {
        return Err(errors);
    }

    let mut stored = StoredFields::default();
    for (field, slot) in slots {
        let value = match slot {
            Slot::Empty => continue,
            Slot::Plain(plain) if field.is_secret() => keyring.encrypt(&plain),
            Slot::Plain(plain) if field.kind == Kind::Number => canonical_number(plain),
            Slot::Plain(v) | Slot::Reference(v) | Slot::Kept(v) => v,
        };
        stored.set(field, value);
    }
    if let Some(url) = url {
        stored.url = Some(keyring.encrypt(&url));
    }
    Ok((kind, stored))
}

fn slot(
    field: &Field,
    input: Option<&FieldInput>,
    existing: Option<&StoredFields>,
) -> Result<Slot, String> {
    let slot = match input {
        Some(FieldInput::Value(value)) => {
            let text = value.text();
            let text = if field.is_secret() {
                text
            } else {
                text.trim().to_owned()
            };
            if text.is_empty() {
                Slot::Empty
            } else {
                Slot::Plain(text)
            }
        }
        Some(FieldInput::ValueFrom(from)) => {
            if !field.is_secret() {
                return Err(format!(
                    "{} is not a secret field: it takes a value, not a reference",
                    field.label
                ));
            }
            check_reference(from)?;
            Slot::Reference(from.to_stored())
        }
        None => match existing.and_then(|e| e.get(field)) {
            Some(stored) if field.is_secret() && !stored.is_empty() => Slot::Kept(stored),
            _ => Slot::Empty,
        },
    };
    Ok(match (slot, field.default) {
        (Slot::Empty, Some(default)) => Slot::Plain(default.to_owned()),
        (slot, _) => slot,
    })
}

/// The composite notification URL from the fields in plain text, or `None`
/// when a secret it holds is a reference (resolved only when sending).
fn composite_url(
    kind: ConnectionType,
    slots: &[(&Field, Slot)],
    keyring: &Keyring,
    errors: &mut FieldErrors,
) -> Option<String> {
    let mut plain = Values::new();
    for (field, slot) in slots {
        let value = match slot {
            Slot::Empty => continue,
            Slot::Plain(v) => v.clone(),
            Slot::Reference(_) => return None,
            Slot::Kept(stored) if Keyring::is_encrypted(stored) => match keyring.decrypt(stored) {
                Ok(v) => v,
                Err(_) => {
                    errors.insert(
                            field.key,
                            "The stored value cannot be decrypted with this server's keys; enter it again",
                        );
                    return None;
                }
            },
            Slot::Kept(_) => return None,
        };
        plain.insert(field.key.to_owned(), value);
    }
    crate::url::composite(kind, &plain)
}

fn canonical_number(text: String) -> String {
    text.parse::<i64>().map(|n| n.to_string()).unwrap_or(text)
}

/// A DNS-1123 subdomain (`dots`, names) or label (namespaces).
fn check_name(value: &str, max: usize, dots: bool) -> Result<(), String> {
    if value.is_empty() {
        return Err(messages::form::FIELD_REQUIRED.into());
    }
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    let ends_ok = |label: &str| {
        label.starts_with(|c: char| c.is_ascii_alphanumeric())
            && label.ends_with(|c: char| c.is_ascii_alphanumeric())
    };
    let valid = value.len() <= max
        && if dots {
            value
                .split('.')
                .all(|label| ends_ok(label) && label.chars().all(allowed))
        } else {
            ends_ok(value) && value.chars().all(allowed)
        };
    if valid {
        Ok(())
    } else if dots {
        Err(format!(
            "Must be at most {max} lower case letters, digits, '-' or '.', starting and ending with a letter or digit"
        ))
    } else {
        Err(format!(
            "Must be at most {max} lower case letters, digits or '-', starting and ending with a letter or digit"
        ))
    }
}

fn check_reference(from: &ValueFrom) -> Result<(), String> {
    let key_ref = from.key_ref();
    let what = match from {
        ValueFrom::SecretKeyRef(_) => "Secret",
        ValueFrom::ConfigMapKeyRef(_) => "ConfigMap",
    };
    if check_name(&key_ref.name, 253, true).is_err() {
        return Err(format!(
            "The {what}'s name must be a Kubernetes object name"
        ));
    }
    let key_ok = !key_ref.key.is_empty()
        && key_ref.key.len() <= 253
        && key_ref
            .key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !key_ok {
        return Err(format!(
            "The {what}'s key must be letters, digits, '-', '_' or '.'"
        ));
    }
    Ok(())
}

/// The fields of a stored connection as the form reads them back. A secret
/// shows only whether it is set, or the reference it is read from.
pub fn view(kind: ConnectionType, stored: &StoredFields) -> BTreeMap<String, FieldView> {
    let mut fields = BTreeMap::new();
    for field in kind.fields() {
        let value = stored.get(field).filter(|v| !v.is_empty());
        let view = match field.kind {
            Kind::Secret => match value.as_deref().and_then(ValueFrom::from_stored) {
                Some(from) => FieldView::ValueFrom(from),
                None => FieldView::Set(value.is_some()),
            },
            Kind::Boolean => FieldView::Value(Scalar::Boolean(value.as_deref() == Some("true"))),
            Kind::Number => match value {
                Some(v) => {
                    FieldView::Value(v.parse().map(Scalar::Integer).unwrap_or(Scalar::Text(v)))
                }
                None => continue,
            },
            Kind::Text | Kind::Textarea | Kind::Select => match value {
                Some(v) => FieldView::Value(Scalar::Text(v)),
                None => continue,
            },
        };
        fields.insert(field.key.to_owned(), view);
    }
    fields
}
