//! Checks read named connections with their secret values decrypted.

use quarterdeck_checks::Lookup;
use quarterdeck_connections::keyring::Keyring;
use quarterdeck_operator::engine::lookup::DbLookup;
use sqlx::PgPool;

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_connection_reaches_checks_decrypted(pool: PgPool) {
    let keyring = Keyring::for_tests();
    sqlx::query(
        "INSERT INTO connections (name, namespace, type, url, username, password, properties) \
         VALUES ('db', 'team', 'postgres', 'postgres://db:5432/app', 'app', $1, $2)",
    )
    .bind(keyring.encrypt("hunter2"))
    .bind(serde_json::json!({"tokenA": keyring.encrypt("token-a"), "port": "5432"}))
    .execute(&pool)
    .await
    .unwrap();

    let lookup = DbLookup::new(pool.clone(), None, keyring);
    let connection = lookup
        .connection("other", "connection://team/db")
        .await
        .unwrap();
    assert_eq!(connection.url.as_deref(), Some("postgres://db:5432/app"));
    assert_eq!(connection.username.as_deref(), Some("app"));
    assert_eq!(connection.password.as_deref(), Some("hunter2"));
    assert_eq!(connection.properties["tokenA"], "token-a");
    assert_eq!(connection.properties["port"], "5432");

    // Another process's key: the error names the connection, the field and the key, not the value.
    let stranger = Keyring::parse(&Keyring::generate_key(), "test").unwrap();
    let err = DbLookup::new(pool, None, stranger)
        .connection("team", "db")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("team/db") && err.contains("password"), "{err}");
    assert!(
        err.contains(&Keyring::for_tests().current_key_id()),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
}
