//! Secret values still stored in plain text (rows saved through the data API
//! before connections had their own routes and encryption at rest) are
//! encrypted when the API starts and whenever the connection key is rotated.

use quarterdeck_connections::catalogue::ConnectionType;
use quarterdeck_connections::keyring::Keyring;
use quarterdeck_connections::resolve::is_plain_text;
use quarterdeck_store::connection_keys::{self, StoredValues};
use sqlx::PgPool;

/// The secret fields of a type this version does not know.
const UNKNOWN_TYPE_SECRETS: &[&str] = &["password", "certificate"];

/// Encrypts `row`'s plain-text secret values with `keyring`'s current key;
/// returns how many it encrypted.
pub(crate) fn encrypt_row(row: &mut StoredValues, keyring: &Keyring) -> usize {
    let keys: Vec<&str> = match ConnectionType::from_id(&row.kind) {
        Some(kind) => kind.encrypted_keys().collect(),
        None => UNKNOWN_TYPE_SECRETS.to_vec(),
    };
    let mut encrypted = 0;
    for key in keys {
        if let Some(value) = row.value_mut(key).filter(|v| is_plain_text(v)) {
            *value = keyring.encrypt(value);
            encrypted += 1;
        }
    }
    encrypted
}

/// Encrypts every plain-text secret value of every connection (deleted rows
/// included). Rows are read without locks first, so a start that finds
/// nothing to encrypt (nearly every start) locks no row; the rows that hold
/// plain text are then locked, read again and written in one transaction.
pub(crate) async fn encrypt_all(
    pool: &PgPool,
    keyring: &Keyring,
) -> Result<(), quarterdeck_store::Error> {
    let pending: Vec<_> = connection_keys::read_all(pool)
        .await?
        .into_iter()
        .filter_map(|mut row| (encrypt_row(&mut row, keyring) > 0).then_some(row.id))
        .collect();
    if pending.is_empty() {
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    for mut row in connection_keys::lock(&mut tx, &pending).await? {
        let encrypted = encrypt_row(&mut row, keyring);
        if encrypted > 0 {
            connection_keys::write(&mut tx, &row).await?;
            tracing::info!(connection = %format!("{}/{}", row.namespace, row.name), values = encrypted, "encrypted secret values stored in plain text");
        }
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn password(pool: &PgPool, name: &str) -> String {
        sqlx::query_scalar("SELECT password FROM connections WHERE name = $1")
            .bind(name)
            .fetch_one(pool)
            .await
            .unwrap()
    }

    #[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
    async fn plain_text_secrets_are_encrypted_once_and_references_left_alone(pool: PgPool) {
        sqlx::query(
            "INSERT INTO connections (name, type, password) VALUES \
             ('raw', 'postgres', 'hunter2'), ('referenced', 'postgres', 'secret://db/password')",
        )
        .execute(&pool)
        .await
        .unwrap();
        let keyring = Keyring::parse(&Keyring::generate_key(), "a test key").unwrap();
        encrypt_all(&pool, &keyring).await.unwrap();
        let sealed = password(&pool, "raw").await;
        assert!(sealed.starts_with("enc:v1:"), "{sealed}");
        assert_eq!(keyring.decrypt(&sealed).unwrap(), "hunter2");
        assert_eq!(password(&pool, "referenced").await, "secret://db/password");
        // Nothing left in plain text: the next start writes nothing.
        encrypt_all(&pool, &keyring).await.unwrap();
        assert_eq!(password(&pool, "raw").await, sealed);
    }
}
