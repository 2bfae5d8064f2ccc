//! A person's second factors, managed from their browser session: an
//! authenticator app (TOTP), security keys (`routes::webauthn`) and backup
//! recovery codes. Access tokens cannot manage them: a leaked token must not
//! be able to replace a factor.

use axum::Json;
use axum::extract::State;
use quarterdeck_store::second_factor::{self, Enrolled, Required};
use quarterdeck_store::{people, sessions};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{Caller, SESSION_COOKIE, Via, cookie};
use crate::body::Body;
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::routes::webauthn::{SecurityKey, security_keys};
use crate::totp;
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(second_factors))
        .routes(routes!(begin_totp))
        .routes(routes!(confirm_totp))
        .routes(routes!(remove_totp))
        .routes(routes!(generate_backup_codes))
        .routes(routes!(policy, set_policy))
}

/// How many backup codes a set holds.
const BACKUP_CODES: usize = 10;
/// Characters of one backup code: lower-case letters and digits without the
/// look-alikes 0, 1, l and o (32 symbols, 5 bits each, 60 bits a code).
const BACKUP_ALPHABET: &[u8] = b"23456789abcdefghijkmnpqrstuvwxyz";
const BACKUP_LEN: usize = 12;

pub(crate) const INVALID_CODE: &str =
    "The provided authentication code is invalid, please try again.";

/// What the caller has enrolled.
#[derive(Debug, Serialize, ToSchema)]
pub struct SecondFactors {
    /// An authenticator app is enrolled.
    totp: bool,
    /// Backup recovery codes not used yet.
    backup_codes_remaining: i64,
    /// An administrator requires this person to have a second factor.
    required: bool,
    /// Registered security keys and passkeys.
    security_keys: Vec<SecurityKey>,
    /// The origin security keys work at; none when they cannot be used at
    /// this console (`webauthn_unavailable` says why).
    webauthn_origin: Option<String>,
    webauthn_unavailable: Option<String>,
}

impl SecondFactors {
    pub(crate) async fn of(state: &AppState, caller: &Caller) -> Result<Self, ApiError> {
        let Enrolled {
            totp, backup_codes, ..
        } = second_factor::enrolled(&state.db, caller.person.id).await?;
        let required = second_factor::required(&state.db)
            .await?
            .applies_to(&caller.person.roles);
        let (webauthn_origin, webauthn_unavailable) = match state.auth.relying_party() {
            Ok(rp) => (Some(rp.origin), None),
            Err(why) => (None, Some(why)),
        };
        Ok(SecondFactors {
            totp,
            backup_codes_remaining: backup_codes,
            required,
            security_keys: security_keys(state, caller.person.id).await?,
            webauthn_origin,
            webauthn_unavailable,
        })
    }
}

pub(crate) fn browser_only(caller: &Caller) -> Result<(), ApiError> {
    if caller.via == Via::Session {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            "second factors are managed from a browser session, not with an access token or Basic credentials",
        ))
    }
}

