//! Single sign-on with OpenID Connect providers (decisions section 100):
//! admins configure providers under `/api/settings/sso`, the sign-in page
//! lists them (`/api/auth/sso/providers`) and sends the browser through
//! `start` to the provider and back to `callback`, which signs the person
//! in; people link and unlink their accounts from their profile.

use axum::Json;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use quarterdeck_store::password::random_secret;
use quarterdeck_store::sso::{
    self, Claims, LinkedAccount, Mapping, NewAuthorization, Provider, SignInError, Unlinked,
};
use quarterdeck_store::{second_factor, secret, sessions};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::{Caller, SESSION_COOKIE, Via, cookie, set_cookie};
use crate::body::{Body, Path, Query};
use crate::error::ErrorBody;
use crate::rbac::Role;
use crate::routes::flow::allowed_return_to;
use crate::routes::login::start_session;
use crate::routes::people::check_role;
use crate::sso as oidc;
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_providers, create_provider))
        .routes(routes!(get_provider, update_provider, delete_provider))
        .routes(routes!(sign_in_providers))
        .routes(routes!(start))
        .routes(routes!(callback))
        .routes(routes!(linked_accounts))
        .routes(routes!(unlink))
}

/// The cookie that ties an authorization request to the browser that
/// started it (so a callback URL cannot be replayed into another browser).
const BROWSER_COOKIE: &str = "quarterdeck_sso";
const COOKIE_PATH: &str = "/api/auth/sso";

/// The URL the provider sends the browser back to.
fn redirect_uri(state: &AppState, slug: &str) -> String {
    format!(
        "{}/api/auth/sso/{slug}/callback",
        state.auth.public_url.trim_end_matches('/')
    )
}

fn start_path(slug: &str) -> String {
    format!("/api/auth/sso/{slug}/start")
}

fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

fn admin(caller: &Caller) -> Result<(), ApiError> {
    if caller.authorizer.is_admin() {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            "only admins can read and change single sign-on providers",
        ))
    }
}

// ---------------------------------------------------------------- admin

/// A group of the provider's groups claim and the role or team it gives.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupMapping {
    /// The group as the provider names it.
    #[schema(min_length = 1, max_length = 256, pattern = r"\S")]
    group: String,
    /// The role the group gives (set this or `team`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Role>)]
    role: Option<String>,
    /// The team the group makes the person a member of (set this or `role`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    team: Option<Uuid>,
}

/// A provider as an admin writes it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = SsoProviderInput)]
pub(crate) struct ProviderInput {
    /// The provider's name in URLs: lower-case letters, digits and dashes.
    #[schema(pattern = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")]
    slug: String,
    /// What the sign-in button says after "Sign in with".
    #[schema(min_length = 1, max_length = 100, pattern = r"\S")]
    label: String,
    /// The issuer URL (https; http only on a loopback address); its
    /// `/.well-known/openid-configuration` is read.
    #[schema(pattern = "^https?://", max_length = 2048)]
    issuer: String,
    #[schema(min_length = 1, max_length = 256, pattern = r"^\S+$")]
    client_id: String,
    /// Write-only: required when creating; left out (or null) keeps the stored one.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 1024)]
    client_secret: Option<String>,
    /// The scopes asked for; must hold `openid`. Default `openid email profile`.
    #[serde(default)]
    scopes: Option<Vec<String>>,
    /// The claim (of the ID token or userinfo) holding the person's groups
    /// or roles; a dotted name reaches into objects (`realm_access.roles`).
    #[serde(default)]
    #[schema(max_length = 100)]
    groups_claim: Option<String>,
    /// A first sign-in of someone with no person creates one (with a verified email only).
    #[serde(default)]
    create_people: bool,
    /// The role a person created by a sign-in gets besides the mapped ones.
    #[serde(default)]
    #[schema(value_type = Option<Role>)]
    default_role: Option<String>,
    /// Shown on the sign-in page and usable (default true).
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default)]
    mappings: Vec<GroupMapping>,
}

