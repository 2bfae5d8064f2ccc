//! Self-service identity flows (registration, recovery, verification), the
//! codes they mail, and the admin settings behind them. Codes and link
//! secrets are stored as digests only.

use chrono::{DateTime, Utc};
use rand::Rng;
use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

use crate::people::Person;
use crate::{Error, password, secret, sessions, tokens};

/// Codes a person may be sent per purpose in an hour.
pub const CODES_PER_HOUR: i64 = 5;
/// Wrong codes a flow takes before its code stops working.
pub const ATTEMPTS_PER_FLOW: i32 = 5;

/// The admin settings of self-service identity.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Settings {
    /// The e-mail connection the flows send through; None: no mail.
    pub mail_connection_id: Option<Uuid>,
    pub registration_enabled: bool,
    /// Lower-case domains registration is limited to; empty: any.
    pub registration_domains: Vec<String>,
    /// The role new people get; never admin.
    pub registration_role: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mail_connection_id: None,
            registration_enabled: false,
            registration_domains: Vec::new(),
            registration_role: "viewer".into(),
        }
    }
}

impl Settings {
    /// Whether registration takes `email` (its domain is allowed).
    pub fn allows_domain(&self, email: &str) -> bool {
        let domain = email.rsplit_once('@').map(|(_, d)| d.to_lowercase());
        self.registration_domains.is_empty()
            || domain.is_some_and(|d| self.registration_domains.contains(&d))
    }
}

/// The settings; a deleted mail connection reads as none.
pub async fn settings(db: impl PgExecutor<'_>) -> Result<Settings, Error> {
    let row: Option<Settings> = sqlx::query_as(
        "SELECT c.id AS mail_connection_id, s.registration_enabled, s.registration_domains, \
                s.registration_role \
         FROM identity_settings s \
         LEFT JOIN connections c ON c.id = s.mail_connection_id AND c.deleted_at IS NULL",
    )
    .fetch_optional(db)
    .await?;
    Ok(row.unwrap_or_default())
}

/// Stores the settings as changed by `by`. Callers check that `by` may.
pub async fn save_settings(pool: &PgPool, settings: &Settings, by: Uuid) -> Result<(), Error> {
    sqlx::query(
        "INSERT INTO identity_settings \
             (mail_connection_id, registration_enabled, registration_domains, registration_role, updated_by) \
         VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (singleton) DO UPDATE SET \
             mail_connection_id = EXCLUDED.mail_connection_id, \
             registration_enabled = EXCLUDED.registration_enabled, \
             registration_domains = EXCLUDED.registration_domains, \
             registration_role = EXCLUDED.registration_role, \
             updated_by = EXCLUDED.updated_by, updated_at = now()",
    )
    .bind(settings.mail_connection_id)
    .bind(settings.registration_enabled)
    .bind(&settings.registration_domains)
    .bind(&settings.registration_role)
    .bind(by)
    .execute(pool)
    .await?;
    Ok(())
}

/// The kinds of self-service flow besides sign-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Registration,
    Recovery,
    Verification,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Registration => "registration",
            Kind::Recovery => "recovery",
            Kind::Verification => "verification",
        }
    }
}

/// A flow's state: `choose_method`, `sent_email` or `passed_challenge`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Flow {
    pub id: Uuid,
    pub state: String,
    pub return_to: Option<String>,
    pub email: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
}

impl Flow {
    /// Expired, or already finished (a replayed submit).
    pub fn over(&self) -> bool {
        self.expires_at <= Utc::now() || self.used_at.is_some()
    }
}

const FLOW_COLUMNS: &str = "id, state, return_to, email, created_at, expires_at, used_at";

