//! The connection model: every type's form, validation at save, secrets kept
//! out of every read, and the generated catalogue.

use std::collections::BTreeMap;

use quarterdeck_connections::catalogue::{self, ConnectionType, Kind, Place};
use quarterdeck_connections::form::{
    self, ConnectionInput, FieldInput, FieldView, KeyRef, Scalar, ValueFrom,
};
use quarterdeck_connections::keyring::Keyring;
use serde_json::json;

const REQUIRED: &str = "This field is required";

fn text(value: &str) -> FieldInput {
    FieldInput::Value(Scalar::Text(value.into()))
}

fn input(kind: ConnectionType, fields: &[(&str, FieldInput)]) -> ConnectionInput {
    ConnectionInput {
        name: "c1".into(),
        namespace: "default".into(),
        kind: kind.id().into(),
        fields: fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    }
}

/// A value every field without a default accepts.
fn sample(kind: Kind) -> FieldInput {
    match kind {
        Kind::Number => FieldInput::Value(Scalar::Integer(8080)),
        Kind::Boolean => FieldInput::Value(Scalar::Boolean(true)),
        _ => text("sample-value"),
    }
}

/// The required fields that have no default, each with a sample value.
fn minimal(kind: ConnectionType) -> ConnectionInput {
    let fields: Vec<(&str, FieldInput)> = kind
        .fields()
        .iter()
        .filter(|f| f.required && f.default.is_none())
        .map(|f| (f.key, sample(f.kind)))
        .collect();
    input(kind, &fields)
}

#[test]
fn the_catalogue_has_every_type_of_the_spec_sorted_by_title() {
    let ids: Vec<&str> = ConnectionType::ALL.iter().map(|k| k.id()).collect();
    for id in [
        "anthropic",
        "ollama",
        "openai",
        "aws",
        "s3",
        "azure",
        "azure_devops",
        "discord",
        "dynatrace",
        "elasticsearch",
        "email",
        "google_cloud",
        "generic_webhook",
        "git",
        "github",
        "google_chat",
        "http",
        "ifttt",
        "kubernetes",
        "ldap",
        "matrix",
        "mattermost",
        "mongo",
        "mysql",
        "ntfy",
        "opsgenie",
        "postgres",
        "prometheus",
        "pushbullet",
        "pushover",
        "redis",
        "restic",
        "rocketchat",
        "sftp",
        "slack",
        "smb",
        "sql_server",
        "teams",
        "telegram",
        "windows",
        "zulip_chat",
        "folder",
        "gcs",
        "gitlab",
        "jmeter",
    ] {
        assert!(ids.contains(&id), "{id} missing");
    }
    assert_eq!(ids.len(), 45);
    let titles: Vec<String> = ConnectionType::ALL
        .iter()
        .map(|k| k.title().to_lowercase())
        .collect();
    let mut sorted = titles.clone();
    sorted.sort();
    assert_eq!(titles, sorted);
    let hidden: Vec<_> = ConnectionType::ALL.iter().filter(|k| k.hidden()).collect();
    assert_eq!(hidden, [&ConnectionType::Jmeter]);
    let notification: Vec<&str> = ConnectionType::ALL
        .iter()
        .filter(|k| k.notification_only())
        .map(|k| k.id())
        .collect();
    let mut expected = quarterdeck_connections::notify::NOTIFICATION_TYPES.to_vec();
    expected.sort();
    let mut got = notification.clone();
    got.sort();
    assert_eq!(got, expected);
}

#[test]
fn every_type_saves_a_minimal_form() {
    let keyring = Keyring::for_tests();
    for &kind in ConnectionType::ALL {
        let (saved, stored) = form::validate(&minimal(kind), None, &keyring)
            .unwrap_or_else(|e| panic!("{}: {e}", kind.id()));
        assert_eq!(saved, kind);
        if kind.has_composite_url() {
            let url = stored.url.as_deref().expect("a composite url");
            assert!(Keyring::is_encrypted(url), "{}: {url}", kind.id());
        }
    }
}

#[test]
fn each_required_field_left_out_is_named() {
    let keyring = Keyring::for_tests();
    for &kind in ConnectionType::ALL {
        for field in kind
            .fields()
            .iter()
            .filter(|f| f.required && f.default.is_none())
        {
            let mut form = minimal(kind);
            form.fields.remove(field.key);
            let errors = form::validate(&form, None, &keyring).expect_err(field.key);
            assert_eq!(
                errors.get(field.key),
                Some(REQUIRED),
                "{}.{}",
                kind.id(),
                field.key
            );
            assert_eq!(errors.0.len(), 1, "{}: {errors}", kind.id());
        }
    }
}

