//! Single sign-on with OpenID Connect: the providers admins configure (the
//! client secret stored encrypted by the caller), the authorization requests
//! awaiting their callback, and the accounts at a provider linked to people
//! (decisions section 100).

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::people::Person;
use crate::{Error, secret};

/// A provider as stored; `client_secret` is the encrypted value.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Provider {
    pub id: Uuid,
    pub slug: String,
    pub label: String,
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    pub scopes: Vec<String>,
    pub groups_claim: Option<String>,
    pub create_people: bool,
    pub default_role: Option<String>,
    pub enabled: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A group of the provider mapped to a role or a team.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Mapping {
    pub group: String,
    pub role: Option<String>,
    pub team_id: Option<Uuid>,
}

/// What a provider is set to (every field but the secret).
#[derive(Debug, Clone)]
pub struct Settings<'a> {
    pub slug: &'a str,
    pub label: &'a str,
    pub issuer: &'a str,
    pub client_id: &'a str,
    pub scopes: &'a [String],
    pub groups_claim: Option<&'a str>,
    pub create_people: bool,
    pub default_role: Option<&'a str>,
    pub enabled: bool,
    pub mappings: &'a [Mapping],
}

const PROVIDER_COLUMNS: &str = "id, slug, label, issuer, client_id, client_secret, scopes, \
     groups_claim, create_people, default_role, enabled, created_at, updated_at";

fn conflict(e: sqlx::Error) -> Error {
    match e.as_database_error() {
        Some(db) if db.is_unique_violation() => {
            Error::Conflict("a provider with that slug already exists".into())
        }
        Some(db) if db.is_foreign_key_violation() => {
            Error::Conflict("a mapped team does not exist".into())
        }
        _ => Error::Database(e),
    }
}

/// Every provider, by label.
pub async fn providers(pool: &PgPool) -> Result<Vec<Provider>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PROVIDER_COLUMNS} FROM sso_providers ORDER BY lower(label), slug"
    )))
    .fetch_all(pool)
    .await?)
}

/// The provider with this slug.
pub async fn provider(pool: &PgPool, slug: &str) -> Result<Option<Provider>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PROVIDER_COLUMNS} FROM sso_providers WHERE slug = $1"
    )))
    .bind(slug)
    .fetch_optional(pool)
    .await?)
}

/// The provider's group mappings, by group.
pub async fn mappings(pool: &PgPool, provider: Uuid) -> Result<Vec<Mapping>, Error> {
    Ok(sqlx::query_as(
        "SELECT grp AS \"group\", role, team_id FROM sso_group_mappings \
         WHERE provider_id = $1 ORDER BY grp, role NULLS LAST, team_id",
    )
    .bind(provider)
    .fetch_all(pool)
    .await?)
}

async fn replace_mappings(
    tx: &mut PgConnection,
    provider: Uuid,
    mappings: &[Mapping],
    by: Uuid,
) -> Result<(), Error> {
    #[derive(sqlx::FromRow)]
    struct Kept {
        #[sqlx(flatten)]
        mapping: Mapping,
        set_by: Option<Uuid>,
    }
    // A mapping kept as it was keeps the admin who set it.
    let kept: Vec<Kept> = sqlx::query_as(
        "DELETE FROM sso_group_mappings WHERE provider_id = $1 \
         RETURNING grp AS \"group\", role, team_id, set_by",
    )
    .bind(provider)
    .fetch_all(&mut *tx)
    .await?;
    for m in mappings {
        let set_by = kept
            .iter()
            .find(|k| k.mapping == *m)
            .map_or(Some(by), |k| k.set_by);
        sqlx::query(
            "INSERT INTO sso_group_mappings (provider_id, grp, role, team_id, set_by) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
        )
        .bind(provider)
        .bind(&m.group)
        .bind(&m.role)
        .bind(m.team_id)
        .bind(set_by)
        .execute(&mut *tx)
        .await
        .map_err(conflict)?;
    }
    Ok(())
}