fn yes() -> bool {
    true
}

/// A provider as answered: never its client secret.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SsoProvider)]
pub struct ProviderView {
    id: Uuid,
    slug: String,
    label: String,
    issuer: String,
    client_id: String,
    /// Whether a client secret is stored (it is never answered).
    client_secret_set: bool,
    scopes: Vec<String>,
    groups_claim: Option<String>,
    create_people: bool,
    default_role: Option<String>,
    enabled: bool,
    mappings: Vec<GroupMapping>,
    /// The redirect URI to register at the provider.
    redirect_uri: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

async fn view(state: &AppState, provider: Provider) -> Result<ProviderView, ApiError> {
    let mappings = sso::mappings(&state.db, provider.id)
        .await?
        .into_iter()
        .map(|m| GroupMapping {
            group: m.group,
            role: m.role,
            team: m.team_id,
        })
        .collect();
    Ok(ProviderView {
        id: provider.id,
        redirect_uri: redirect_uri(state, &provider.slug),
        slug: provider.slug,
        label: provider.label,
        issuer: provider.issuer,
        client_id: provider.client_id,
        client_secret_set: !provider.client_secret.is_empty(),
        scopes: provider.scopes,
        groups_claim: provider.groups_claim,
        create_people: provider.create_people,
        default_role: provider.default_role,
        enabled: provider.enabled,
        mappings,
        created_at: provider.created_at,
        updated_at: provider.updated_at,
    })
}

/// An issuer URL: https, or http on a loopback address (a provider on the
/// same machine); no query or fragment.
fn check_issuer(issuer: &str) -> Result<(), ApiError> {
    let bad = |why: &str| ApiError::invalid("issuer", format!("The issuer {why}"));
    let url = url::Url::parse(issuer).map_err(|_| bad("must be an absolute URL"))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => return Err(bad("must name a host")),
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => {
            return Err(bad(
                "must be an https URL (http only on a loopback address)",
            ));
        }
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(bad("must have no query, fragment or user"));
    }
    if issuer.len() > 2048 {
        return Err(bad("must be at most 2048 characters"));
    }
    Ok(())
}

