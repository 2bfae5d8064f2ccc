//! Who is calling: an access token (bearer, or Basic with user `token`),
//! an email and password (Basic, when enabled), or a session cookie.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::header::{AUTHORIZATION, COOKIE};
use axum::http::request::Parts;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use quarterdeck_store::grants::{self, AccessScopeGrant, Grants};
use quarterdeck_store::people::{self, Person};
use quarterdeck_store::{login, sessions, tokens};

use crate::rbac::{Action, Authorizer, ScopeGrant};
use crate::{ApiError, AppState};

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "quarterdeck_session";
/// Name of the sign-in flow's CSRF cookie.
pub const CSRF_COOKIE: &str = "quarterdeck_csrf";
/// Basic-auth user name that marks the password as an access token.
const TOKEN_USER: &str = "token";

/// How the caller authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Session,
    Token,
    Password,
}

/// The authenticated caller; rejects the request with 401 otherwise.
pub struct Caller {
    pub person: Person,
    pub authorizer: Authorizer,
    /// The access scopes limiting what the caller sees.
    pub access_scopes: Vec<AccessScopeGrant>,
    pub via: Via,
}

impl Caller {
    /// Refuses with 403 naming the resource and action unless allowed.
    pub fn require(&self, resource: &str, action: Action) -> Result<(), ApiError> {
        if self.authorizer.can(resource, action) {
            Ok(())
        } else {
            Err(ApiError::Denied {
                resource: resource.to_owned(),
                action: action.as_str(),
            })
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
        let ip = client_ip(parts, state).map(|ip| ip.to_string());
        check_rate_limit(state, &user, ip.as_deref()).await?;
        return match people::authenticate(&state.db, &user, &password).await? {
            Some(person) => {
                let grants = grants::for_person(&state.db, person.id, &person.roles).await?;
                Ok(Some((person, grants, None, Via::Password)))
            }
            None => {
                login::record_failure(&state.db, &user, ip.as_deref()).await?;
                Err(ApiError::Unauthorized)
            }
        };
    }
    if let Some(secret) = cookie(&parts.headers, SESSION_COOKIE)
        && let Some((person, _, grants)) = sessions::find(&state.db, &secret).await?
    {
        return Ok(Some((person, grants, None, Via::Session)));
    }
    Ok(None)
}

async fn by_token(state: &AppState, token: &str) -> Result<Option<Identified>, ApiError> {
    let (person, grants, scope) = tokens::authenticate(&state.db, token)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    // A scope that does not parse grants nothing rather than everything.
    let scope = scope.map(|s| serde_json::from_value::<Vec<ScopeGrant>>(s).unwrap_or_default());
    Ok(Some((person, grants, scope, Via::Token)))
}

/// Refuses with 429 when the account or the address has failed too often.
pub async fn check_rate_limit(
    state: &AppState,
    email: &str,
    ip: Option<&str>,
) -> Result<(), ApiError> {
    let settings = &state.auth;
    let (by_account, by_address) =
        login::recent_failures(&state.db, email, ip, settings.failure_window).await?;
    if by_account >= settings.max_failures_per_account
        || by_address >= settings.max_failures_per_address
    {
        let minutes = settings.failure_window.as_secs().div_ceil(60);
        return Err(ApiError::TooManyRequests {
            message: format!("Too many failed sign-in attempts. Try again in {minutes} minutes."),
            retry_after: settings.failure_window.as_secs(),
        });
    }
    Ok(())
}

/// The user and password of a Basic credential.
fn decode_basic(encoded: &str) -> Option<(String, String)> {
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
