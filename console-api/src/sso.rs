//! The OpenID Connect relying party: discovery (cached), the authorization
//! request with PKCE (S256), the code exchange, ID token validation against
//! the provider's JWKS (`jsonwebtoken`) and userinfo (decisions section 100).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// How long a provider's discovery document and keys are reused.
const TTL: Duration = Duration::from_secs(10 * 60);
/// A token naming a key not held fetches the keys again, at most this often.
const REFETCH_AFTER: Duration = Duration::from_secs(30);
const TIMEOUT: Duration = Duration::from_secs(10);
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Clock skew allowed on `exp`, `iat` and `nbf`.
const LEEWAY_SECONDS: u64 = 60;

/// The signature algorithms accepted: public-key ones only (`none` and the
/// HMAC ones are refused, decision 100.4).
const ACCEPTED: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Why a sign-in through a provider failed: `code` goes to the console
/// (`/login?sso_error=`), the text to the log.
#[derive(Debug, thiserror::Error)]
pub enum SsoError {
    /// The provider could not be reached or answered something unusable.
    #[error("provider unavailable: {0}")]
    Unavailable(String),
    /// The ID token (or userinfo) failed validation.
    #[error("invalid ID token: {0}")]
    Token(String),
    /// The token endpoint refused the code (used, expired, or another
    /// request's PKCE verifier).
    #[error("the token endpoint refused the code: {0}")]
    CodeRefused(String),
}

impl SsoError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unavailable(_) => "provider_unavailable",
            Self::Token(_) => "invalid_token",
            Self::CodeRefused(_) => "code_refused",
        }
    }
}

/// What discovery tells about a provider.
#[derive(Debug, Clone, Deserialize)]
pub struct Discovered {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub jwks_uri: String,
    #[serde(default)]
    pub userinfo_endpoint: Option<String>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
}

struct Cached<T> {
    value: Arc<T>,
    at: Instant,
}

/// The discovery documents and key sets fetched, by issuer and JWKS URI.
#[derive(Default)]
pub struct Oidc {
    discovery: Mutex<HashMap<String, Cached<Discovered>>>,
    keys: Mutex<HashMap<String, Cached<Vec<Jwk>>>>,
}

/// The token endpoint's answer.
#[derive(Debug, Deserialize)]
pub struct Tokens {
    pub id_token: Option<String>,
    pub access_token: Option<String>,
}

fn unavailable(why: impl Into<String>) -> SsoError {
    SsoError::Unavailable(why.into())
}

fn invalid(why: impl Into<String>) -> SsoError {
    SsoError::Token(why.into())
}

fn client() -> Result<reqwest::Client, SsoError> {
    let tls = quarterdeck_connections::tls::client_config(false)
        .map_err(|e| unavailable(format!("TLS setup: {e}")))?;
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| unavailable(format!("HTTP client setup: {e}")))
}

/// The body of a response, at most [`MAX_BODY_BYTES`], as JSON.
async fn json<T: DeserializeOwned>(
    mut response: reqwest::Response,
    what: &str,
) -> Result<T, SsoError> {
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| unavailable(format!("reading {what}: {}", e.without_url())))?
    {
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(unavailable(format!("{what} is larger than 1 MiB")));
        }
        body.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body);
        let text: String = text.chars().take(300).collect();
        return Err(unavailable(format!("{what} answered {status}: {text}")));
    }
    serde_json::from_slice(&body).map_err(|e| unavailable(format!("{what} is not usable: {e}")))
}

async fn get_json<T: DeserializeOwned>(url: &str, what: &str) -> Result<T, SsoError> {
    let response = client()?
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| unavailable(format!("fetching {what}: {}", e.without_url())))?;
    json(response, what).await
}

/// The PKCE S256 challenge of a verifier.
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        verifier.as_bytes(),
    ))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

impl Oidc {
    pub fn new() -> Self {
        Self::default()
    }

