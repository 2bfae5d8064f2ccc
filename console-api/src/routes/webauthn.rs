//! Security keys and passkeys (WebAuthn), managed from a browser session:
//! registering one (after a recent sign-in: a passkey signs in on its own),
//! and removing one. The sign-in flow asks for them through
//! [`sign_in_options`] and [`check_assertion`].

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use quarterdeck_store::{sessions, webauthn as store};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::{Caller, SESSION_COOKIE, cookie};
use crate::body::{Body, Path};
use crate::error::ErrorBody;
use crate::routes::flow::FlowError;
use crate::routes::profile::privileged_session;
use crate::routes::second_factor::{SecondFactors, browser_only};
use crate::webauthn::{self, ALGORITHMS, RelyingParty};
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(begin_registration))
        .routes(routes!(finish_registration))
        .routes(routes!(remove_security_key))
}

/// What the relying party is shown as in the browser's prompt.
const RP_NAME: &str = "Quarterdeck";
/// How long a browser's prompt waits for the key, in milliseconds.
const PROMPT_TIMEOUT_MS: u32 = 300_000;

/// A registered key, as its owner sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SecurityKey {
    id: Uuid,
    name: String,
    /// A passkey: it signs in without a password.
    passwordless: bool,
    created_at: DateTime<Utc>,
    last_used_at: Option<DateTime<Utc>>,
}

impl From<store::Listed> for SecurityKey {
    fn from(key: store::Listed) -> Self {
        SecurityKey {
            id: key.id,
            name: key.name,
            passwordless: key.passwordless,
            created_at: key.created_at,
            last_used_at: key.last_used_at,
        }
    }
}

pub(crate) async fn security_keys(
    state: &AppState,
    person: Uuid,
) -> Result<Vec<SecurityKey>, ApiError> {
    Ok(store::list(&state.db, person)
        .await?
        .into_iter()
        .map(SecurityKey::from)
        .collect())
}

/// The relying party, or 409 saying why keys cannot be used at this console.
fn relying_party(state: &AppState) -> Result<RelyingParty, ApiError> {
    state.auth.relying_party().map_err(ApiError::Conflict)
}

