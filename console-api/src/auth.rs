//! Who is calling: an access token (bearer, or Basic with user `token`),
//! an email and password (Basic, when enabled), or a session cookie.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, HOST, ORIGIN, REFERER};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use quarterdeck_dataapi as rest;
use quarterdeck_store::grants::{self, AccessScopeGrant, Grants};
use quarterdeck_store::people::{self, Person};
use quarterdeck_store::{login, second_factor, sessions};
use url::Url;

use crate::rbac::{Action, Authorizer, Kind, Resource, ScopeGrant};
use crate::{ApiError, AppState};

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "quarterdeck_session";
/// Name of the sign-in flow's CSRF cookie.
pub const CSRF_COOKIE: &str = "quarterdeck_csrf";
/// Basic-auth user name that marks the password as an access token.
const TOKEN_USER: &str = "token";

/// What a person whom an admin requires to have a second factor may call
/// before enrolling one: who they are, and enrolling an authenticator app
/// or a security key.
const ENROLMENT_PATHS: &[&str] = &[
    "/api/auth/whoami",
    "/api/auth/second-factor",
    "/api/auth/totp",
    "/api/auth/totp/confirm",
    "/api/auth/webauthn/registration",
    "/api/auth/webauthn/credentials",
];

/// How the caller authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Session,
    Token,
    Password,
}

/// The authenticated caller; rejects the request with 401 otherwise.
#[derive(Clone)]
pub struct Caller {
    pub person: Person,
    pub authorizer: Authorizer,
    /// The access scopes limiting what the caller sees.
    pub access_scopes: Vec<AccessScopeGrant>,
    pub via: Via,
}

impl Caller {
    /// Refuses with 403 naming the resource and action unless allowed.
    pub fn require(&self, resource: Resource, action: Action) -> Result<(), ApiError> {
        if self.authorizer.allows(resource, action) {
            Ok(())
        } else {
            Err(ApiError::denied(resource.as_str(), action.as_str()))
        }
    }

    /// Refuses with 403 a caller whose permissions select rows of `kind` by
    /// rule: only `/api/db` applies such rules, so calls that read those rows
    /// another way send the caller there.
    pub fn require_no_row_rules(&self, kind: Kind, rows: &str) -> Result<(), ApiError> {
        match self.authorizer.row_filter(kind, Action::Read) {
            Some(_) => Err(ApiError::forbidden(format!(
                "permissions with selectors on {rows} apply to /api/db reads only"
            ))),
            None => Ok(()),
        }
    }

    /// Like [`Caller::require`], for a relation of the data API: rules with
    /// selectors that grant the action on some rows of the relation's kind
    /// let the request through, and the data API then acts on those rows only.
    pub fn require_on(&self, relation: &rest::Relation, action: Action) -> Result<(), ApiError> {
        let resource = if action == Action::Read {
            relation.resource
        } else {
            relation.write_resource
        };
        let selected = Kind::of_table(relation.rows_of)
            .is_some_and(|k| k.resource() == resource && self.authorizer.can_some(k, action));
        if selected {
            Ok(())
        } else {
            self.require(resource, action)
        }
    }

    /// The caller as the data API layer sees it.
    pub fn rest(&self) -> rest::Caller {
        rest::Caller {
            person_id: Some(self.person.id),
            visibility: rest::visibility(&self.person.roles, &self.access_scopes),
            admin: self.authorizer.is_admin(),
            writes: Resource::ALL
                .iter()
                .copied()
                .filter(|&r| self.authorizer.allows(r, Action::Update))
                .collect(),
            authorizer: self.authorizer.clone(),
        }
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let (person, grants, token_scope, via) = identify(parts, state)
            .await?
            .ok_or(ApiError::Unauthorized)?;
        let authorizer = Authorizer {
            roles: person.roles.clone(),
            rules: grants.rules,
            token_scope,
        };
        Ok(Caller {
            person,
            authorizer,
            access_scopes: grants.access_scopes,
            via,
        })
    }
}

/// The person, their grants (loaded with the credential when it can be),
/// a token's scope, and how they authenticated.
type Identified = (Person, Grants, Option<Vec<ScopeGrant>>, Via);