type ProviderQuery<'q, O> =
    sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>;

/// Binds a provider's settings as $1 to $11 of the insert and the update:
/// slug, label, issuer, client id, stored secret (none keeps the stored
/// one), scopes, groups claim, create people, default role, enabled, by.
fn with_settings<'q, O>(
    query: ProviderQuery<'q, O>,
    settings: &'q Settings<'q>,
    stored_secret: Option<&'q str>,
    by: Uuid,
) -> ProviderQuery<'q, O> {
    query
        .bind(settings.slug)
        .bind(settings.label)
        .bind(settings.issuer)
        .bind(settings.client_id)
        .bind(stored_secret)
        .bind(settings.scopes)
        .bind(settings.groups_claim)
        .bind(settings.create_people)
        .bind(settings.default_role)
        .bind(settings.enabled)
        .bind(by)
}

/// Creates a provider with its mappings, in one transaction.
pub async fn create(
    pool: &PgPool,
    settings: &Settings<'_>,
    stored_secret: &str,
    by: Uuid,
) -> Result<Provider, Error> {
    let mut tx = pool.begin().await?;
    let provider: Provider = with_settings(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "INSERT INTO sso_providers (slug, label, issuer, client_id, client_secret, scopes, \
               groups_claim, create_people, default_role, enabled, created_by, updated_by) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING {PROVIDER_COLUMNS}"
        ))),
        settings,
        Some(stored_secret),
        by,
    )
    .fetch_one(&mut *tx)
    .await
    .map_err(conflict)?;
    replace_mappings(&mut tx, provider.id, settings.mappings, by).await?;
    tx.commit().await?;
    Ok(provider)
}

/// Changes the provider `slug` (the secret only when given), replacing its
/// mappings, in one transaction. `None` when there is no such provider.
pub async fn update(
    pool: &PgPool,
    slug: &str,
    settings: &Settings<'_>,
    stored_secret: Option<&str>,
    by: Uuid,
) -> Result<Option<Provider>, Error> {
    let mut tx = pool.begin().await?;
    let provider: Option<Provider> = with_settings(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "UPDATE sso_providers SET slug = $1, label = $2, issuer = $3, client_id = $4, \
               client_secret = coalesce($5, client_secret), scopes = $6, groups_claim = $7, \
               create_people = $8, default_role = $9, enabled = $10, updated_by = $11 \
             WHERE slug = $12 RETURNING {PROVIDER_COLUMNS}"
        ))),
        settings,
        stored_secret,
        by,
    )
    .bind(slug)
    .fetch_optional(&mut *tx)
    .await
    .map_err(conflict)?;
    let Some(provider) = provider else {
        return Ok(None);
    };
    replace_mappings(&mut tx, provider.id, settings.mappings, by).await?;
    tx.commit().await?;
    Ok(Some(provider))
}

/// Removes a provider, its mappings, pending authorizations and links.
pub async fn delete(pool: &PgPool, slug: &str) -> Result<bool, Error> {
    let done = sqlx::query("DELETE FROM sso_providers WHERE slug = $1")
        .bind(slug)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// An authorization request to remember until its callback.
#[derive(Debug, Clone)]
pub struct NewAuthorization<'a> {
    pub state: &'a str,
    pub browser: &'a str,
    pub provider: Uuid,
    pub nonce: &'a str,
    pub pkce_verifier: &'a str,
    pub return_to: Option<&'a str>,
    pub link_person: Option<Uuid>,
    pub lifetime: std::time::Duration,
}