/// Starts a flow; returns it with its CSRF token. Flows expired for a day
/// are pruned on the way.
pub async fn create_flow(
    pool: &PgPool,
    kind: Kind,
    return_to: Option<&str>,
    lifetime: std::time::Duration,
) -> Result<(Flow, String), Error> {
    sqlx::query("DELETE FROM identity_flows WHERE expires_at < now() - interval '1 day'")
        .execute(pool)
        .await?;
    let csrf = secret::generate("csrf_");
    let flow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO identity_flows (kind, csrf_hash, return_to, expires_at) \
         VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING {FLOW_COLUMNS}"
    )))
    .bind(kind.as_str())
    .bind(secret::digest(&csrf))
    .bind(return_to)
    .bind(lifetime.as_secs_f64())
    .fetch_one(pool)
    .await?;
    Ok((flow, csrf))
}

/// The flow of `kind` and the digest of its CSRF token.
pub async fn flow(pool: &PgPool, kind: Kind, id: Uuid) -> Result<Option<(Flow, String)>, Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        flow: Flow,
        csrf_hash: String,
    }
    let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FLOW_COLUMNS}, csrf_hash FROM identity_flows WHERE id = $1 AND kind = $2"
    )))
    .bind(id)
    .bind(kind.as_str())
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| (r.flow, r.csrf_hash)))
}

/// The live human with this address, if any.
pub async fn person_by_email(pool: &PgPool, email: &str) -> Result<Option<Person>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, email, avatar, type, roles FROM people \
         WHERE lower(email) = lower($1) AND deleted_at IS NULL AND type IS NULL",
    )
    .bind(email)
    .fetch_optional(pool)
    .await?)
}

/// A code to mail, and for verification a link secret.
#[derive(Debug, Clone)]
pub struct Issued {
    pub code: String,
    pub link: Option<String>,
}

fn code_digest(flow: Uuid, code: &str) -> String {
    secret::digest(&format!("{flow}:{code}"))
}

/// Records that the flow sent (or, for an unknown address, would have sent)
/// a code to `email`, so that both look the same to the client.
pub async fn mark_sent(pool: &PgPool, flow: Uuid, email: &str) -> Result<(), Error> {
    sqlx::query(
        "UPDATE identity_flows SET state = 'sent_email', email = $2, attempts = 0 WHERE id = $1",
    )
    .bind(flow)
    .bind(email)
    .execute(pool)
    .await?;
    Ok(())
}

/// Issues a six-digit code of the flow for `person` at `email` (and, with
/// `link`, a link secret), ending the flow's earlier codes; None once the
/// person was sent [`CODES_PER_HOUR`] codes of this kind in the past hour.
pub async fn issue_code(
    pool: &PgPool,
    flow: Uuid,
    kind: Kind,
    person: Uuid,
    email: &str,
    lifetime: std::time::Duration,
    link: bool,
) -> Result<Option<Issued>, Error> {
    let mut tx = pool.begin().await?;
    // Serialises issuing per person, so the count below holds.
    sqlx::query("SELECT id FROM people WHERE id = $1 FOR UPDATE")
        .bind(person)
        .execute(&mut *tx)
        .await?;
    let recent: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM identity_codes \
         WHERE person_id = $1 AND purpose = $2 AND created_at > now() - interval '1 hour'",
    )
    .bind(person)
    .bind(kind.as_str())
    .fetch_one(&mut *tx)
    .await?;
    if recent >= CODES_PER_HOUR {
        return Ok(None);
    }
    sqlx::query("UPDATE identity_codes SET used_at = now() WHERE flow_id = $1 AND used_at IS NULL")
        .bind(flow)
        .execute(&mut *tx)
        .await?;
    let code = format!("{:06}", rand::rng().random_range(0..1_000_000));
    let link = link.then(|| secret::generate("qdv_"));
    sqlx::query(
        "INSERT INTO identity_codes (flow_id, person_id, purpose, email, code_hash, link_hash, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))",
    )
    .bind(flow)
    .bind(person)
    .bind(kind.as_str())
    .bind(email)
    .bind(code_digest(flow, &code))
    .bind(link.as_deref().map(secret::digest))
    .bind(lifetime.as_secs_f64())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(Issued { code, link }))
}