async fn identify(parts: &Parts, state: &AppState) -> Result<Option<Identified>, ApiError> {
    if let Some(value) = parts
        .headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        let (scheme, credentials) = value.split_once(' ').ok_or(ApiError::Unauthorized)?;
        let credentials = credentials.trim();
        if scheme.eq_ignore_ascii_case("bearer") {
            return by_token(state, credentials).await;
        }
        if !scheme.eq_ignore_ascii_case("basic") {
            return Err(ApiError::Unauthorized);
        }
        let (user, password) = decode_basic(credentials).ok_or(ApiError::Unauthorized)?;
        if user == TOKEN_USER {
            return by_token(state, &password).await;
        }
        if !state.auth.basic_auth_passwords {
            return Err(ApiError::Unauthorized);
        }
        let person = verify_password(state, parts, &user, &password)
            .await?
            .ok_or(ApiError::Unauthorized)?;
        if second_factor::enrolled(&state.db, person.id).await?.any {
            return Err(ApiError::forbidden(
                "Basic sign-in with a password is refused for accounts with a second factor; use an access token",
            ));
        }
        let grants = grants::for_person(&state.db, person.id, &person.roles).await?;
        return Ok(Some((person, grants, None, Via::Password)));
    }
    if let Some(secret) = cookie(&parts.headers, SESSION_COOKIE)
        && let Some(found) = sessions::find(&state.db, &secret).await?
    {
        check_same_origin(&parts.method, &parts.headers, state)?;
        if found.needs_aal2() {
            return Err(ApiError::Aal2Required);
        }
        if found.needs_enrolment() && !ENROLMENT_PATHS.contains(&parts.uri.path()) {
            return Err(ApiError::EnrolmentRequired);
        }
        return Ok(Some((found.person, found.grants, None, Via::Session)));
    }
    Ok(None)
}

async fn by_token(state: &AppState, token: &str) -> Result<Option<Identified>, ApiError> {
    let found = state
        .tokens
        .authenticate(token)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    // A scope that does not parse grants nothing rather than everything.
    let scope = found
        .scope
        .map(|s| serde_json::from_value::<Vec<ScopeGrant>>(s).unwrap_or_default());
    Ok(Some((found.person, found.grants, scope, Via::Token)))
}

/// Checks an email and password within the failed sign-in limits; both
/// sign-in paths (the browser flow and Basic) use it.
pub async fn verify_password(
    state: &AppState,
    parts: &Parts,
    email: &str,
    password: &str,
) -> Result<Option<Person>, ApiError> {
    within_limits(state, parts, email, async {
        Ok(people::authenticate(&state.db, email, password).await?)
    })
    .await
}

/// Runs one sign-in check (a password, a second factor) of the account
/// `email` within the failed sign-in limits. The attempt is reserved before
/// `check` runs, so concurrent guesses cannot overrun a limit, and released
/// when it succeeds. 429 when a limit is reached.
pub async fn within_limits<T>(
    state: &AppState,
    parts: &Parts,
    email: &str,
    check: impl Future<Output = Result<Option<T>, ApiError>>,
) -> Result<Option<T>, ApiError> {
    let settings = &state.auth;
    let ip = client_ip(parts, state).map(|ip| ip.to_string());
    let Some(attempt) =
        login::reserve_attempt(&state.db, email, ip.as_deref(), &settings.login_limits()).await?
    else {
        let minutes = settings.failure_window.as_secs().div_ceil(60);
        return Err(ApiError::TooManyRequests {
            message: format!("Too many failed sign-in attempts. Try again in {minutes} minutes."),
            retry_after: settings.failure_window.as_secs(),
        });
    };
    let passed = check.await?;
    if passed.is_some() {
        login::release(&state.db, attempt, email, ip.as_deref()).await?;
    }
    Ok(passed)
}

/// A header cross-site forms cannot send (and cross-site scripts cannot
/// without a CORS preflight this server never grants); the console sends it
/// on every call.
pub const REQUESTED_WITH: &str = "x-requested-with";