/// Records an authorization request (and drops those expired a day ago).
pub async fn begin(pool: &PgPool, new: &NewAuthorization<'_>) -> Result<(), Error> {
    let seconds = i64::try_from(new.lifetime.as_secs()).unwrap_or(i64::MAX);
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM sso_authorizations WHERE expires_at < now() - interval '1 day'")
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO sso_authorizations (state_digest, browser_digest, provider_id, nonce, \
           pkce_verifier, return_to, link_person, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))",
    )
    .bind(secret::digest(new.state))
    .bind(secret::digest(new.browser))
    .bind(new.provider)
    .bind(new.nonce)
    .bind(new.pkce_verifier)
    .bind(new.return_to)
    .bind(new.link_person)
    .bind(seconds as f64)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// An authorization request taken at its callback.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Authorization {
    pub provider_id: Uuid,
    pub browser_digest: String,
    pub nonce: String,
    pub pkce_verifier: String,
    pub return_to: Option<String>,
    pub link_person: Option<Uuid>,
}

/// Why a callback's state was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    #[error("no authorization request has this state")]
    Unknown,
    #[error("the authorization request expired")]
    Expired,
    #[error("the authorization request was used already (a replayed callback)")]
    Used,
}

/// Takes the authorization request of `state`, once: a second callback
/// with the same state is refused.
pub async fn take(pool: &PgPool, state: &str) -> Result<Result<Authorization, StateError>, Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        authorization: Authorization,
        expired: bool,
        used: bool,
    }
    let mut tx = pool.begin().await?;
    let row: Option<Row> = sqlx::query_as(
        "SELECT provider_id, browser_digest, nonce, pkce_verifier, return_to, link_person, \
           expires_at <= now() AS expired, used_at IS NOT NULL AS used \
         FROM sso_authorizations WHERE state_digest = $1 FOR UPDATE",
    )
    .bind(secret::digest(state))
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else {
        return Ok(Err(StateError::Unknown));
    };
    if row.used {
        return Ok(Err(StateError::Used));
    }
    sqlx::query("UPDATE sso_authorizations SET used_at = now() WHERE state_digest = $1")
        .bind(secret::digest(state))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    if row.expired {
        return Ok(Err(StateError::Expired));
    }
    Ok(Ok(row.authorization))
}

/// What the provider said about the person, once the ID token passed.
#[derive(Debug, Clone)]
pub struct Claims<'a> {
    pub subject: &'a str,
    pub email: Option<&'a str>,
    pub email_verified: bool,
    pub name: &'a str,
    pub groups: &'a [String],
}

/// Why a sign-in found no person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInError {
    #[error("the provider's email is not verified, so it cannot link to or create a person")]
    EmailNotVerified,
    #[error("no person is linked to this account and the provider does not create people")]
    NoAccount,
    #[error("the provider gave no email, which creating a person needs")]
    NoEmail,
    #[error("this account at the provider is linked to another person")]
    LinkedElsewhere,
    #[error("the person is linked to another account at this provider already")]
    AlreadyLinked,
    #[error("the person to link no longer exists")]
    PersonGone,
}

/// How the person was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Linked before.
    Linked,
    /// Linked now, by a verified email or from the profile.
    LinkedNow,
    /// Created now.
    Created,
}

/// The roles a sign-in with `groups` is given: the mapped ones (a mapping
/// to admin only while the admin who set it is one) and the default role.
const MAPPED_ROLES: &str = "SELECT DISTINCT m.role FROM sso_group_mappings m \
     WHERE m.provider_id = $1 AND m.role IS NOT NULL AND m.grp = ANY($2) \
       AND (m.role <> 'admin' OR EXISTS (SELECT 1 FROM people s WHERE s.id = m.set_by \
            AND s.deleted_at IS NULL AND 'admin' = ANY(s.roles)))";

const PERSON_COLUMNS: &str = "id, name, email, avatar, type, roles";