/// What checking a code found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeCheck {
    /// The right code, now used: the flow passed its challenge.
    Passed { person: Uuid },
    /// Wrong, expired, used, or the flow's attempts are spent.
    Invalid,
}

/// Checks `code` against the flow's live code, counting a wrong one. A
/// right verification code marks the person verified when the address it
/// went to is still theirs.
pub async fn check_code(
    pool: &PgPool,
    flow: Uuid,
    kind: Kind,
    code: &str,
) -> Result<CodeCheck, Error> {
    let mut tx = pool.begin().await?;
    let attempts: Option<i32> =
        sqlx::query_scalar("SELECT attempts FROM identity_flows WHERE id = $1 FOR UPDATE")
            .bind(flow)
            .fetch_optional(&mut *tx)
            .await?;
    if attempts.is_none_or(|a| a >= ATTEMPTS_PER_FLOW) {
        return Ok(CodeCheck::Invalid);
    }
    let found: Option<(Uuid, String)> = sqlx::query_as(
        "UPDATE identity_codes SET used_at = now() \
         WHERE flow_id = $1 AND purpose = $2 AND code_hash = $3 AND used_at IS NULL AND expires_at > now() \
         RETURNING person_id, email",
    )
    .bind(flow)
    .bind(kind.as_str())
    .bind(code_digest(flow, code.trim()))
    .fetch_optional(&mut *tx)
    .await?;
    let Some((person, email)) = found else {
        sqlx::query("UPDATE identity_flows SET attempts = attempts + 1 WHERE id = $1")
            .bind(flow)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Ok(CodeCheck::Invalid);
    };
    sqlx::query(
        "UPDATE identity_flows SET state = 'passed_challenge', person_id = $2 WHERE id = $1",
    )
    .bind(flow)
    .bind(person)
    .execute(&mut *tx)
    .await?;
    if kind == Kind::Verification {
        mark_verified(&mut *tx, person, &email).await?;
        sqlx::query("UPDATE identity_flows SET used_at = now() WHERE id = $1")
            .bind(flow)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(CodeCheck::Passed { person })
}

async fn mark_verified(db: impl PgExecutor<'_>, person: Uuid, email: &str) -> Result<(), Error> {
    sqlx::query(
        "UPDATE people SET verified_at = now() \
         WHERE id = $1 AND lower(email) = lower($2) AND verified_at IS NULL",
    )
    .bind(person)
    .bind(email)
    .execute(db)
    .await?;
    Ok(())
}

/// Why a verification link does not work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("this verification link is not valid")]
    Unknown,
    #[error("this verification link has expired or was used; ask for a new one")]
    Gone,
}

/// Uses a verification link: marks the address verified; answers it.
pub async fn verify_link(pool: &PgPool, link: &str) -> Result<Result<String, LinkError>, Error> {
    let mut tx = pool.begin().await?;
    let row: Option<(Uuid, Uuid, String, bool)> = sqlx::query_as(
        "SELECT flow_id, person_id, email, used_at IS NULL AND expires_at > now() \
         FROM identity_codes WHERE link_hash = $1 AND purpose = 'verification' FOR UPDATE",
    )
    .bind(secret::digest(link))
    .fetch_optional(&mut *tx)
    .await?;
    let Some((flow, person, email, live)) = row else {
        return Ok(Err(LinkError::Unknown));
    };
    if !live {
        return Ok(Err(LinkError::Gone));
    }
    sqlx::query("UPDATE identity_codes SET used_at = now() WHERE link_hash = $1")
        .bind(secret::digest(link))
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE identity_flows SET state = 'passed_challenge', person_id = $2, used_at = now() WHERE id = $1",
    )
    .bind(flow)
    .bind(person)
    .execute(&mut *tx)
    .await?;
    mark_verified(&mut *tx, person, &email).await?;
    tx.commit().await?;
    Ok(Ok(email))
}

