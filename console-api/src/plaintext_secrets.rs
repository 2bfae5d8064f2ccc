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
/// included) in one transaction.
pub(crate) async fn encrypt_all(
    pool: &PgPool,
    keyring: &Keyring,
) -> Result<(), quarterdeck_store::Error> {
    let mut tx = pool.begin().await?;
    for mut row in connection_keys::lock_all(&mut tx).await? {
        let encrypted = encrypt_row(&mut row, keyring);
        if encrypted > 0 {
            connection_keys::write(&mut tx, &row).await?;
            tracing::info!(connection = %format!("{}/{}", row.namespace, row.name), values = encrypted, "encrypted secret values stored in plain text");
        }
    }
    tx.commit().await?;
    Ok(())
}