/// The checked settings of `input`, and its secret when given.
async fn checked(
    state: &AppState,
    caller: &Caller,
    input: &ProviderInput,
) -> Result<(Vec<String>, Vec<Mapping>), ApiError> {
    if !valid_slug(&input.slug) {
        return Err(ApiError::invalid(
            "slug",
            "The slug must be 1 to 63 lower-case letters, digits and dashes, not starting or ending with a dash",
        ));
    }
    let label = input.label.trim();
    if label.is_empty() || label.chars().count() > 100 {
        return Err(ApiError::invalid(
            "label",
            "A label of 1 to 100 characters is required",
        ));
    }
    check_issuer(&input.issuer)?;
    if input.client_id.is_empty()
        || input.client_id.len() > 256
        || input.client_id.contains(char::is_whitespace)
    {
        return Err(ApiError::invalid(
            "client_id",
            "A client id of 1 to 256 characters without spaces is required",
        ));
    }
    if let Some(secret) = &input.client_secret
        && (secret.is_empty() || secret.len() > 1024)
    {
        return Err(ApiError::invalid(
            "client_secret",
            "The client secret must be 1 to 1024 characters",
        ));
    }
    let scopes = input
        .scopes
        .clone()
        .unwrap_or_else(|| ["openid", "email", "profile"].map(String::from).to_vec());
    let scope_ok = |s: &String| {
        !s.is_empty()
            && s.len() <= 100
            && s.bytes()
                .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
    };
    if !scopes.iter().all(scope_ok) || !scopes.iter().any(|s| s == "openid") || scopes.len() > 50 {
        return Err(ApiError::invalid(
            "scopes",
            "The scopes must include openid, each of printable characters without spaces, quotes or backslashes",
        ));
    }
    if let Some(claim) = &input.groups_claim
        && (claim.trim().is_empty() || claim.len() > 100)
    {
        return Err(ApiError::invalid(
            "groups_claim",
            "The groups claim must be 1 to 100 characters, or left out",
        ));
    }
    if let Some(role) = &input.default_role {
        check_role(caller, role).map_err(|e| rename(e, "default_role"))?;
    }
    let mut mappings = Vec::new();
    for (i, m) in input.mappings.iter().enumerate() {
        let field = format!("mappings[{i}]");
        if m.group.trim().is_empty() || m.group.len() > 256 {
            return Err(ApiError::invalid(
                format!("{field}.group"),
                "A group of 1 to 256 characters is required",
            ));
        }
        match (&m.role, m.team) {
            (Some(role), None) => {
                check_role(caller, role).map_err(|e| rename(e, &format!("{field}.role")))?;
            }
            (None, Some(_)) => {}
            _ => {
                return Err(ApiError::invalid(
                    field,
                    "A mapping gives either a role or a team",
                ));
            }
        }
        mappings.push(Mapping {
            group: m.group.clone(),
            role: m.role.clone(),
            team_id: m.team,
        });
    }
    let teams: Vec<Uuid> = mappings.iter().filter_map(|m| m.team_id).collect();
    let missing = sso::missing_teams(&state.db, &teams).await?;
    if let Some(i) = mappings
        .iter()
        .position(|m| m.team_id.is_some_and(|t| missing.contains(&t)))
    {
        return Err(ApiError::invalid(
            format!("mappings[{i}].team"),
            "No such team",
        ));
    }
    Ok((scopes, mappings))
}

/// The slug rule (the documented pattern `^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`).
fn valid_slug(slug: &str) -> bool {
    let bytes = slug.as_bytes();
    let inner = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes.first().is_some_and(inner)
        && bytes.last().is_some_and(inner)
        && bytes.iter().all(|b| inner(b) || *b == b'-')
}

/// A role refusal about another field: invalid roles name that field.
fn rename(e: ApiError, field: &str) -> ApiError {
    match e {
        ApiError::Invalid { message, .. } => ApiError::invalid(field.to_owned(), message),
        other => other,
    }
}

fn settings<'a>(
    input: &'a ProviderInput,
    scopes: &'a [String],
    mappings: &'a [Mapping],
) -> sso::Settings<'a> {
    sso::Settings {
        slug: &input.slug,
        label: input.label.trim(),
        issuer: &input.issuer,
        client_id: &input.client_id,
        scopes,
        groups_claim: input
            .groups_claim
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty()),
        create_people: input.create_people,
        default_role: input.default_role.as_deref(),
        enabled: input.enabled,
        mappings,
    }
}

