//! The API document's connection request agrees with the form: a body the
//! schema accepts is saved, and one it refuses is refused.

use quarterdeck_connections::catalogue::{ConnectionType, Field, Kind};
use quarterdeck_connections::form::{self, ConnectionInput};
use quarterdeck_connections::keyring::Keyring;
use quarterdeck_connections::schema::ConnectionUpdate;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

/// The request schema as a document of its own, its shared components
/// where the `$ref`s point.
fn validator<T: ToSchema>() -> jsonschema::Validator {
    let mut components = Vec::new();
    T::schemas(&mut components);
    let mut schemas = Map::new();
    for (name, schema) in components {
        schemas.insert(name, serde_json::to_value(schema).unwrap());
    }
    let mut root = serde_json::to_value(T::schema()).unwrap();
    root["components"] = json!({"schemas": schemas});
    jsonschema::draft202012::new(&root).unwrap()
}

/// Whether creating a connection from `body` succeeds.
fn accepted(body: &Value) -> bool {
    let Ok(input) = serde_json::from_value::<ConnectionInput>(body.clone()) else {
        return false;
    };
    form::validate(&input, None, &Keyring::for_tests()).is_ok()
}

#[track_caller]
fn agree(validator: &jsonschema::Validator, body: Value) {
    assert_eq!(validator.is_valid(&body), accepted(&body), "{body}");
}

fn filled(field: &Field) -> Value {
    match field.kind {
        Kind::Number => json!({"value": 1}),
        Kind::Boolean => json!({"value": true}),
        Kind::Select => json!({"value": field.options[0]}),
        _ => json!({"value": "x"}),
    }
}

/// Every required field filled.
fn minimal(kind: ConnectionType) -> Value {
    let fields: Map<String, Value> = kind
        .fields()
        .iter()
        .filter(|f| f.required && f.default.is_none())
        .map(|f| (f.key.to_owned(), filled(f)))
        .collect();
    json!({"name": "c1", "type": kind.id(), "fields": fields})
}

#[test]
fn each_type_and_each_field_value_is_valid_exactly_when_the_form_accepts_it() {
    let validator = validator::<ConnectionInput>();
    let values = [
        json!(""),
        json!(" "),
        json!("\u{a0}x\u{3000}"),
        json!("\u{1c}"),
        json!("\u{feff}"),
        json!(" true "),
        json!("false"),
        json!("yes"),
        json!(true),
        json!(0),
        json!(1),
        json!(-1),
        json!(65535),
        json!(65536),
        json!(4294967295u64),
        json!(4294967296u64),
        json!("0"),
        json!("-0"),
        json!(" +007 "),
        json!("65535"),
        json!("65536"),
        json!("4294967295"),
        json!("4294967296"),
        json!("00000000000000000000000012"),
        json!("1.5"),
        json!(1.5),
        json!(27633.0),
        json!(1e3),
        json!(9223372036854775807i64),
        json!(9223372036854775808u64),
        json!(-9223372036854775808i64),
        json!(1e19),
        json!(9007199254740992.0),
        json!(-9.3e18),
        json!(null),
        json!(" Auto "),
        json!("auto"),
        json!("ssh"),
        json!("http"),
    ];
    for kind in ConnectionType::ALL {
        let body = minimal(*kind);
        assert!(validator.is_valid(&body), "{body}");
        agree(&validator, body.clone());
        for field in kind.fields() {
            let mut left_out = body.clone();
            left_out["fields"]
                .as_object_mut()
                .unwrap()
                .remove(field.key);
            agree(&validator, left_out);
            for value in &values {
                let mut with = body.clone();
                with["fields"][field.key] = json!({"value": value});
                agree(&validator, with);
            }
            for reference in [
                json!({"secretKeyRef": {"name": "pg", "key": "pass.word_1"}}),
                json!({"configMapKeyRef": {"name": "a.b-c", "key": "k"}}),
                json!({"secretKeyRef": {"name": "PG", "key": "k"}}),
                json!({"secretKeyRef": {"name": "pg", "key": "a/b"}}),
                json!({"secretKeyRef": {"name": "pg"}}),
                json!({"secretKeyRef": {"name": "pg", "key": "k", "x": 1}}),
                json!({"secretKeyRef": {"name": "pg", "key": "k"}, "configMapKeyRef": {"name": "pg", "key": "k"}}),
            ] {
                let mut with = body.clone();
                with["fields"][field.key] = json!({"valueFrom": reference});
                agree(&validator, with);
            }
            let mut both = body.clone();
            both["fields"][field.key] =
                json!({"value": "x", "valueFrom": {"secretKeyRef": {"name": "a", "key": "b"}}});
            agree(&validator, both);
        }
        let mut unknown = body.clone();
        unknown["fields"]["nope"] = json!({"value": "x"});
        agree(&validator, unknown);
    }
}

#[test]
fn names_namespaces_and_types_are_valid_exactly_when_the_form_accepts_them() {
    let validator = validator::<ConnectionInput>();
    let body = minimal(ConnectionType::Folder);
    let long_label = "a".repeat(63);
    let names = [
        "a",
        "a.b",
        "a-b.c",
        "-a",
        "a-",
        "a..b",
        "A",
        "a_b",
        "",
        "a\n",
        &long_label,
        &format!("{long_label}a"),
        &"a.".repeat(126),
        &format!("{}a", "a.".repeat(126)),
    ];
    for name in names {
        let mut with = body.clone();
        with["name"] = json!(name);
        agree(&validator, with);
        let mut with = body.clone();
        with["namespace"] = json!(name);
        agree(&validator, with);
    }
    for kind in [json!("nope"), json!(""), json!(1), json!(null)] {
        let mut with = body.clone();
        with["type"] = kind;
        agree(&validator, with);
    }
    let mut extra = body.clone();
    extra["extra"] = json!(1);
    agree(&validator, extra);
    agree(
        &validator,
        json!({"type": "folder", "fields": {"url": {"value": "/x"}}}),
    );
}

/// The blank test is Rust's `str::trim` (Unicode White_Space): the
/// pattern's character class matches it over the whole BMP.
#[test]
fn a_required_text_is_blank_exactly_when_rust_trims_it_away() {
    let validator = validator::<ConnectionInput>();
    for c in (0u32..=0xffff)
        .filter_map(char::from_u32)
        .filter(|c| *c != '\0')
    {
        let body =
            json!({"name": "c1", "type": "folder", "fields": {"url": {"value": c.to_string()}}});
        assert_eq!(
            validator.is_valid(&body),
            !c.is_whitespace(),
            "U+{:04X}",
            c as u32
        );
        assert_eq!(accepted(&body), !c.is_whitespace(), "U+{:04X}", c as u32);
    }
}

#[test]
fn an_update_may_leave_out_secrets_but_not_other_required_fields() {
    let validator = validator::<ConnectionUpdate>();
    assert!(validator.is_valid(&json!({
        "name": "c1", "type": "postgres",
        "fields": {"url": {"value": "postgres://db"}, "username": {"value": "u"}},
    })));
    assert!(!validator.is_valid(&json!({
        "name": "c1", "type": "postgres",
        "fields": {"url": {"value": "postgres://db"}, "password": {"value": "p"}},
    })));
}
