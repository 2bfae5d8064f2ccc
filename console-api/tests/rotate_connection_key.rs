//! `quarterdeck-api rotate-connection-key` as an administrator runs it: the
//! binary against a real PostgreSQL database and a key file.

use std::path::Path;
use std::process::{Command, Output};

use quarterdeck_connections::keyring::{KeyArgs, Keyring};
use sqlx::PgPool;

type Row = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
);

/// Every connection row's name and stored values, in name order.
async fn rows(pool: &PgPool) -> Vec<Row> {
    sqlx::query_as(
        "SELECT name, url, username, password, certificate, properties::text \
         FROM connections ORDER BY name",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn insert(pool: &PgPool, name: &str, password: &str, properties: serde_json::Value) {
    sqlx::query(
        "INSERT INTO connections (name, type, url, username, password, certificate, properties) \
         VALUES ($1, 'http', 'https://example.test', 'alice', $2, 'secret://tls/ca.crt', $3)",
    )
    .bind(name)
    .bind(password)
    .bind(properties)
    .execute(pool)
    .await
    .unwrap();
}

fn database_url(pool: &PgPool) -> String {
    let base = std::env::var("DATABASE_URL").unwrap();
    let (server, _) = base.rsplit_once('/').unwrap();
    format!(
        "{server}/{}",
        pool.connect_options().get_database().unwrap()
    )
}

fn rotate(pool: &PgPool, envs: &[(&str, &str)], args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_quarterdeck-api"))
        .env("DATABASE_URL", database_url(pool))
        .env_remove("QUARTERDECK_CONNECTION_KEY")
        .env_remove("QUARTERDECK_CONNECTION_KEY_FILE")
        .env("NO_COLOR", "1")
        .envs(envs.iter().copied())
        .arg("rotate-connection-key")
        .args(args)
        .output()
        .unwrap();
    eprintln!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn key_file_keyring(path: &Path) -> Keyring {
    KeyArgs {
        connection_key: None,
        connection_key_file: Some(path.to_owned()),
    }
    .load()
    .unwrap()
}

fn write_key_file(path: &Path, keys: &[&str]) -> Keyring {
    std::fs::write(path, keys.join("\n") + "\n").unwrap();
    key_file_keyring(path)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rotation_re_encrypts_every_value_under_a_new_key_and_prune_drops_the_old(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let old_key = Keyring::generate_key();
    let old = write_key_file(&path, &[&old_key]);
    insert(
        &pool,
        "chat",
        &old.encrypt("bot-token"),
        serde_json::json!({"channel": "general", "tokenA": old.encrypt("token-a")}),
    )
    .await;
    insert(
        &pool,
        "gone",
        &old.encrypt("deleted-but-kept"),
        serde_json::json!({}),
    )
    .await;
    sqlx::query("UPDATE connections SET deleted_at = now() WHERE name = 'gone'")
        .execute(&pool)
        .await
        .unwrap();
    insert(
        &pool,
        "referenced",
        "secret://chat/token",
        serde_json::json!({}),
    )
    .await;
    let before = rows(&pool).await;

    let out = rotate(
        &pool,
        &[("QUARTERDECK_CONNECTION_KEY_FILE", path.to_str().unwrap())],
        &[],
    );
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("re-encrypted 3 values in 2 connections"),
        "{}",
        stdout(&out)
    );

    let new = key_file_keyring(&path);
    let ids = new.key_ids();
    assert_eq!(ids.len(), 2, "the new key first, the old one kept");
    assert_eq!(ids[1], old.current_key_id());
    assert_ne!(ids[0], ids[1]);
    let after = rows(&pool).await;
    let plain = |row: &Row| -> Vec<String> {
        let properties: serde_json::Value = serde_json::from_str(&row.5).unwrap();
        let mut values = vec![row.3.clone().unwrap()];
        values.extend(
            properties
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_str().unwrap().to_owned()),
        );
        values
    };
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(
            (&b.0, &b.1, &b.2, &b.4),
            (&a.0, &a.1, &a.2, &a.4),
            "plain values untouched"
        );
        for (was, is) in plain(b).iter().zip(plain(a)) {
            if Keyring::is_encrypted(was) {
                assert_eq!(Keyring::key_id_of(&is), Some(ids[0].as_str()));
                assert_eq!(new.decrypt(&is).unwrap(), old.decrypt(was).unwrap());
            } else {
                assert_eq!(*was, is);
            }
        }
    }

    let out = rotate(
        &pool,
        &[("QUARTERDECK_CONNECTION_KEY_FILE", path.to_str().unwrap())],
        &["--prune"],
    );
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("dropped 1 previous keys"),
        "{}",
        stdout(&out)
    );
    let pruned = key_file_keyring(&path);
    assert_eq!(pruned.key_ids(), vec![ids[0].clone()]);
    assert_eq!(
        pruned.decrypt(after[0].3.as_deref().unwrap()).unwrap(),
        "bot-token"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_value_nobody_can_decrypt_fails_the_whole_rotation_and_changes_nothing(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let ours = write_key_file(&path, &[&Keyring::generate_key()]);
    let lost = Keyring::parse(&Keyring::generate_key(), "a lost key").unwrap();
    // Rows are visited in id order: the unreadable one comes between two good ones.
    for name in ["a-first", "c-third"] {
        insert(&pool, name, &ours.encrypt("fine"), serde_json::json!({})).await;
    }
    insert(
        &pool,
        "b-lost",
        &lost.encrypt("unreadable"),
        serde_json::json!({}),
    )
    .await;
    for (n, name) in ["a-first", "b-lost", "c-third"].iter().enumerate() {
        sqlx::query("UPDATE connections SET id = $1 WHERE name = $2")
            .bind(uuid::Uuid::from_u128(n as u128 + 1))
            .bind(name)
            .execute(&pool)
            .await
            .unwrap();
    }
    let rows_before = rows(&pool).await;
    let file_before = std::fs::read(&path).unwrap();

    let out = rotate(
        &pool,
        &[("QUARTERDECK_CONNECTION_KEY_FILE", path.to_str().unwrap())],
        &[],
    );
    assert!(!out.status.success());
    let error = stderr(&out);
    assert!(error.contains("connection default/b-lost"), "{error}");
    assert!(error.contains(&lost.current_key_id()), "{error}");
    assert!(error.contains("nothing was changed"), "{error}");
    assert!(
        !error.contains("unreadable") && !error.contains("fine"),
        "no values in errors"
    );
    assert_eq!(rows(&pool).await, rows_before, "every row as it was");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        file_before,
        "the key file as it was"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn prune_refuses_while_a_previous_key_is_used_until_values_are_re_encrypted(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let previous_key = Keyring::generate_key();
    let previous = Keyring::parse(&previous_key, "previous").unwrap();
    let both = write_key_file(&path, &[&Keyring::generate_key(), &previous_key]);
    insert(&pool, "old", &previous.encrypt("p"), serde_json::json!({})).await;
    insert(&pool, "new", &both.encrypt("n"), serde_json::json!({})).await;
    let env = [("QUARTERDECK_CONNECTION_KEY_FILE", path.to_str().unwrap())];
    let file_before = std::fs::read(&path).unwrap();

    let out = rotate(&pool, &env, &["--prune"]);
    assert!(!out.status.success());
    let error = stderr(&out);
    assert!(
        error.contains(&format!("key {}: 1 values", previous.current_key_id())),
        "{error}"
    );
    assert!(error.contains("--reencrypt"), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), file_before);

    let out = rotate(&pool, &env, &["--reencrypt"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("re-encrypted 1 values in 1 connections"));
    assert_eq!(
        key_file_keyring(&path).key_ids(),
        both.key_ids(),
        "no new key"
    );

    let out = rotate(&pool, &env, &["--prune"]);
    assert!(out.status.success());
    let pruned = key_file_keyring(&path);
    assert_eq!(pruned.key_ids(), vec![both.current_key_id()]);
    for row in rows(&pool).await {
        pruned.decrypt(row.3.as_deref().unwrap()).unwrap();
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn keys_given_by_flag_are_printed_to_set_and_restart_with(pool: PgPool) {
    let old_key = Keyring::generate_key();
    let old = Keyring::parse(&old_key, "old").unwrap();
    insert(
        &pool,
        "chat",
        &old.encrypt("bot-token"),
        serde_json::json!({}),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let new_key = Keyring::generate_key();
    let new_key_file = dir.path().join("new-key");
    std::fs::write(&new_key_file, format!("{new_key}\n")).unwrap();

    let out = rotate(
        &pool,
        &[("QUARTERDECK_CONNECTION_KEY", &old_key)],
        &["--new-key-file", new_key_file.to_str().unwrap()],
    );
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains("restart quarterdeck-api and the operator"),
        "{text}"
    );
    assert!(text.contains(&format!("{new_key},{old_key}")), "{text}");
    let stored = rows(&pool).await[0].3.clone().unwrap();
    let new = Keyring::parse(&new_key, "new").unwrap();
    assert_eq!(
        Keyring::key_id_of(&stored),
        Some(new.current_key_id().as_str())
    );
    assert_eq!(new.decrypt(&stored).unwrap(), "bot-token");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn without_a_key_file_there_is_nothing_to_rotate(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let out = rotate(
        &pool,
        &[("QUARTERDECK_CONNECTION_KEY_FILE", path.to_str().unwrap())],
        &[],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
    assert!(!path.exists(), "no key file created");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn re_encryption_also_encrypts_secret_values_left_in_plain_text(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let keyring = write_key_file(&path, &[&Keyring::generate_key()]);
    insert(&pool, "legacy", "plain-password", serde_json::json!({})).await;

    let out = rotate(
        &pool,
        &[("QUARTERDECK_CONNECTION_KEY_FILE", path.to_str().unwrap())],
        &["--reencrypt"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("re-encrypted 1 values in 1 connections"),
        "{}",
        stdout(&out)
    );
    let row = &rows(&pool).await[0];
    assert_eq!(
        row.1.as_deref(),
        Some("https://example.test"),
        "not a secret"
    );
    assert_eq!(row.2.as_deref(), Some("alice"), "not a secret");
    assert_eq!(
        keyring.decrypt(row.3.as_deref().unwrap()).unwrap(),
        "plain-password"
    );
    assert_eq!(row.4.as_deref(), Some("secret://tls/ca.crt"), "a reference");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn authenticator_apps_and_single_sign_on_secrets_are_rotated_too(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connection-key");
    let old = write_key_file(&path, &[&Keyring::generate_key()]);
    let person: uuid::Uuid = sqlx::query_scalar(
        "INSERT INTO people (name, email) VALUES ('Ada', 'ada@example.com') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO totp_credentials (person_id, secret, confirmed_at) VALUES ($1, $2, now())",
    )
    .bind(person)
    .bind(old.encrypt("JBSWY3DPEHPK3PXP"))
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO sso_providers (slug, label, issuer, client_id, client_secret) \
         VALUES ('corp', 'Corp', 'https://id.example.com', 'console', $1)",
    )
    .bind(old.encrypt("client-secret"))
    .execute(&pool)
    .await
    .unwrap();
    let env = [("QUARTERDECK_CONNECTION_KEY_FILE", path.to_str().unwrap())];

    let out = rotate(&pool, &env, &[]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("re-encrypted 2 sign-in secrets"),
        "{}",
        stdout(&out)
    );
    let out = rotate(&pool, &env, &["--prune"]);
    assert!(
        out.status.success(),
        "nothing needs the old key: {}",
        stderr(&out)
    );
    let pruned = key_file_keyring(&path);
    let totp: String = sqlx::query_scalar("SELECT secret FROM totp_credentials")
        .fetch_one(&pool)
        .await
        .unwrap();
    let client: String = sqlx::query_scalar("SELECT client_secret FROM sso_providers")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(pruned.decrypt(&totp).unwrap(), "JBSWY3DPEHPK3PXP");
    assert_eq!(pruned.decrypt(&client).unwrap(), "client-secret");

    // A secret under a key nobody has fails the rotation, naming its owner.
    sqlx::query("UPDATE sso_providers SET client_secret = $1")
        .bind(
            Keyring::parse(&Keyring::generate_key(), "elsewhere")
                .unwrap()
                .encrypt("x"),
        )
        .execute(&pool)
        .await
        .unwrap();
    let out = rotate(&pool, &env, &[]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("single sign-on provider corp"),
        "{}",
        stderr(&out)
    );
}