#[test]
fn name_namespace_and_type_are_checked() {
    let keyring = Keyring::for_tests();
    let mut form = minimal(ConnectionType::Postgres);
    form.name = String::new();
    form.namespace = String::new();
    let errors = form::validate(&form, None, &keyring).unwrap_err();
    assert_eq!(errors.get("name"), Some(REQUIRED));
    assert_eq!(errors.get("namespace"), Some(REQUIRED));

    form.name = "Bad_Name".into();
    form.namespace = "has.dot".into();
    let errors = form::validate(&form, None, &keyring).unwrap_err();
    assert!(
        errors.get("name").unwrap().contains("lower case"),
        "{errors}"
    );
    assert!(
        errors.get("namespace").unwrap().contains("lower case"),
        "{errors}"
    );

    form.name = "db.prod-1".into();
    form.namespace = "team-a".into();
    assert!(form::validate(&form, None, &keyring).is_ok());

    form.kind = "nope".into();
    let errors = form::validate(&form, None, &keyring).unwrap_err();
    assert_eq!(errors.get("type"), Some("Unknown connection type 'nope'"));
    form.kind = String::new();
    let errors = form::validate(&form, None, &keyring).unwrap_err();
    assert_eq!(errors.get("type"), Some(REQUIRED));
}

#[test]
fn the_wire_shape_defaults_the_namespace_and_refuses_unknown_keys() {
    let form: ConnectionInput = serde_json::from_value(json!({
        "name": "pg", "type": "postgres",
        "fields": {
            "url": {"value": "postgres://db:5432/app"},
            "username": {"value": "app"},
            "password": {"valueFrom": {"secretKeyRef": {"name": "pg", "key": "password"}}}
        }
    }))
    .unwrap();
    assert_eq!(form.namespace, "default");
    assert_eq!(
        form.fields["password"],
        FieldInput::ValueFrom(ValueFrom::SecretKeyRef(KeyRef {
            name: "pg".into(),
            key: "password".into()
        }))
    );
    assert!(serde_json::from_value::<ConnectionInput>(json!({"name": "x", "extra": 1})).is_err());
}

#[test]
fn defaults_are_applied() {
    let keyring = Keyring::for_tests();
    let cases: &[(ConnectionType, &[(&str, &str)])] = &[
        (ConnectionType::Sftp, &[("port", "22")]),
        (ConnectionType::Smb, &[("port", "445")]),
        (
            ConnectionType::Email,
            &[("port", "587"), ("encryption", "Auto"), ("auth", "Unknown")],
        ),
        (ConnectionType::Ntfy, &[("host", "ntfy.sh")]),
        (
            ConnectionType::Opsgenie,
            &[("host", "api.opsgenie.com"), ("port", "443")],
        ),
        (ConnectionType::Teams, &[("host", "outlook.office.com")]),
        (
            ConnectionType::GenericWebhook,
            &[
                ("method", "POST"),
                ("contentType", "application/json"),
                ("messageKey", "message"),
                ("titleKey", "title"),
            ],
        ),
        (ConnectionType::Git, &[("ref", "main"), ("auth", "basic")]),
        (ConnectionType::Dynatrace, &[("scheme", "https")]),
    ];
    for (kind, defaults) in cases {
        let (_, stored) = form::validate(&minimal(*kind), None, &keyring).unwrap();
        for (key, value) in *defaults {
            assert_eq!(
                stored.properties.get(*key).map(String::as_str),
                Some(*value),
                "{}.{key}",
                kind.id()
            );
        }
    }
}

#[test]
fn numbers_and_selects_are_checked() {
    let keyring = Keyring::for_tests();
    let with = |key: &str, value: FieldInput| {
        let mut form = minimal(ConnectionType::Email);
        form.fields.insert(key.into(), value);
        form::validate(&form, None, &keyring)
    };
    let errors = with("port", text("abc")).unwrap_err();
    assert_eq!(errors.get("port"), Some("This field must be a number"));
    for bad in [0, 70000, -1] {
        let errors = with("port", FieldInput::Value(Scalar::Integer(bad))).unwrap_err();
        assert_eq!(
            errors.get("port"),
            Some("Port must be a whole number from 1 to 65535")
        );
    }
    let (_, stored) = with("port", text(" 025 ")).unwrap();
    assert_eq!(stored.properties["port"], "25");
    let errors = with("encryption", text("TLS")).unwrap_err();
    assert_eq!(
        errors.get("encryption"),
        Some("Encryption Method must be one of: None, ExplicitTLS, ImplicitTLS, Auto")
    );
    let errors = with("insecureTls", text("yes")).unwrap_err();
    assert_eq!(
        errors.get("insecureTls"),
        Some("Insecure TLS must be true or false")
    );
    let errors = with("colour", text("red")).unwrap_err();
    assert_eq!(
        errors.get("colour"),
        Some("Not a field of Email connections")
    );

    let mut redis = minimal(ConnectionType::Redis);
    redis
        .fields
        .insert("db".into(), FieldInput::Value(Scalar::Integer(-1)));
    let errors = form::validate(&redis, None, &keyring).unwrap_err();
    assert_eq!(
        errors.get("db"),
        Some("Database must be a whole number, 0 or more")
    );
}