/// Ends a recovery flow that passed its challenge: sets the new password,
/// ends the person's sessions and revokes their access tokens (whoever knew
/// the old password may have made either), in one transaction. None when
/// the flow did not pass or was used meanwhile.
pub async fn finish_recovery(
    pool: &PgPool,
    flow: Uuid,
    new_password: &str,
) -> Result<Option<Uuid>, Error> {
    let hash = password::hash_blocking(new_password).await?;
    let mut tx = pool.begin().await?;
    let person: Option<Uuid> = sqlx::query_scalar(
        "UPDATE identity_flows SET used_at = now() \
         WHERE id = $1 AND kind = 'recovery' AND state = 'passed_challenge' \
           AND used_at IS NULL AND expires_at > now() \
         RETURNING person_id",
    )
    .bind(flow)
    .fetch_optional(&mut *tx)
    .await?
    .flatten();
    let Some(person) = person else {
        return Ok(None);
    };
    // Reading the code proves the address, as verification would.
    sqlx::query(
        "UPDATE people SET password_hash = $1, verified_at = coalesce(verified_at, now()) \
         WHERE id = $2 AND deleted_at IS NULL",
    )
    .bind(hash)
    .bind(person)
    .execute(&mut *tx)
    .await?;
    sessions::revoke_all(&mut *tx, person).await?;
    tokens::revoke_all(&mut *tx, person).await?;
    tx.commit().await?;
    Ok(Some(person))
}

/// Someone registering.
#[derive(Debug, Clone)]
pub struct Registrant<'a> {
    pub name: &'a str,
    pub email: &'a str,
    pub password: &'a str,
    pub role: &'a str,
}

/// Creates the person of a registration flow and ends the flow, in one
/// transaction. `Error::Conflict` when the address is taken; None when the
/// flow was used meanwhile.
pub async fn register(
    pool: &PgPool,
    flow: Uuid,
    who: &Registrant<'_>,
) -> Result<Option<Person>, Error> {
    let hash = password::hash_blocking(who.password).await?;
    let mut tx = pool.begin().await?;
    let claimed = sqlx::query(
        "UPDATE identity_flows SET used_at = now() \
         WHERE id = $1 AND kind = 'registration' AND used_at IS NULL AND expires_at > now()",
    )
    .bind(flow)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if claimed == 0 {
        return Ok(None);
    }
    let person: Person = sqlx::query_as(
        "INSERT INTO people (name, email, roles, password_hash) VALUES ($1, $2, ARRAY[$3], $4) \
         RETURNING id, name, email, avatar, type, roles",
    )
    .bind(who.name)
    .bind(who.email)
    .bind(who.role)
    .bind(hash)
    .fetch_one(&mut *tx)
    .await
    .map_err(|e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => Error::Conflict(format!(
            "a person with the email {} already exists",
            who.email
        )),
        _ => Error::Database(e),
    })?;
    tx.commit().await?;
    Ok(Some(person))
}

/// Whether the person's address is verified.
pub async fn verified(pool: &PgPool, person: Uuid) -> Result<bool, Error> {
    Ok(
        sqlx::query_scalar("SELECT verified_at IS NOT NULL FROM people WHERE id = $1")
            .bind(person)
            .fetch_optional(pool)
            .await?
            .unwrap_or(false),
    )
}

#[cfg(test)]
mod tests {
    use super::Settings;

    #[test]
    fn domains_limit_registration_case_insensitively() {
        let mut settings = Settings::default();
        assert!(settings.allows_domain("a@any.example"));
        settings.registration_domains = vec!["example.com".into()];
        assert!(settings.allows_domain("a@Example.COM"));
        assert!(!settings.allows_domain("a@example.com.evil"));
        assert!(!settings.allows_domain("a@sub.example.com"));
        assert!(!settings.allows_domain("no-at-sign"));
    }
}