/// The single sign-on providers; admins only.
#[utoipa::path(get, path = "/api/settings/sso", tag = "settings",
    responses(
        (status = 200, body = Vec<ProviderView>),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn list_providers(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Vec<ProviderView>>, ApiError> {
    admin(&caller)?;
    let mut out = Vec::new();
    for provider in sso::providers(&state.db).await? {
        out.push(view(&state, provider).await?);
    }
    Ok(Json(out))
}

/// Adds a single sign-on provider; admins only. Mappings may give only
/// roles whose every right the admin holds.
#[utoipa::path(post, path = "/api/settings/sso", tag = "settings", request_body = ProviderInput,
    responses(
        (status = 201, body = ProviderView),
        (status = 400, description = "A malformed body, naming the field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "The slug is taken", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, provider = %input.slug))]
pub(crate) async fn create_provider(
    State(state): State<AppState>,
    caller: Caller,
    Body(input): Body<ProviderInput>,
) -> Result<(StatusCode, Json<ProviderView>), ApiError> {
    admin(&caller)?;
    let (scopes, mappings) = checked(&state, &caller, &input).await?;
    let Some(secret) = &input.client_secret else {
        return Err(ApiError::invalid(
            "client_secret",
            "A client secret is required",
        ));
    };
    let provider = sso::create(
        &state.db,
        &settings(&input, &scopes, &mappings),
        &state.keyring.encrypt(secret),
        caller.person.id,
    )
    .await?;
    tracing::info!(provider = %provider.slug, issuer = %provider.issuer, "single sign-on provider added");
    Ok((StatusCode::CREATED, Json(view(&state, provider).await?)))
}

/// One single sign-on provider; admins only.
#[utoipa::path(get, path = "/api/settings/sso/{slug}", tag = "settings",
    params(("slug" = String, Path, pattern = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")),
    responses(
        (status = 200, body = ProviderView),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, provider = %slug))]
pub(crate) async fn get_provider(
    State(state): State<AppState>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Result<Json<ProviderView>, ApiError> {
    admin(&caller)?;
    let provider = sso::provider(&state.db, &slug)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no single sign-on provider {slug}")))?;
    Ok(Json(view(&state, provider).await?))
}

/// Changes a single sign-on provider (its mappings replaced; the client
/// secret only when given); admins only.
#[utoipa::path(put, path = "/api/settings/sso/{slug}", tag = "settings", request_body = ProviderInput,
    params(("slug" = String, Path, pattern = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")),
    responses(
        (status = 200, body = ProviderView),
        (status = 400, description = "A malformed body, naming the field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "The new slug is taken", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, provider = %slug))]
pub(crate) async fn update_provider(
    State(state): State<AppState>,
    caller: Caller,
    Path(slug): Path<String>,
    Body(input): Body<ProviderInput>,
) -> Result<Json<ProviderView>, ApiError> {
    admin(&caller)?;
    let (scopes, mappings) = checked(&state, &caller, &input).await?;
    let secret = input
        .client_secret
        .as_deref()
        .map(|s| state.keyring.encrypt(s));
    let provider = sso::update(
        &state.db,
        &slug,
        &settings(&input, &scopes, &mappings),
        secret.as_deref(),
        caller.person.id,
    )
    .await?
    .ok_or_else(|| ApiError::NotFound(format!("no single sign-on provider {slug}")))?;
    tracing::info!(provider = %provider.slug, "single sign-on provider changed");
    Ok(Json(view(&state, provider).await?))
}

/// Removes a single sign-on provider and every account linked through it;
/// admins only.
#[utoipa::path(delete, path = "/api/settings/sso/{slug}", tag = "settings",
    params(("slug" = String, Path, pattern = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, provider = %slug))]
pub(crate) async fn delete_provider(
    State(state): State<AppState>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Result<StatusCode, ApiError> {
    admin(&caller)?;
    if sso::delete(&state.db, &slug).await? {
        tracing::info!(provider = %slug, "single sign-on provider removed");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound(format!(
            "no single sign-on provider {slug}"
        )))
    }
}

// ---------------------------------------------------------------- sign-in

/// A sign-in button.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SsoButton)]
pub struct Button {
    slug: String,
    label: String,
    /// Where the button sends the browser (add `return_to`).
    start_url: String,
}

/// The enabled single sign-on providers, for the sign-in page's buttons.
#[utoipa::path(get, path = "/api/auth/sso/providers", tag = "auth",
    responses((status = 200, body = Vec<Button>)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn sign_in_providers(
    State(state): State<AppState>,
) -> Result<Json<Vec<Button>>, ApiError> {
    Ok(Json(buttons(&state).await?))
}

async fn buttons(state: &AppState) -> Result<Vec<Button>, ApiError> {
    Ok(sso::providers(&state.db)
        .await?
        .into_iter()
        .filter(|p| p.enabled)
        .map(|p| Button {
            start_url: start_path(&p.slug),
            slug: p.slug,
            label: p.label,
        })
        .collect())
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct StartQuery {
    /// A path on this origin to go to afterwards (the sign-in flow's rule):
    /// no backslash, control character (C0, DEL, C1) or Unicode whitespace,
    /// and not `//`.
    #[param(
        pattern = r"^/([^/\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*)?$"
    )]
    return_to: Option<String>,
    /// Link the provider's account to the signed-in person (from the profile).
    link: Option<bool>,
}

/// A failed single sign-on step: the browser goes to `back` with
/// `sso_error=code`, and the reason is logged.
struct Failure {
    code: &'static str,
    reason: String,
    back: &'static str,
}

fn fail(code: &'static str, reason: impl Into<String>) -> Failure {
    Failure {
        code,
        reason: reason.into(),
        back: "/login",
    }
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        fail("server_error", e.to_string())
    }
}

impl From<oidc::SsoError> for Failure {
    fn from(e: oidc::SsoError) -> Self {
        fail(e.code(), e.to_string())
    }
}

impl Failure {
    fn respond(self, slug: &str) -> Response {
        tracing::warn!(provider = %slug, code = self.code, reason = %self.reason, "single sign-on failed");
        see_other(&format!("{}?sso_error={}", self.back, self.code))
    }
}

/// The live session of this browser that may act (no second factor owed).
async fn acting_session(
    state: &AppState,
    parts: &Parts,
) -> Result<Option<sessions::Found>, ApiError> {
    let Some(secret) = cookie(&parts.headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    Ok(sessions::find(&state.db, &secret)
        .await?
        .filter(|f| !f.needs_aal2() && f.person.kind.is_none()))
}

/// Sends the browser to the provider: an authorization request (code flow)
/// with state, nonce and PKCE (S256). An unknown or unreachable provider
/// sends it back to `/login?sso_error=<code>`; malformed parameters (a
/// `return_to` off this origin) are a 400.
#[utoipa::path(get, path = "/api/auth/sso/{slug}/start", tag = "auth",
    params(("slug" = String, Path), StartQuery),
    responses(
        (status = 303, description = "To the provider's authorization endpoint, or back to `/login?sso_error=` when the provider is unknown, disabled or unreachable, or linking finds no session"),
        (status = 400, description = "Malformed parameters, or return_to is not on this origin; names the parameter", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(provider = %slug))]
pub(crate) async fn start(
    State(state): State<AppState>,
    parts: Parts,
    Path(slug): Path<String>,
    Query(q): Query<StartQuery>,
) -> Result<Response, ApiError> {
    if let Some(return_to) = &q.return_to
        && !allowed_return_to(return_to, &state.auth.public_url)
    {
        return Err(ApiError::invalid(
            "return_to",
            "The return_to address is not allowed.",
        ));
    }
    Ok(match begin(&state, &parts, &slug, q).await {
        Ok(response) => response,
        Err(failure) => failure.respond(&slug),
    })
}

async fn begin(
    state: &AppState,
    parts: &Parts,
    slug: &str,
    q: StartQuery,
) -> Result<Response, Failure> {
    let provider = sso::provider(&state.db, slug)
        .await
        .map_err(ApiError::from)?
        .filter(|p| p.enabled)
        .ok_or_else(|| fail("unknown_provider", "no enabled provider with this slug"))?;
    let link_person = if q.link.unwrap_or(false) {
        let found = acting_session(state, parts).await?.ok_or_else(|| {
            fail(
                "session_required",
                "linking needs a signed-in browser session",
            )
        })?;
        Some(found.person.id)
    } else {
        None
    };
    let discovered = state.oidc.discover(&provider.issuer).await?;
    let request_state = random_secret(43);
    let nonce = random_secret(43);
    let verifier = random_secret(64);
    // One binding per browser, so flows in two tabs do not undo each other.
    let browser = cookie(&parts.headers, BROWSER_COOKIE)
        .filter(|c| c.len() == 43 && c.bytes().all(|b| b.is_ascii_alphanumeric()))
        .unwrap_or_else(|| random_secret(43));
    sso::begin(
        &state.db,
        &NewAuthorization {
            state: &request_state,
            browser: &browser,
            provider: provider.id,
            nonce: &nonce,
            pkce_verifier: &verifier,
            return_to: q.return_to.as_deref(),
            link_person,
            lifetime: state.auth.login_flow_lifetime,
        },
    )
    .await
    .map_err(ApiError::from)?;
    let url = oidc::authorization_url(
        &discovered,
        &provider.client_id,
        &provider.scopes,
        &redirect_uri(state, &provider.slug),
        &request_state,
        &nonce,
        &verifier,
    )?;
    let mut response = see_other(&url);
    let cookie = set_cookie(
        state,
        BROWSER_COOKIE,
        Some(&browser),
        COOKIE_PATH,
        state.auth.login_flow_lifetime.as_secs(),
        "Lax",
    );
    if let Ok(value) = cookie.parse() {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    tracing::info!(link = link_person.is_some(), "sent to the provider");
    Ok(response)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct CallbackQuery {
    /// The authorization code.
    code: Option<String>,
    /// The state sent with the authorization request.
    state: Option<String>,
    /// The provider's error (the person declined, or the request was refused).
    error: Option<String>,
    error_description: Option<String>,
    /// The issuer of the answer (RFC 9207), when the provider sends it.
    iss: Option<String>,
}

/// Where the provider sends the browser back: the code is exchanged, the ID
/// token validated and the person signed in (or their account linked).
/// Every failure goes to `/login?sso_error=<code>` (`/profile-settings` when
/// linking): `invalid_request`, `unknown_provider`, `invalid_state` (unknown,
/// expired, used or another browser's), `access_denied`,
/// `provider_unavailable`, `code_refused`, `invalid_token`, `email_not_verified`,
/// `no_account`, `no_email`, `linked_elsewhere`, `already_linked`,
/// `session_required`, `server_error`.
#[utoipa::path(get, path = "/api/auth/sso/{slug}/callback", tag = "auth",
    params(("slug" = String, Path), CallbackQuery),
    responses((status = 303, description = "Signed in (sets the session cookie) and sent to `return_to`, or to `/login?aal=aal2` when a second factor is owed; on failure to `/login?sso_error=`")))]
#[tracing::instrument(skip_all, fields(provider = %slug))]
pub(crate) async fn callback(
    State(state): State<AppState>,
    parts: Parts,
    Path(slug): Path<String>,
    q: Result<Query<CallbackQuery>, ApiError>,
) -> Response {
    match finish(&state, &parts, &slug, q).await {
        Ok(response) => response,
        Err(failure) => failure.respond(&slug),
    }
}

async fn finish(
    state: &AppState,
    parts: &Parts,
    slug: &str,
    q: Result<Query<CallbackQuery>, ApiError>,
) -> Result<Response, Failure> {
    let Query(q) = q.map_err(|e| fail("invalid_request", e.to_string()))?;
    let request_state = q
        .state
        .as_deref()
        .ok_or_else(|| fail("invalid_state", "no state"))?;
    // The state is taken first, so whatever follows, it works once.
    let authorization = sso::take(&state.db, request_state)
        .await
        .map_err(ApiError::from)?
        .map_err(|e| fail("invalid_state", e.to_string()))?;
    let back = if authorization.link_person.is_some() {
        "/profile-settings"
    } else {
        "/login"
    };
    let fail = |code, reason: String| Failure { code, reason, back };
    let provider = sso::provider(&state.db, slug)
        .await
        .map_err(ApiError::from)?
        .filter(|p| p.enabled && p.id == authorization.provider_id)
        .ok_or_else(|| {
            fail(
                "invalid_state",
                "the state belongs to another (or a disabled) provider".into(),
            )
        })?;
    let binding = cookie(&parts.headers, BROWSER_COOKIE)
        .map(|c| secret::digest(&c))
        .unwrap_or_default();
    if binding != authorization.browser_digest {
        return Err(fail(
            "invalid_state",
            "the callback came to a browser that did not start this sign-in".into(),
        ));
    }
    // RFC 9207: an answer from another issuer is a mix-up.
    if q.iss.as_deref().is_some_and(|iss| iss != provider.issuer) {
        return Err(fail(
            "invalid_state",
            format!("the answer names the issuer {:?}", q.iss),
        ));
    }
    if let Some(error) = &q.error {
        return Err(fail(
            "access_denied",
            format!(
                "the provider answered {error}: {}",
                q.error_description.as_deref().unwrap_or("")
            ),
        ));
    }
    let code = q
        .code
        .as_deref()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| fail("invalid_request", "no code".into()))?;
    let with_back = |e: oidc::SsoError| fail(e.code(), e.to_string());
    let discovered = state
        .oidc
        .discover(&provider.issuer)
        .await
        .map_err(with_back)?;
    let client_secret = state
        .keyring
        .decrypt(&provider.client_secret)
        .map_err(|e| fail("server_error", format!("the client secret: {e}")))?;
    let tokens = state
        .oidc
        .exchange(
            &discovered,
            &provider.client_id,
            &client_secret,
            code,
            &redirect_uri(state, &provider.slug),
            &authorization.pkce_verifier,
        )
        .await
        .map_err(with_back)?;
    let id_token = tokens.id_token.as_deref().ok_or_else(|| {
        fail(
            "invalid_token",
            "the token endpoint gave no ID token".into(),
        )
    })?;
    let mut claims = state
        .oidc
        .validate(
            &discovered,
            &provider.issuer,
            &provider.client_id,
            id_token,
            &authorization.nonce,
        )
        .await
        .map_err(with_back)?;
    let subject = oidc::text(&claims, "sub").unwrap_or_default().to_owned();
    if let Some(access_token) = &tokens.access_token {
        // The ID token's claims win; userinfo adds what it lacks.
        for (name, value) in state
            .oidc
            .userinfo(&discovered, access_token, &subject)
            .await
            .map_err(with_back)?
        {
            claims.entry(name).or_insert(value);
        }
    }
    let email = oidc::text(&claims, "email").map(str::to_owned);
    let name = oidc::name(&claims).unwrap_or_else(|| subject.clone());
    let groups = provider
        .groups_claim
        .as_deref()
        .map(|c| oidc::groups(&claims, c))
        .unwrap_or_default();
    if let Some(wanted) = authorization.link_person {
        let current = acting_session(state, parts).await?;
        if current.is_none_or(|f| f.person.id != wanted) {
            return Err(fail(
                "session_required",
                "the browser is no longer signed in as the person who asked to link".into(),
            ));
        }
    }
    let claims = Claims {
        subject: &subject,
        email: email.as_deref(),
        email_verified: oidc::email_verified(&claims),
        name: &name,
        groups: &groups,
    };
    let (person, found) = sso::sign_in(&state.db, &provider, &claims, authorization.link_person)
        .await
        .map_err(ApiError::from)?
        .map_err(|e| {
            let code = match e {
                SignInError::EmailNotVerified => "email_not_verified",
                SignInError::NoAccount => "no_account",
                SignInError::NoEmail => "no_email",
                SignInError::LinkedElsewhere => "linked_elsewhere",
                SignInError::AlreadyLinked => "already_linked",
                SignInError::PersonGone => "session_required",
            };
            fail(code, e.to_string())
        })?;
    tracing::info!(person = %person.id, ?found, groups = groups.len(), "single sign-on passed");
    let clear = set_cookie(state, BROWSER_COOKIE, None, COOKIE_PATH, 0, "Lax");
    if authorization.link_person.is_some() {
        let mut response = see_other(
            authorization
                .return_to
                .as_deref()
                .unwrap_or("/profile-settings"),
        );
        if let Ok(value) = clear.parse() {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
        return Ok(response);
    }
    let mut return_to = authorization.return_to.unwrap_or_else(|| "/".into());
    if second_factor::enrolled(&state.db, person.id)
        .await
        .map_err(ApiError::from)?
        .any
    {
        return_to = crate::routes::login::second_factor_step(&return_to);
    }
    let session = start_session(state, parts, &person, "aal1").await?;
    let mut response = see_other(&return_to);
    for value in session.headers().get_all(header::SET_COOKIE) {
        response
            .headers_mut()
            .append(header::SET_COOKIE, value.clone());
    }
    if let Ok(value) = clear.parse() {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    Ok(response)
}

// ---------------------------------------------------------------- profile

/// The caller's linked accounts and the providers they may link.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SsoAccounts)]
pub struct Accounts {
    accounts: Vec<LinkedAccount>,
    /// Every enabled provider; `start_url` with `link=true` links one.
    providers: Vec<Button>,
}

fn person_only(caller: &Caller) -> Result<(), ApiError> {
    if caller.person.kind.is_some() || caller.via == Via::Token {
        return Err(ApiError::forbidden(
            "linked sign-in accounts belong to a person at the console, not a token or machine identity",
        ));
    }
    Ok(())
}

/// The caller's accounts at single sign-on providers.
#[utoipa::path(get, path = "/api/profile/sso", tag = "profile",
    responses(
        (status = 200, body = Accounts),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn linked_accounts(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Accounts>, ApiError> {
    person_only(&caller)?;
    Ok(Json(Accounts {
        accounts: sso::linked(&state.db, caller.person.id).await?,
        providers: buttons(&state).await?,
    }))
}

/// Unlinks the caller's account at a provider; refused (409) when it is
/// their last way to sign in (no password and no other linked account).
#[utoipa::path(delete, path = "/api/profile/sso/{slug}", tag = "profile",
    params(("slug" = String, Path)),
    responses(
        (status = 204, description = "Unlinked"),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "No account at that provider is linked", body = ErrorBody),
        (status = 409, description = "The last way to sign in", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, provider = %slug))]
pub(crate) async fn unlink(
    State(state): State<AppState>,
    caller: Caller,
    Path(slug): Path<String>,
) -> Result<StatusCode, ApiError> {
    person_only(&caller)?;
    match sso::unlink(&state.db, caller.person.id, &slug).await? {
        Unlinked::Done => {
            tracing::info!("single sign-on account unlinked");
            Ok(StatusCode::NO_CONTENT)
        }
        Unlinked::NotLinked => Err(ApiError::NotFound(format!(
            "no account at {slug} is linked to you"
        ))),
        Unlinked::LastWay => Err(ApiError::Conflict(
            "this is your only way to sign in: set a password or link another account first".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        for good in ["a", "okta", "google-workspace", "a1"] {
            assert!(valid_slug(good), "{good}");
        }
        for bad in ["", "-a", "a-", "A", "a_b", "a b", &"a".repeat(64)] {
            assert!(!valid_slug(bad), "{bad}");
        }
    }

    #[test]
    fn issuers() {
        for good in [
            "https://id.example.com",
            "https://id.example.com/realms/x",
            "http://127.0.0.1:9000",
            "http://localhost:9000/oidc",
            "http://[::1]:9000",
        ] {
            assert!(check_issuer(good).is_ok(), "{good}");
        }
        for bad in [
            "http://id.example.com",
            "ftp://id.example.com",
            "https://id.example.com?x=1",
            "https://id.example.com#x",
            "https://u@id.example.com",
            "id.example.com",
        ] {
            assert!(check_issuer(bad).is_err(), "{bad}");
        }
    }
}