#[test]
fn a_secret_is_encrypted_and_never_in_the_view() {
    let keyring = Keyring::for_tests();
    let form = input(
        ConnectionType::Restic,
        &[
            ("url", text("s3:https://s3.example.com/backups")),
            ("password", text("repo-password")),
            ("awsConnectionName", text("aws-prod")),
            ("username", text("AKIAEXAMPLE")),
            ("secretKey", text("very-secret-key")),
        ],
    );
    let (kind, stored) = form::validate(&form, None, &keyring).unwrap();
    let password = stored.password.clone().unwrap();
    let secret_key = stored.properties["secretKey"].clone();
    assert!(Keyring::is_encrypted(&password));
    assert!(Keyring::is_encrypted(&secret_key));
    assert_eq!(keyring.decrypt(&password).unwrap(), "repo-password");
    assert_eq!(keyring.decrypt(&secret_key).unwrap(), "very-secret-key");
    assert_eq!(
        stored.url.as_deref(),
        Some("s3:https://s3.example.com/backups")
    );

    let view = form::view(kind, &stored);
    assert_eq!(view["password"], FieldView::Set(true));
    assert_eq!(view["username"], FieldView::Set(true));
    assert_eq!(view["secretKey"], FieldView::Set(true));
    assert_eq!(
        view["awsConnectionName"],
        FieldView::Value(Scalar::Text("aws-prod".into()))
    );
    let json = serde_json::to_string(&view).unwrap();
    for secret in ["repo-password", "very-secret-key", "AKIAEXAMPLE", "enc:"] {
        assert!(!json.contains(secret), "{json}");
    }
}

#[test]
fn the_view_shows_references_unset_secrets_and_typed_values() {
    let keyring = Keyring::for_tests();
    let form = input(
        ConnectionType::Redis,
        &[
            ("url", text("redis://cache:6379")),
            ("db", FieldInput::Value(Scalar::Integer(2))),
            ("username", FieldInput::Value(Scalar::Text("app".into()))),
            (
                "password",
                FieldInput::ValueFrom(ValueFrom::ConfigMapKeyRef(KeyRef {
                    name: "redis".into(),
                    key: "pass.word".into(),
                })),
            ),
        ],
    );
    let (kind, stored) = form::validate(&form, None, &keyring).unwrap();
    assert_eq!(
        stored.password.as_deref(),
        Some("configmap://redis/pass.word")
    );
    let view = serde_json::to_value(form::view(kind, &stored)).unwrap();
    assert_eq!(
        view,
        json!({
            "url": {"value": "redis://cache:6379"},
            "db": {"value": 2},
            "username": {"value": "app"},
            "password": {"valueFrom": {"configMapKeyRef": {"name": "redis", "key": "pass.word"}}},
            "insecureTls": {"value": false}
        })
    );

    let (kind, stored) =
        form::validate(&minimal(ConnectionType::Prometheus), None, &keyring).unwrap();
    assert_eq!(form::view(kind, &stored)["password"], FieldView::Set(false));
}

#[test]
fn an_update_keeps_secrets_left_out_and_replaces_or_clears_the_others() {
    let keyring = Keyring::for_tests();
    let create = input(
        ConnectionType::Postgres,
        &[
            ("url", text("postgres://db/app")),
            ("username", text("app")),
            ("password", text("first")),
        ],
    );
    let (_, stored) = form::validate(&create, None, &keyring).unwrap();

    let mut update = create.clone();
    update.fields.remove("password");
    update.fields.insert("username".into(), text("app2"));
    let (_, kept) = form::validate(&update, Some(&stored), &keyring).unwrap();
    assert_eq!(kept.password, stored.password);
    assert_eq!(kept.username.as_deref(), Some("app2"));

    update.fields.insert("password".into(), text("second"));
    let (_, replaced) = form::validate(&update, Some(&stored), &keyring).unwrap();
    assert_eq!(
        keyring
            .decrypt(replaced.password.as_deref().unwrap())
            .unwrap(),
        "second"
    );

    update.fields.insert("password".into(), text(""));
    let errors = form::validate(&update, Some(&stored), &keyring).unwrap_err();
    assert_eq!(errors.get("password"), Some(REQUIRED));

    // Without a stored row, leaving a required secret out is an error.
    update.fields.remove("password");
    let errors = form::validate(&update, None, &keyring).unwrap_err();
    assert_eq!(errors.get("password"), Some(REQUIRED));
}