fn challenge() -> Vec<u8> {
    let mut bytes = vec![0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RpEntity {
    id: String,
    name: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserEntity {
    /// The person's id (its 16 bytes), base64url.
    id: String,
    name: String,
    display_name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CredentialParameter {
    /// `public-key`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// A COSE algorithm: -7 (ES256), -8 (EdDSA) or -257 (RS256).
    alg: i32,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CredentialDescriptor {
    /// `public-key`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// The credential id, base64url.
    id: String,
}

fn descriptors(ids: Vec<Vec<u8>>) -> Vec<CredentialDescriptor> {
    ids.iter()
        .map(|id| CredentialDescriptor {
            kind: "public-key",
            id: webauthn::encode(id),
        })
        .collect()
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthenticatorSelection {
    /// `required` for a passkey, else `discouraged`.
    resident_key: &'static str,
    require_resident_key: bool,
    /// `required` for a passkey, else `discouraged`.
    user_verification: &'static str,
}

/// `PublicKeyCredentialCreationOptions` in the WebAuthn JSON form
/// (binary values base64url), for `navigator.credentials.create`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreationOptions {
    challenge: String,
    rp: RpEntity,
    user: UserEntity,
    pub_key_cred_params: Vec<CredentialParameter>,
    timeout: u32,
    /// The person's keys already registered, so none is registered twice.
    exclude_credentials: Vec<CredentialDescriptor>,
    authenticator_selection: AuthenticatorSelection,
    /// `none`: attestation statements are not asked for.
    attestation: &'static str,
}

/// `PublicKeyCredentialRequestOptions` in the WebAuthn JSON form, for
/// `navigator.credentials.get`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestOptions {
    challenge: String,
    rp_id: String,
    timeout: u32,
    /// The person's keys for a second factor; empty for a passkey, which the
    /// browser finds itself.
    allow_credentials: Vec<CredentialDescriptor>,
    /// `required` for a passkey, else `discouraged`.
    user_verification: &'static str,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewSecurityKey {
    /// A name to tell the key by, 1 to 100 characters.
    name: String,
    /// A passkey: a discoverable credential that verifies the person (PIN
    /// or biometric) and so signs in without a password. Else a second factor.
    #[serde(default)]
    passwordless: bool,
}

/// A registration begun.
#[derive(Debug, Serialize, ToSchema)]
pub struct Registration {
    /// Names this registration when it is finished.
    id: Uuid,
    options: CreationOptions,
}

/// Begins registering a security key or passkey: the options to hand to
/// `navigator.credentials.create`. Needs a recent sign-in, as a key is a
/// new way into the account.
#[utoipa::path(post, path = "/api/auth/webauthn/registration", tag = "auth", request_body = NewSecurityKey,
    responses(
        (status = 200, body = Registration),
        (status = 400, description = "A malformed body or name, naming the field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "`session_refresh_required`: sign in again first; also for a token or Basic credentials", body = FlowError),
        (status = 409, description = "Security keys cannot be used at this console's origin", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn begin_registration(
    State(state): State<AppState>,
    parts: Parts,
    caller: Caller,
    Body(body): Body<NewSecurityKey>,
) -> Result<Response, ApiError> {
    // A token or Basic credentials are refused here too, as not recent.
    if let Err(refused) = privileged_session(&state, &parts, &caller).await? {
        return Ok(refused);
    }
    let name = body.name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ApiError::invalid(
            "name",
            "name: give the key a name of 1 to 100 characters",
        ));
    }
    let rp = relying_party(&state)?;
    let person = &caller.person;
    let challenge = challenge();
    let id = store::begin_registration(
        &state.db,
        person.id,
        &challenge,
        name,
        body.passwordless,
        state.auth.login_flow_lifetime,
    )
    .await?;
    let (resident_key, user_verification) = if body.passwordless {
        ("required", "required")
    } else {
        ("discouraged", "discouraged")
    };
    let options = CreationOptions {
        challenge: webauthn::encode(&challenge),
        user: UserEntity {
            id: webauthn::encode(person.id.as_bytes()),
            name: person
                .email
                .clone()
                .unwrap_or_else(|| person.id.to_string()),
            display_name: person.name.clone(),
        },
        pub_key_cred_params: ALGORITHMS
            .iter()
            .map(|&alg| CredentialParameter {
                kind: "public-key",
                alg,
            })
            .collect(),
        timeout: PROMPT_TIMEOUT_MS,
        exclude_credentials: descriptors(
            store::credential_ids(&state.db, person.id, &rp.id).await?,
        ),
        authenticator_selection: AuthenticatorSelection {
            resident_key,
            require_resident_key: body.passwordless,
            user_verification,
        },
        attestation: "none",
        rp: RpEntity {
            id: rp.id,
            name: RP_NAME,
        },
    };
    tracing::info!(
        passwordless = body.passwordless,
        "security key registration begun"
    );
    Ok(Json(Registration { id, options }).into_response())
}

/// The browser's `AuthenticatorAttestationResponse`, binary values base64url.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct AttestationResponse {
    #[serde(rename = "clientDataJSON")]
    client_data_json: String,
    #[serde(rename = "attestationObject")]
    attestation_object: String,
}

/// The `PublicKeyCredential` that `navigator.credentials.create` made, in
/// its JSON form (`toJSON()`); other members are ignored.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct NewCredential {
    response: AttestationResponse,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FinishRegistration {
    /// The id of the registration begun.
    registration: Uuid,
    credential: NewCredential,
}

fn base64_field(value: &str, field: &'static str) -> Result<Vec<u8>, ApiError> {
    webauthn::decode(value)
        .ok_or_else(|| ApiError::invalid(field, format!("{field}: is not base64url")))
}

/// Finishes a registration with what the browser made. The key is then a
/// second factor (and the session, having just shown it, is raised to aal2).
#[utoipa::path(post, path = "/api/auth/webauthn/credentials", tag = "auth", request_body = FinishRegistration,
    responses(
        (status = 201, description = "Registered", body = SecondFactors),
        (status = 400, description = "The registration expired or was used, or the key's answer does not check out", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "The key is registered already, or keys cannot be used here", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, registration = %body.registration))]
pub(crate) async fn finish_registration(
    State(state): State<AppState>,
    parts: Parts,
    caller: Caller,
    Body(body): Body<FinishRegistration>,
) -> Result<Response, ApiError> {
    browser_only(&caller)?;
    let rp = relying_party(&state)?;
    let person = caller.person.id;
    let Some(begun) = store::take_registration(&state.db, person, body.registration).await? else {
        return Err(ApiError::invalid(
            "registration",
            "registration: it expired or was used; add the key again",
        ));
    };
    let response = &body.credential.response;
    let client_data = base64_field(
        &response.client_data_json,
        "credential.response.clientDataJSON",
    )?;
    let attestation = base64_field(
        &response.attestation_object,
        "credential.response.attestationObject",
    )?;
    let registered = webauthn::verify_registration(
        &rp,
        &begun.challenge,
        &client_data,
        &attestation,
        begun.passwordless,
    )
    .map_err(|e| ApiError::invalid("credential", format!("credential: {e}")))?;
    store::add(
        &state.db,
        &store::New {
            person_id: person,
            credential_id: &registered.credential_id,
            public_key: &registered.public_key,
            algorithm: registered.algorithm,
            sign_count: i64::from(registered.sign_count),
            rp_id: &rp.id,
            name: &begun.name,
            passwordless: begun.passwordless,
        },
    )
    .await?;
    if let Some(secret) = cookie(&parts.headers, SESSION_COOKIE) {
        sessions::raise_to_aal2(&state.db, &secret).await?;
    }
    tracing::info!(
        algorithm = registered.algorithm,
        passwordless = begun.passwordless,
        "security key registered"
    );
    Ok((
        StatusCode::CREATED,
        Json(SecondFactors::of(&state, &caller).await?),
    )
        .into_response())
}

/// Removes one of the caller's security keys or passkeys. Needs a recent
/// sign-in; backup codes go with the last second factor.
#[utoipa::path(delete, path = "/api/auth/webauthn/credentials/{id}", tag = "auth",
    params(("id" = Uuid, Path, description = "The key's id")),
    responses(
        (status = 200, body = SecondFactors),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "`session_refresh_required`: sign in again first; also for a token or Basic credentials", body = FlowError),
        (status = 404, description = "The caller has no such key", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, key = %id))]
pub(crate) async fn remove_security_key(
    State(state): State<AppState>,
    parts: Parts,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Response, ApiError> {
    if let Err(refused) = privileged_session(&state, &parts, &caller).await? {
        return Ok(refused);
    }
    if !store::remove(&state.db, caller.person.id, id).await? {
        return Err(ApiError::NotFound(format!("security key {id} not found")));
    }
    tracing::info!("security key removed");
    Ok(Json(SecondFactors::of(&state, &caller).await?).into_response())
}

/// The options of a sign-in flow's WebAuthn step, its challenge kept with
/// the flow: for `person`'s second factor, or for a passkey (none).
pub(crate) async fn sign_in_options(
    state: &AppState,
    flow: Uuid,
    person: Option<Uuid>,
) -> Result<Result<RequestOptions, String>, ApiError> {
    let rp = match state.auth.relying_party() {
        Ok(rp) => rp,
        Err(why) => return Ok(Err(why)),
    };
    let allow = match person {
        Some(person) => {
            let ids = store::credential_ids(&state.db, person, &rp.id).await?;
            if ids.is_empty() {
                return Ok(Err("No security key is registered for this account.".into()));
            }
            descriptors(ids)
        }
        None => Vec::new(),
    };
    let challenge = challenge();
    store::begin_sign_in(&state.db, flow, person, &challenge).await?;
    Ok(Ok(RequestOptions {
        challenge: webauthn::encode(&challenge),
        rp_id: rp.id,
        timeout: PROMPT_TIMEOUT_MS,
        allow_credentials: allow,
        user_verification: if person.is_some() {
            "discouraged"
        } else {
            "required"
        },
    }))
}

/// The browser's `AuthenticatorAssertionResponse`, binary values base64url.
#[derive(Debug, Deserialize)]
struct AssertionResponse {
    #[serde(rename = "clientDataJSON")]
    client_data_json: String,
    #[serde(rename = "authenticatorData")]
    authenticator_data: String,
    signature: String,
    #[serde(rename = "userHandle", default)]
    user_handle: Option<String>,
}

/// What `navigator.credentials.get` answered, in its JSON form.
#[derive(Debug, Deserialize)]
struct Assertion {
    #[serde(rename = "rawId")]
    raw_id: String,
    response: AssertionResponse,
}

/// Checks a sign-in flow's WebAuthn answer (`webauthn_login`, the JSON of
/// the credential) against the flow's challenge, which it uses up. For a
/// second factor the key must be `person`'s; for a passkey (`person` none)
/// it must be one made to sign in on its own, and have verified the person.
/// The key whose answer checked out, else why not (logged, not shown: the
/// person is told only that the key was not accepted).
pub(crate) async fn check_assertion(
    state: &AppState,
    flow: Uuid,
    person: Option<Uuid>,
    answer: &str,
) -> Result<Option<store::Stored>, ApiError> {
    let refused = |why: &str| {
        tracing::info!(%flow, why, "security key refused");
        Ok(None)
    };
    let Ok(rp) = state.auth.relying_party() else {
        return refused("security keys cannot be used at this origin");
    };
    let Some((challenge, issued_for)) = store::take_sign_in(&state.db, flow).await? else {
        return refused("no live challenge for this flow");
    };
    if issued_for != person {
        return refused("the challenge was issued for another step");
    }
    let Ok(answer) = serde_json::from_str::<Assertion>(answer) else {
        return refused("webauthn_login is not a credential's JSON");
    };
    let response = &answer.response;
    let decoded = (
        webauthn::decode(&answer.raw_id),
        webauthn::decode(&response.client_data_json),
        webauthn::decode(&response.authenticator_data),
        webauthn::decode(&response.signature),
    );
    let (Some(id), Some(client_data), Some(auth_data), Some(signature)) = decoded else {
        return refused("a value is not base64url");
    };
    let Some(key) = store::by_credential_id(&state.db, &id).await? else {
        return refused("the key is not registered");
    };
    let owner_matches = match person {
        Some(person) => key.person_id == person,
        None => {
            key.passwordless
                && response.user_handle.as_deref().is_none_or(|h| {
                    webauthn::decode(h).as_deref() == Some(key.person_id.as_bytes())
                })
        }
    };
    if !owner_matches || key.rp_id != rp.id {
        return refused("the key is not one this step accepts");
    }
    let count = match webauthn::verify_assertion(
        &rp,
        &challenge,
        &client_data,
        &auth_data,
        &signature,
        &key.public_key,
        person.is_none(),
    ) {
        Ok(count) => count,
        Err(e) => return refused(&e.to_string()),
    };
    if !webauthn::counter_moves_on(key.sign_count, count)
        || !store::record_use(&state.db, key.id, key.sign_count, i64::from(count)).await?
    {
        tracing::warn!(key = %key.id, person = %key.person_id, stored = key.sign_count, count,
            "a security key's signature counter did not move on: the key may have been copied");
        return Ok(None);
    }
    Ok(Some(key))
}