/// Refuses (403) a cookie-authenticated write that may come from another
/// site: SameSite=Lax still lets a top-level cross-site form post through.
/// A write must name this origin in `Origin` (else `Referer`): the public
/// URL's, or the scheme of the public URL with the `Host` the request was
/// sent to (the console reached under another name; a page elsewhere cannot
/// have that origin, and a rebound name gets no cookie of ours). And it must
/// carry a JSON body or the `X-Requested-With` header, which forms cannot.
pub fn check_same_origin(
    method: &Method,
    headers: &HeaderMap,
    state: &AppState,
) -> Result<(), ApiError> {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    let refuse = |why: String| {
        Err(ApiError::forbidden(format!(
            "cross-site request refused: {why}"
        )))
    };
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let Some((name, source)) = header(ORIGIN)
        .map(|v| ("Origin", v))
        .or_else(|| header(REFERER).map(|v| ("Referer", v)))
    else {
        return refuse("a write signed in by cookie needs an Origin or Referer header".into());
    };
    let Ok(public) = Url::parse(&state.auth.public_url) else {
        return refuse("the public URL is not a valid URL".into());
    };
    let own = header(HOST)
        .and_then(|host| Url::parse(&format!("{}://{host}", public.scheme())).ok())
        .map(|url| url.origin());
    let origin = Url::parse(source).map(|url| url.origin());
    let allowed = origin
        .as_ref()
        .is_ok_and(|o| *o == public.origin() || own.as_ref() == Some(o));
    if !allowed {
        return refuse(format!(
            "{name} {source:?} is not this console's origin {}",
            public.origin().ascii_serialization()
        ));
    }
    if !json_body(headers) && !headers.contains_key(REQUESTED_WITH) {
        return refuse(
            "a write signed in by cookie needs a JSON body or the X-Requested-With header".into(),
        );
    }
    Ok(())
}

/// Whether the Content-Type says JSON (`application/json` or `application/*+json`).
pub fn json_body(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|essence| essence.trim().to_ascii_lowercase())
        .is_some_and(|e| {
            e == "application/json" || (e.starts_with("application/") && e.ends_with("+json"))
        })
}

/// The credentials of the Authorization header when its scheme is `scheme`
/// (any case).
pub(crate) fn authorization<'a>(headers: &'a HeaderMap, scheme: &str) -> Option<&'a str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (given, credentials) = value.split_once(' ')?;
    given
        .eq_ignore_ascii_case(scheme)
        .then_some(credentials.trim())
}

/// The user and password of a Basic credential.
pub(crate) fn decode_basic(encoded: &str) -> Option<(String, String)> {
    let decoded = String::from_utf8(STANDARD.decode(encoded).ok()?).ok()?;
    let (user, password) = decoded.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// A cookie's value from the request headers.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

/// The client's address: the socket peer, or the first X-Forwarded-For
/// entry when the proxy is trusted.
pub fn client_ip(parts: &Parts, state: &AppState) -> Option<IpAddr> {
    if state.auth.trust_proxy_headers
        && let Some(forwarded) = parts
            .headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse().ok())
    {
        return Some(forwarded);
    }
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip())
}

/// A `Set-Cookie` value for one of our cookies; `None` clears it.
pub fn set_cookie(
    state: &AppState,
    name: &str,
    value: Option<&str>,
    path: &str,
    max_age: u64,
    same_site: &str,
) -> String {
    let secure = if state.auth.secure_cookies() {
        "; Secure"
    } else {
        ""
    };
    match value {
        Some(value) => format!(
            "{name}={value}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite={same_site}{secure}"
        ),
        None => format!("{name}=; Path={path}; Max-Age=0; HttpOnly; SameSite={same_site}{secure}"),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn cookies_are_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.append(
            COOKIE,
            HeaderValue::from_static("a=1; quarterdeck_session=qds_x; b=2"),
        );
        assert_eq!(cookie(&headers, SESSION_COOKIE).as_deref(), Some("qds_x"));
        assert_eq!(cookie(&headers, "missing"), None);
    }

    #[test]
    fn basic_credentials_decode() {
        assert_eq!(
            decode_basic("dG9rZW46cWR0X3g="),
            Some(("token".into(), "qdt_x".into()))
        );
        assert_eq!(decode_basic("not base64!"), None);
    }
}