#[test]
fn an_update_rebuilds_the_composite_url_from_a_kept_secret() {
    let keyring = Keyring::for_tests();
    let create = input(
        ConnectionType::Slack,
        &[("channel", text("#ops")), ("password", text("xoxb-secret"))],
    );
    let (_, stored) = form::validate(&create, None, &keyring).unwrap();
    let url = keyring.decrypt(stored.url.as_deref().unwrap()).unwrap();
    assert_eq!(url, "slack://xoxb-secret/%23ops");
    assert!(!form::view(ConnectionType::Slack, &stored).contains_key("url"));

    let update = input(
        ConnectionType::Slack,
        &[("channel", text("#alerts")), ("botName", text("qd"))],
    );
    let (_, updated) = form::validate(&update, Some(&stored), &keyring).unwrap();
    let url = keyring.decrypt(updated.url.as_deref().unwrap()).unwrap();
    assert_eq!(url, "slack://qd@xoxb-secret/%23alerts");
    assert_eq!(updated.password, stored.password);

    // A token read from a Secret is only known when sending: no URL.
    let by_reference = input(
        ConnectionType::Slack,
        &[
            ("channel", text("#ops")),
            (
                "password",
                FieldInput::ValueFrom(ValueFrom::SecretKeyRef(KeyRef {
                    name: "slack".into(),
                    key: "token".into(),
                })),
            ),
        ],
    );
    let (_, stored) = form::validate(&by_reference, None, &keyring).unwrap();
    assert_eq!(stored.url, None);
}

#[test]
fn value_from_is_refused_on_a_field_that_is_not_secret() {
    let keyring = Keyring::for_tests();
    let mut form = minimal(ConnectionType::Postgres);
    form.fields.insert(
        "username".into(),
        FieldInput::ValueFrom(ValueFrom::SecretKeyRef(KeyRef {
            name: "pg".into(),
            key: "user".into(),
        })),
    );
    let errors = form::validate(&form, None, &keyring).unwrap_err();
    assert_eq!(
        errors.get("username"),
        Some("Username is not a secret field: it takes a value, not a reference")
    );
    assert_eq!(errors.0.len(), 1);

    form.fields.insert("username".into(), text("app"));
    form.fields.insert(
        "password".into(),
        FieldInput::ValueFrom(ValueFrom::SecretKeyRef(KeyRef {
            name: "Bad/Name".into(),
            key: "user".into(),
        })),
    );
    let errors = form::validate(&form, None, &keyring).unwrap_err();
    assert_eq!(
        errors.get("password"),
        Some("The Secret's name must be a Kubernetes object name")
    );
}

#[test]
fn fields_are_stored_where_the_contract_says() {
    let keyring = Keyring::for_tests();
    let form = input(
        ConnectionType::Sftp,
        &[
            ("url", text(" files.example.com ")),
            ("username", text("ftp")),
            ("password", text("pw")),
            ("port", FieldInput::Value(Scalar::Integer(2222))),
        ],
    );
    let (_, stored) = form::validate(&form, None, &keyring).unwrap();
    assert_eq!(stored.url.as_deref(), Some("files.example.com"));
    assert_eq!(stored.username.as_deref(), Some("ftp"));
    assert_eq!(
        stored.properties,
        BTreeMap::from([("port".to_string(), "2222".to_string())])
    );
    for &kind in ConnectionType::ALL {
        for field in kind.fields() {
            if field.kind == Kind::Boolean {
                assert_eq!(field.place(), Place::InsecureTls, "{}", kind.id());
            }
        }
    }
}

#[test]
fn a_typed_struct_reads_a_stored_connection() {
    let values = BTreeMap::from([
        ("url".to_string(), "files.example.com".to_string()),
        ("username".to_string(), "ftp".to_string()),
        ("password".to_string(), "pw".to_string()),
    ]);
    let sftp = quarterdeck_connections::types::Sftp::parse(&values).unwrap_err();
    assert_eq!(sftp.get("port"), Some(REQUIRED));
    let mut values = values;
    values.insert("port".into(), "22".into());
    let sftp = quarterdeck_connections::types::Sftp::parse(&values).unwrap();
    assert_eq!(sftp.port, 22);
    assert_eq!(sftp.host, "files.example.com");
}

#[test]
fn the_committed_typescript_catalogue_is_current() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../web/src/api/connections.gen.ts"
    );
    let committed = std::fs::read_to_string(path).expect("web/src/api/connections.gen.ts");
    assert!(
        committed == catalogue::typescript(),
        "{} is stale: run `cargo xtask connections-ts`",
        catalogue::TS_PATH
    );
}
