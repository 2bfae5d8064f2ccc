//! Every stored value of every connection, for re-encrypting them under a new
//! connection key (`quarterdeck-api rotate-connection-key`) and for finding
//! which keys are still in use. Deleted rows are included: their values are
//! kept, so they must stay readable under the keys that remain.

use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::Error;

/// A connection row's values as stored (literals, `enc:` values, references).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct StoredValues {
    pub id: Uuid,
    pub namespace: String,
    pub name: String,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub certificate: Option<String>,
    /// A JSON object, normally of strings.
    pub properties: Json<Value>,
}

impl StoredValues {
    /// Every text value of the row: the columns, then each string property.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        let columns = [&self.url, &self.username, &self.password, &self.certificate]
            .into_iter()
            .filter_map(|v| v.as_deref());
        let properties = self
            .properties
            .as_object()
            .into_iter()
            .flat_map(|map| map.values())
            .filter_map(Value::as_str);
        columns.chain(properties)
    }

    /// The stored text of the field `key`: its column, or the property of
    /// that name (None when unset or not text).
    pub fn value_mut(&mut self, key: &str) -> Option<&mut String> {
        match key {
            "url" => self.url.as_mut(),
            "username" => self.username.as_mut(),
            "password" => self.password.as_mut(),
            "certificate" => self.certificate.as_mut(),
            _ => match self.properties.get_mut(key) {
                Some(Value::String(text)) => Some(text),
                _ => None,
            },
        }
    }

    /// Applies `change` to every text value; `Ok(None)` keeps a value as it
    /// is. Returns how many values changed.
    pub fn map_values<E>(
        &mut self,
        mut change: impl FnMut(&str) -> Result<Option<String>, E>,
    ) -> Result<usize, E> {
        let mut changed = 0;
        for column in [
            &mut self.url,
            &mut self.username,
            &mut self.password,
            &mut self.certificate,
        ] {
            if let Some(value) = column
                && let Some(new) = change(value)?
            {
                *value = new;
                changed += 1;
            }
        }
        if let Some(map) = self.properties.as_object_mut() {
            for value in map.values_mut() {
                if let Value::String(text) = value
                    && let Some(new) = change(text)?
                {
                    *text = new;
                    changed += 1;
                }
            }
        }
        Ok(changed)
    }
}

/// The row query's start (a literal, so each statement stays one).
macro_rules! select_values {
    ($rest:literal) => {
        concat!(
            "SELECT id, namespace, name, type, url, username, password, certificate, properties \
             FROM connections ",
            $rest
        )
    };
}

/// Every connection row's values, deleted ones included, each row locked
/// for update until the transaction `tx` ends, so that nobody saves a
/// connection between reading its values and writing them back.
pub async fn lock_all(tx: &mut PgConnection) -> Result<Vec<StoredValues>, Error> {
    Ok(sqlx::query_as(select_values!("ORDER BY id FOR UPDATE"))
        .fetch_all(tx)
        .await?)
}

/// Every connection row's values, deleted ones included, without locks: to
/// find the few rows worth locking.
pub async fn read_all(pool: &PgPool) -> Result<Vec<StoredValues>, Error> {
    Ok(sqlx::query_as(select_values!("ORDER BY id"))
        .fetch_all(pool)
        .await?)
}

/// [`lock_all`] for the rows `ids` only.
pub async fn lock(tx: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<StoredValues>, Error> {
    Ok(
        sqlx::query_as(select_values!("WHERE id = ANY($1) ORDER BY id FOR UPDATE"))
            .bind(ids)
            .fetch_all(tx)
            .await?,
    )
}

/// Writes a row's values back (in the transaction that locked it).
pub async fn write(tx: &mut PgConnection, row: &StoredValues) -> Result<(), Error> {
    sqlx::query(
        "UPDATE connections SET url = $2, username = $3, password = $4, certificate = $5, \
         properties = $6 WHERE id = $1",
    )
    .bind(row.id)
    .bind(&row.url)
    .bind(&row.username)
    .bind(&row.password)
    .bind(&row.certificate)
    .bind(&row.properties)
    .execute(tx)
    .await?;
    Ok(())
}

/// A value sealed under the connection keyring outside the connections
/// table, one per row: an authenticator app's secret, a single sign-on
/// provider's client secret.
#[derive(Debug, Clone)]
pub struct Sealed {
    table: &'static Holder,
    key: Uuid,
    /// Whose value it is, for messages.
    pub owner: String,
    pub value: String,
}

/// A table holding one sealed value a row: its key column, the value's
/// column, and an expression naming the row's owner.
#[derive(Debug)]
struct Holder {
    table: &'static str,
    key: &'static str,
    column: &'static str,
    owner: &'static str,
}

const HOLDERS: &[Holder] = &[
    Holder {
        table: "totp_credentials",
        key: "person_id",
        column: "secret",
        owner: "'the authenticator app of person ' || person_id",
    },
    Holder {
        table: "sso_providers",
        key: "id",
        column: "client_secret",
        owner: "'single sign-on provider ' || slug",
    },
];

/// Every sealed value outside the connections table, each row locked for
/// update until the transaction `tx` ends.
pub async fn lock_sealed(tx: &mut PgConnection) -> Result<Vec<Sealed>, Error> {
    let mut all = Vec::new();
    for holder in HOLDERS {
        let rows: Vec<(Uuid, String, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {key}, {owner}, {column} FROM {table} ORDER BY {key} FOR UPDATE",
            key = holder.key,
            owner = holder.owner,
            column = holder.column,
            table = holder.table,
        )))
        .fetch_all(&mut *tx)
        .await?;
        all.extend(rows.into_iter().map(|(key, owner, value)| Sealed {
            table: holder,
            key,
            owner,
            value,
        }));
    }
    Ok(all)
}

/// Writes a sealed value back (in the transaction that locked it).
pub async fn write_sealed(tx: &mut PgConnection, sealed: &Sealed) -> Result<(), Error> {
    let holder = sealed.table;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {table} SET {column} = $2 WHERE {key} = $1",
        table = holder.table,
        column = holder.column,
        key = holder.key,
    )))
    .bind(sealed.key)
    .bind(&sealed.value)
    .execute(tx)
    .await?;
    Ok(())
}