/// Finds (or links, or creates) the person signing in as `claims`, and adds
/// the roles and teams their groups map to, in one transaction. With
/// `link_person`, the account is linked to that person (their own profile
/// asked for it).
pub async fn sign_in(
    pool: &PgPool,
    provider: &Provider,
    claims: &Claims<'_>,
    link_person: Option<Uuid>,
) -> Result<Result<(Person, Found), SignInError>, Error> {
    let mut tx = pool.begin().await?;
    // Concurrent first sign-ins of one account must not both create a person.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('quarterdeck.sso:' || $1 || ':' || $2))")
        .bind(provider.id.to_string())
        .bind(claims.subject)
        .execute(&mut *tx)
        .await?;
    let linked: Option<Uuid> = sqlx::query_scalar(
        "SELECT i.person_id FROM sso_identities i JOIN people p ON p.id = i.person_id \
         WHERE i.provider_id = $1 AND i.subject = $2 AND p.deleted_at IS NULL",
    )
    .bind(provider.id)
    .bind(claims.subject)
    .fetch_optional(&mut *tx)
    .await?;
    // A link to a removed person is stale.
    sqlx::query(
        "DELETE FROM sso_identities i USING people p WHERE p.id = i.person_id \
         AND i.provider_id = $1 AND i.subject = $2 AND p.deleted_at IS NOT NULL",
    )
    .bind(provider.id)
    .bind(claims.subject)
    .execute(&mut *tx)
    .await?;
    let (person_id, found) = match (linked, link_person) {
        (Some(id), Some(wanted)) if id != wanted => {
            return Ok(Err(SignInError::LinkedElsewhere));
        }
        (Some(id), _) => (id, Found::Linked),
        (None, Some(wanted)) => {
            let live: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM people WHERE id = $1 AND deleted_at IS NULL AND type IS NULL)",
            )
            .bind(wanted)
            .fetch_one(&mut *tx)
            .await?;
            if !live {
                return Ok(Err(SignInError::PersonGone));
            }
            (wanted, Found::LinkedNow)
        }
        (None, None) => {
            let by_email: Option<Uuid> = match claims.email {
                Some(email) => {
                    sqlx::query_scalar(
                        "SELECT id FROM people WHERE lower(email) = lower($1) \
                         AND deleted_at IS NULL AND type IS NULL",
                    )
                    .bind(email)
                    .fetch_optional(&mut *tx)
                    .await?
                }
                None => None,
            };
            match by_email {
                Some(_) if !claims.email_verified => {
                    return Ok(Err(SignInError::EmailNotVerified));
                }
                Some(id) => (id, Found::LinkedNow),
                None if !provider.create_people => return Ok(Err(SignInError::NoAccount)),
                None if claims.email.is_none() => return Ok(Err(SignInError::NoEmail)),
                None if !claims.email_verified => {
                    return Ok(Err(SignInError::EmailNotVerified));
                }
                None => {
                    let id: Uuid = sqlx::query_scalar(
                        "INSERT INTO people (name, email, roles) VALUES ($1, $2, '{}') RETURNING id",
                    )
                    .bind(claims.name)
                    .bind(claims.email)
                    .fetch_one(&mut *tx)
                    .await?;
                    (id, Found::Created)
                }
            }
        }
    };
    if found != Found::Linked {
        let inserted = sqlx::query(
            "INSERT INTO sso_identities (provider_id, subject, person_id, email) \
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(provider.id)
        .bind(claims.subject)
        .bind(person_id)
        .bind(claims.email)
        .execute(&mut *tx)
        .await?;
        if inserted.rows_affected() == 0 {
            return Ok(Err(SignInError::AlreadyLinked));
        }
    }
    sqlx::query(
        "UPDATE sso_identities SET last_used_at = now(), email = $3 \
         WHERE provider_id = $1 AND subject = $2",
    )
    .bind(provider.id)
    .bind(claims.subject)
    .bind(claims.email)
    .execute(&mut *tx)
    .await?;
    // Roles and teams are added, never taken away (decision 100.6).
    let mut roles: Vec<String> = sqlx::query_scalar(MAPPED_ROLES)
        .bind(provider.id)
        .bind(claims.groups)
        .fetch_all(&mut *tx)
        .await?;
    if found == Found::Created
        && let Some(role) = &provider.default_role
    {
        roles.push(role.clone());
    }
    sqlx::query(
        "UPDATE people SET roles = ARRAY(SELECT DISTINCT r FROM unnest(roles || $2::text[]) r ORDER BY r) \
         WHERE id = $1 AND NOT (roles @> $2::text[])",
    )
    .bind(person_id)
    .bind(&roles)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO team_members (team_id, person_id, source) \
         SELECT DISTINCT m.team_id, $3, 'System' FROM sso_group_mappings m \
         JOIN teams t ON t.id = m.team_id AND t.deleted_at IS NULL \
         WHERE m.provider_id = $1 AND m.team_id IS NOT NULL AND m.grp = ANY($2) \
         ON CONFLICT DO NOTHING",
    )
    .bind(provider.id)
    .bind(claims.groups)
    .bind(person_id)
    .execute(&mut *tx)
    .await?;
    let person: Person = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PERSON_COLUMNS} FROM people WHERE id = $1"
    )))
    .bind(person_id)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Ok((person, found)))
}