    /// The provider's discovery document (`{issuer}/.well-known/openid-configuration`),
    /// cached; its `issuer` must be the one configured.
    pub async fn discover(&self, issuer: &str) -> Result<Arc<Discovered>, SsoError> {
        let cached = self
            .discovery
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(issuer)
            .filter(|c| c.at.elapsed() < TTL)
            .map(|c| c.value.clone());
        if let Some(found) = cached {
            return Ok(found);
        }
        let url = format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        );
        let found: Discovered = get_json(&url, "the discovery document").await?;
        if found.issuer != issuer {
            return Err(unavailable(format!(
                "the discovery document names the issuer {:?}, not {issuer:?}",
                found.issuer
            )));
        }
        if let Some(methods) = &found.code_challenge_methods_supported
            && !methods.iter().any(|m| m == "S256")
        {
            return Err(unavailable("the provider does not support PKCE with S256"));
        }
        let found = Arc::new(found);
        self.discovery
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                issuer.to_owned(),
                Cached {
                    value: found.clone(),
                    at: Instant::now(),
                },
            );
        Ok(found)
    }

    /// The keys at `uri`: cached, unless `fresh` asks for a fetch (then only
    /// when the cached ones are older than [`REFETCH_AFTER`]).
    async fn keys(&self, uri: &str, fresh: bool) -> Result<Arc<Vec<Jwk>>, SsoError> {
        let cached = self
            .keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(uri)
            .filter(|c| {
                let age = c.at.elapsed();
                age < TTL && !(fresh && age >= REFETCH_AFTER)
            })
            .map(|c| c.value.clone());
        if let Some(keys) = cached {
            return Ok(keys);
        }
        #[derive(Deserialize)]
        struct Set {
            keys: Vec<Value>,
        }
        let set: Set = get_json(uri, "the JWKS").await?;
        // Keys of kinds this build does not read are left out.
        let keys: Vec<Jwk> = set
            .keys
            .into_iter()
            .filter_map(|k| serde_json::from_value(k).ok())
            .collect();
        let keys = Arc::new(keys);
        self.keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                uri.to_owned(),
                Cached {
                    value: keys.clone(),
                    at: Instant::now(),
                },
            );
        Ok(keys)
    }

    /// Exchanges the code (with the PKCE verifier) at the token endpoint,
    /// authenticating with the client secret (Basic, or in the form when the
    /// provider supports only that).
    pub async fn exchange(
        &self,
        discovered: &Discovered,
        client_id: &str,
        client_secret: &str,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
    ) -> Result<Tokens, SsoError> {
        let post_only = discovered
            .token_endpoint_auth_methods_supported
            .as_ref()
            .is_some_and(|m| {
                !m.iter().any(|m| m == "client_secret_basic")
                    && m.iter().any(|m| m == "client_secret_post")
            });
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ];
        let mut request = client()?.post(&discovered.token_endpoint);
        if post_only {
            form.push(("client_id", client_id));
            form.push(("client_secret", client_secret));
        } else {
            // RFC 6749 2.3.1: both are form-urlencoded before Basic.
            let encode =
                |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            request = request.basic_auth(encode(client_id), Some(encode(client_secret)));
        }
        let body = serde_urlencoded::to_string(&form)
            .map_err(|e| unavailable(format!("encoding the token request: {e}")))?;
        let response = request
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| unavailable(format!("the token endpoint: {}", e.without_url())))?;
        if response.status() == reqwest::StatusCode::BAD_REQUEST {
            let answer: Result<Value, _> = json(response, "the token endpoint").await;
            let why = match answer {
                Err(SsoError::Unavailable(why)) => why,
                _ => "400".into(),
            };
            return Err(SsoError::CodeRefused(why));
        }
        json(response, "the token endpoint").await
    }

    /// Validates an ID token: a signature by a key of the provider's JWKS
    /// with an accepted algorithm (the key's own `alg` when it names one),
    /// `iss`, `aud` (and `azp` with several audiences), `exp`, `iat`, `nbf`
    /// and `nonce`. Answers its claims.
    pub async fn validate(
        &self,
        discovered: &Discovered,
        issuer: &str,
        client_id: &str,
        token: &str,
        nonce: &str,
    ) -> Result<Map<String, Value>, SsoError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| invalid(format!("the header does not parse: {e}")))?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(invalid(format!(
                "the algorithm {:?} is not accepted (public-key algorithms only)",
                header.alg
            )));
        }
        let pick = |keys: &[Jwk]| -> Option<Jwk> {
            keys.iter()
                .filter(|k| header.kid.is_none() || k.common.key_id == header.kid)
                .find(|k| {
                    // The key's own `alg`, when it names one, must be the token's.
                    k.common.key_algorithm.is_none_or(|a| {
                        serde_json::to_value(a).ok() == serde_json::to_value(header.alg).ok()
                    }) && DecodingKey::from_jwk(k)
                        .is_ok_and(|key| key.family() == header.alg.family())
                })
                .cloned()
        };
        let key = match pick(&self.keys(&discovered.jwks_uri, false).await?) {
            Some(key) => key,
            None => pick(&self.keys(&discovered.jwks_uri, true).await?).ok_or_else(|| {
                invalid(format!(
                    "no key of the provider's JWKS fits kid {:?} and alg {:?}",
                    header.kid, header.alg
                ))
            })?,
        };
        let key = DecodingKey::from_jwk(&key).map_err(|e| invalid(format!("the key: {e}")))?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        validation.set_issuer(&[issuer]);
        validation.set_audience(&[client_id]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|e| invalid(format!("{e}")))?;
        let claims = data.claims;
        let iat = claims
            .get("iat")
            .and_then(Value::as_f64)
            .ok_or_else(|| invalid("no iat"))?;
        if iat > (now() + LEEWAY_SECONDS) as f64 {
            return Err(invalid("iat is in the future"));
        }
        if let Some(Value::Array(audiences)) = claims.get("aud")
            && audiences.len() > 1
            && claims.get("azp").and_then(Value::as_str) != Some(client_id)
        {
            return Err(invalid("several audiences and azp is not this client"));
        }
        if claims.get("nonce").and_then(Value::as_str) != Some(nonce) {
            return Err(invalid("the nonce is not the one sent"));
        }
        if claims
            .get("sub")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(invalid("no sub"));
        }
        Ok(claims)
    }

    /// The userinfo claims for `access_token`; their `sub` must be the ID token's.
    pub async fn userinfo(
        &self,
        discovered: &Discovered,
        access_token: &str,
        subject: &str,
    ) -> Result<Map<String, Value>, SsoError> {
        let Some(endpoint) = &discovered.userinfo_endpoint else {
            return Ok(Map::new());
        };
        let response = client()?
            .get(endpoint)
            .bearer_auth(access_token)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| unavailable(format!("the userinfo endpoint: {}", e.without_url())))?;
        let claims: Map<String, Value> = json(response, "the userinfo endpoint").await?;
        if claims.get("sub").and_then(Value::as_str) != Some(subject) {
            return Err(invalid("the userinfo sub is not the ID token's"));
        }
        Ok(claims)
    }
}