/// The caller's second factors.
#[utoipa::path(get, path = "/api/auth/second-factor", tag = "auth",
    responses(
        (status = 200, body = SecondFactors),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn second_factors(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<SecondFactors>, ApiError> {
    Ok(Json(SecondFactors::of(&state, &caller).await?))
}

/// An enrolment begun: what to give the authenticator app.
#[derive(Debug, Serialize, ToSchema)]
pub struct TotpEnrolment {
    /// The shared secret, base32, for typing in by hand.
    secret: String,
    /// The `otpauth://totp/...` URI.
    uri: String,
    /// A QR code of the URI, as an SVG `data:` URL.
    qr: String,
}

/// Begins enrolling an authenticator app: a new secret, shown this once.
/// Enrolment completes when a code from the app is confirmed.
#[utoipa::path(post, path = "/api/auth/totp", tag = "auth",
    responses(
        (status = 200, body = TotpEnrolment),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "An app is already enrolled", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn begin_totp(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<TotpEnrolment>, ApiError> {
    browser_only(&caller)?;
    let secret = totp::new_secret();
    let account = caller
        .person
        .email
        .clone()
        .unwrap_or_else(|| caller.person.id.to_string());
    let (uri, qr) =
        totp::enrolment(&secret, &account).map_err(|e| ApiError::Internal(e.to_string()))?;
    second_factor::begin_totp(&state.db, caller.person.id, &state.keyring.encrypt(&secret)).await?;
    tracing::info!("authenticator app enrolment begun");
    Ok(Json(TotpEnrolment { secret, uri, qr }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TotpCode {
    /// The 6-digit code the app shows now.
    code: String,
}

/// The time step `code` proves for the person's app (enrolled, or pending
/// when `pending`), recorded so it is never accepted again.
pub(crate) async fn check_totp(
    state: &AppState,
    person: uuid::Uuid,
    code: &str,
    pending: bool,
) -> Result<bool, ApiError> {
    let Some(stored) = second_factor::totp(&state.db, person).await? else {
        return Ok(false);
    };
    if stored.confirmed == pending {
        return Ok(false);
    }
    let secret = state
        .keyring
        .decrypt(&stored.secret)
        .map_err(|e| ApiError::Internal(format!("the TOTP secret of person {person}: {e}")))?;
    let Some(step) = totp::matching_step(&secret, code, totp::now())
        .map_err(|e| ApiError::Internal(format!("the TOTP secret of person {person}: {e}")))?
    else {
        return Ok(false);
    };
    let step = i64::try_from(step).unwrap_or(i64::MAX);
    Ok(second_factor::accept_step(&state.db, person, step, pending).await?)
}

/// Completes enrolment with a code from the app. The session has then shown
/// a second factor, so it is raised to aal2.
#[utoipa::path(post, path = "/api/auth/totp/confirm", tag = "auth", request_body = TotpCode,
    responses(
        (status = 200, body = SecondFactors),
        (status = 400, description = "The code is wrong, or no enrolment is pending", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 429, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn confirm_totp(
    State(state): State<AppState>,
    parts: axum::http::request::Parts,
    caller: Caller,
    Body(body): Body<TotpCode>,
) -> Result<Json<SecondFactors>, ApiError> {
    browser_only(&caller)?;
    let email = limit_key(&caller);
    let confirmed = crate::auth::within_limits(&state, &parts, &email, async {
        Ok(check_totp(&state, caller.person.id, &body.code, true)
            .await?
            .then_some(()))
    })
    .await?;
    if confirmed.is_none() {
        return Err(ApiError::invalid("code", INVALID_CODE));
    }
    if let Some(secret) = cookie(&parts.headers, SESSION_COOKIE) {
        sessions::raise_to_aal2(&state.db, &secret).await?;
    }
    tracing::info!("authenticator app enrolled");
    Ok(Json(SecondFactors::of(&state, &caller).await?))
}

/// The account name failed second-factor attempts count against, shared
/// with failed passwords.
pub(crate) fn limit_key(caller: &Caller) -> String {
    caller
        .person
        .email
        .clone()
        .unwrap_or_else(|| caller.person.id.to_string())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RemoveTotp {
    /// A current code from the app, or
    #[serde(default)]
    code: Option<String>,
    /// the account's password.
    #[serde(default)]
    password: Option<String>,
}

/// Removes the authenticator app, and the backup codes with it; needs a
/// current code or the password.
#[utoipa::path(post, path = "/api/auth/totp/remove", tag = "auth", request_body = RemoveTotp,
    responses(
        (status = 200, body = SecondFactors),
        (status = 400, description = "Neither a valid code nor the password", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 429, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn remove_totp(
    State(state): State<AppState>,
    parts: axum::http::request::Parts,
    caller: Caller,
    Body(body): Body<RemoveTotp>,
) -> Result<Json<SecondFactors>, ApiError> {
    browser_only(&caller)?;
    let person = caller.person.id;
    let email = limit_key(&caller);
    let proved = match (body.code.as_deref(), body.password.as_deref()) {
        (Some(code), _) if !code.trim().is_empty() => {
            crate::auth::within_limits(&state, &parts, &email, async {
                Ok(check_totp(&state, person, code, false).await?.then_some(()))
            })
            .await?
            .ok_or_else(|| ApiError::invalid("code", INVALID_CODE))
        }
        (_, Some(password)) if !password.is_empty() => {
            crate::auth::within_limits(&state, &parts, &email, async {
                Ok(people::authenticate(&state.db, &email, password)
                    .await?
                    .filter(|p| p.id == person)
                    .map(|_| ()))
            })
            .await?
            .ok_or_else(|| ApiError::invalid("password", "The password is not correct."))
        }
        _ => Err(ApiError::invalid(
            "code",
            "a current code from the app, or the password, is needed to remove it",
        )),
    };
    proved?;
    second_factor::remove_totp(&state.db, person).await?;
    tracing::info!("authenticator app removed");
    Ok(Json(SecondFactors::of(&state, &caller).await?))
}

/// A new set of backup codes, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct BackupCodes {
    codes: Vec<String>,
}

fn new_backup_code() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..BACKUP_LEN)
        .map(|_| char::from(BACKUP_ALPHABET[rng.random_range(0..BACKUP_ALPHABET.len())]))
        .collect()
}

/// A backup code as typed: case, spaces and dashes do not matter.
pub(crate) fn normalize_backup_code(code: &str) -> String {
    code.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Generates backup codes, replacing any earlier set. They back up an
/// authenticator app or a security key, so one must be enrolled.
#[utoipa::path(post, path = "/api/auth/backup-codes", tag = "auth",
    responses(
        (status = 200, body = BackupCodes),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "No authenticator app or security key is enrolled", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn generate_backup_codes(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<BackupCodes>, ApiError> {
    browser_only(&caller)?;
    if !second_factor::enrolled(&state.db, caller.person.id)
        .await?
        .any
    {
        return Err(ApiError::Conflict(
            "backup codes back up an authenticator app or a security key: add one first".into(),
        ));
    }
    let codes: Vec<String> = (0..BACKUP_CODES).map(|_| new_backup_code()).collect();
    second_factor::replace_backup_codes(&state.db, caller.person.id, &codes).await?;
    tracing::info!(count = codes.len(), "backup codes generated");
    Ok(Json(BackupCodes { codes }))
}

/// Who must have a second factor: `nobody`, `admins` or `everyone`. Such a
/// person without one can only enrol an authenticator app or a security key
/// until they do.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SecondFactorPolicy {
    #[schema(pattern = "^(nobody|admins|everyone)$")]
    required: String,
}

/// Who must have a second factor.
#[utoipa::path(get, path = "/api/settings/second-factor", tag = "settings",
    responses(
        (status = 200, body = SecondFactorPolicy),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn policy(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<SecondFactorPolicy>, ApiError> {
    caller.require(Resource::FeatureFlags, Action::Read)?;
    let required = second_factor::required(&state.db).await?;
    Ok(Json(SecondFactorPolicy {
        required: required.as_str().to_owned(),
    }))
}

/// Sets who must have a second factor; admins only.
#[utoipa::path(put, path = "/api/settings/second-factor", tag = "settings",
    request_body = SecondFactorPolicy,
    responses(
        (status = 200, body = SecondFactorPolicy),
        (status = 400, description = "A malformed body, naming the field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn set_policy(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<SecondFactorPolicy>,
) -> Result<Json<SecondFactorPolicy>, ApiError> {
    if !caller.authorizer.is_admin() {
        return Err(ApiError::forbidden(
            "only admins can change who must have a second factor",
        ));
    }
    let required = Required::parse(&body.required).ok_or_else(|| {
        ApiError::invalid(
            "required",
            "required: must be one of nobody, admins, everyone",
        )
    })?;
    second_factor::set_required(&state.db, required, caller.person.id).await?;
    tracing::info!(required = required.as_str(), "second factor policy changed");
    Ok(Json(SecondFactorPolicy {
        required: required.as_str().to_owned(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backup_codes_are_long_and_typed_loosely() {
        let code = new_backup_code();
        assert_eq!(code.len(), BACKUP_LEN);
        assert!(code.bytes().all(|b| BACKUP_ALPHABET.contains(&b)));
        assert_eq!(normalize_backup_code(" ABCD-efgh-2345 "), "abcdefgh2345");
    }
}