/// A person's account at a provider.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct LinkedAccount {
    /// The provider's slug.
    pub provider: String,
    pub label: String,
    /// The provider's `sub` for the person.
    pub subject: String,
    /// The email the provider gave at the last sign-in.
    pub email: Option<String>,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// The person's linked accounts, by provider label.
pub async fn linked(pool: &PgPool, person: Uuid) -> Result<Vec<LinkedAccount>, Error> {
    Ok(sqlx::query_as(
        "SELECT p.slug AS provider, p.label, i.subject, i.email, i.created_at, i.last_used_at \
         FROM sso_identities i JOIN sso_providers p ON p.id = i.provider_id \
         WHERE i.person_id = $1 ORDER BY lower(p.label), p.slug",
    )
    .bind(person)
    .fetch_all(pool)
    .await?)
}

/// What unlinking did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unlinked {
    Done,
    /// No link of the person to that provider.
    NotLinked,
    /// The person would have no way left to sign in.
    LastWay,
}

/// Removes the person's link to the provider `slug`, unless it is their
/// last way to sign in (no password and no other link).
pub async fn unlink(pool: &PgPool, person: Uuid, slug: &str) -> Result<Unlinked, Error> {
    let mut tx = pool.begin().await?;
    let has_password: Option<bool> = sqlx::query_scalar(
        "SELECT password_hash IS NOT NULL FROM people WHERE id = $1 AND deleted_at IS NULL FOR UPDATE",
    )
    .bind(person)
    .fetch_optional(&mut *tx)
    .await?;
    let others: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM sso_identities i JOIN sso_providers p ON p.id = i.provider_id \
         WHERE i.person_id = $1 AND p.slug <> $2",
    )
    .bind(person)
    .bind(slug)
    .fetch_one(&mut *tx)
    .await?;
    let linked: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM sso_identities i JOIN sso_providers p ON p.id = i.provider_id \
         WHERE i.person_id = $1 AND p.slug = $2)",
    )
    .bind(person)
    .bind(slug)
    .fetch_one(&mut *tx)
    .await?;
    if !linked {
        return Ok(Unlinked::NotLinked);
    }
    if !has_password.unwrap_or(false) && others == 0 {
        return Ok(Unlinked::LastWay);
    }
    sqlx::query(
        "DELETE FROM sso_identities i USING sso_providers p \
         WHERE p.id = i.provider_id AND i.person_id = $1 AND p.slug = $2",
    )
    .bind(person)
    .bind(slug)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Unlinked::Done)
}

/// The ids among `teams` that name no live team.
pub async fn missing_teams(pool: &PgPool, teams: &[Uuid]) -> Result<Vec<Uuid>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT t FROM unnest($1::uuid[]) t \
         WHERE NOT EXISTS (SELECT 1 FROM teams WHERE id = t AND deleted_at IS NULL)",
    )
    .bind(teams)
    .fetch_all(pool)
    .await?)
}