/// The authorization request's URL.
pub fn authorization_url(
    discovered: &Discovered,
    client_id: &str,
    scopes: &[String],
    redirect_uri: &str,
    state: &str,
    nonce: &str,
    verifier: &str,
) -> Result<String, SsoError> {
    let mut url = url::Url::parse(&discovered.authorization_endpoint)
        .map_err(|e| unavailable(format!("the authorization endpoint: {e}")))?;
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", client_id)
        .append_pair("redirect_uri", redirect_uri)
        .append_pair("scope", &scopes.join(" "))
        .append_pair("state", state)
        .append_pair("nonce", nonce)
        .append_pair("code_challenge", &pkce_challenge(verifier))
        .append_pair("code_challenge_method", "S256");
    Ok(url.into())
}

/// A claim as text.
pub fn text<'a>(claims: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    claims
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// `email_verified`, as a boolean or (some providers) the text "true".
pub fn email_verified(claims: &Map<String, Value>) -> bool {
    match claims.get("email_verified") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// The person's name: `name`, else given and family names, else
/// `preferred_username`, else the email.
pub fn name(claims: &Map<String, Value>) -> Option<String> {
    if let Some(name) = text(claims, "name") {
        return Some(name.to_owned());
    }
    let parts: Vec<&str> = ["given_name", "family_name"]
        .iter()
        .filter_map(|c| text(claims, c))
        .collect();
    if !parts.is_empty() {
        return Some(parts.join(" "));
    }
    text(claims, "preferred_username")
        .or_else(|| text(claims, "email"))
        .map(str::to_owned)
}

/// The groups in the claim `claim` (a list of text, or one text with
/// groups separated by commas or spaces); a dotted name reaches into objects
/// (`realm_access.roles`).
pub fn groups(claims: &Map<String, Value>, claim: &str) -> Vec<String> {
    let mut value = claims.get(claim);
    if value.is_none() {
        let mut parts = claim.split('.');
        value = parts.next().and_then(|first| claims.get(first));
        for part in parts {
            value = value.and_then(|v| v.get(part));
        }
    }
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(s)) => s
            .split([',', ' '])
            .filter(|g| !g.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// RFC 7636 appendix B.
    #[test]
    fn pkce_s256_vector() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn claims_to_name_and_groups() {
        let claims = json!({"given_name": "Ada", "family_name": "Lovelace",
            "groups": ["a", "b"], "realm_access": {"roles": ["admins"]}, "csv": "x, y",
            "email_verified": "true"});
        let claims = claims.as_object().unwrap();
        assert_eq!(name(claims).as_deref(), Some("Ada Lovelace"));
        assert_eq!(groups(claims, "groups"), ["a", "b"]);
        assert_eq!(groups(claims, "realm_access.roles"), ["admins"]);
        assert_eq!(groups(claims, "csv"), ["x", "y"]);
        assert!(groups(claims, "missing").is_empty());
        assert!(email_verified(claims));
    }
}
