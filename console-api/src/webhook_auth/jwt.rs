//! `jwt`: the request's bearer token is a JWT signed by a key of the JWKS at
//! `jwksUri` (RS256/384/512, PS256/384/512, ES256, ES384), within its `exp`
//! and `nbf` (a minute of leeway). The key set is fetched once per five
//! minutes per URI, and again (at most every 30 s) when a token names a key
//! it does not hold, so a rotated key is found.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde::Deserialize;
use serde_json::Value;

use super::Refused;
use crate::auth::authorization;

const TTL: Duration = Duration::from_secs(5 * 60);
const REFETCH_AFTER: Duration = Duration::from_secs(30);
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_JWKS_BYTES: usize = 1024 * 1024;
const LEEWAY_SECONDS: i64 = 60;

#[derive(Debug, Clone, Deserialize)]
struct Jwk {
    kty: String,
    kid: Option<String>,
    alg: Option<String>,
    #[serde(rename = "use")]
    use_: Option<String>,
    n: Option<String>,
    e: Option<String>,
    crv: Option<String>,
    x: Option<String>,
    y: Option<String>,
}

#[derive(Deserialize)]
struct JwkSet {
    keys: Vec<Value>,
}

struct Fetched {
    keys: Arc<Vec<Jwk>>,
    at: Instant,
}

/// The key sets fetched, by URI.
#[derive(Default)]
pub struct Jwks {
    cache: Mutex<HashMap<String, Fetched>>,
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    kid: Option<String>,
}

fn refused(why: impl Into<String>) -> Refused {
    Refused::Credentials(why.into())
}

fn decode(part: &str, what: &str) -> Result<Vec<u8>, Refused> {
    URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .map_err(|_| refused(format!("jwt: the {what} is not base64url")))
}

impl Jwks {
    pub fn new() -> Self {
        Self::default()
    }

    /// The keys at `uri`: cached, unless `fresh` asks for a fetch (then
    /// only when the cached ones are older than [`REFETCH_AFTER`]).
    async fn keys(&self, uri: &str, fresh: bool) -> Result<Arc<Vec<Jwk>>, Refused> {
        let cached = {
            let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            cache
                .get(uri)
                .filter(|f| {
                    let age = f.at.elapsed();
                    age < TTL && !(fresh && age >= REFETCH_AFTER)
                })
                .map(|f| f.keys.clone())
        };
        if let Some(keys) = cached {
            return Ok(keys);
        }
        let keys = Arc::new(fetch(uri).await?);
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                uri.to_owned(),
                Fetched {
                    keys: keys.clone(),
                    at: Instant::now(),
                },
            );
        Ok(keys)
    }

    pub(super) async fn verify(&self, uri: &str, headers: &HeaderMap) -> Result<(), Refused> {
        let token = authorization(headers, "bearer")
            .ok_or_else(|| refused("jwt: no Bearer Authorization header"))?;
        let mut parts = token.split('.');
        let (Some(head), Some(body), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(refused("jwt: not a JWT (three dot-separated parts)"));
        };
        let header: Header = serde_json::from_slice(&decode(head, "header")?)
            .map_err(|_| refused("jwt: the header is not JSON with alg"))?;
        let claims: Value = serde_json::from_slice(&decode(body, "payload")?)
            .map_err(|_| refused("jwt: the payload is not JSON"))?;
        let signature = decode(sig, "signature")?;
        let message = &token.as_bytes()[..head.len() + 1 + body.len()];
        let verified = |keys: &[Jwk]| {
            keys.iter()
                .filter(|k| header.kid.is_none() || k.kid == header.kid)
                .any(|k| verifies(&header.alg, k, message, &signature))
        };
        if !verified(&self.keys(uri, false).await?) && !verified(&self.keys(uri, true).await?) {
            return Err(refused(format!(
                "jwt: no key of the JWKS verifies the {} signature",
                header.alg
            )));
        }
        check_times(&claims, chrono::Utc::now().timestamp())
    }
}

/// `exp` and `nbf`, when the token has them, hold at `now` (Unix seconds).
fn check_times(claims: &Value, now: i64) -> Result<(), Refused> {
    let time = |name: &str| claims.get(name).and_then(Value::as_f64);
    if let Some(exp) = time("exp")
        && (now - LEEWAY_SECONDS) as f64 >= exp
    {
        return Err(refused("jwt: the token expired"));
    }
    if let Some(nbf) = time("nbf")
        && ((now + LEEWAY_SECONDS) as f64) < nbf
    {
        return Err(refused("jwt: the token is not valid yet"));
    }
    Ok(())
}

/// Whether `key` verifies `signature` of `message` under `alg`.
fn verifies(alg: &str, key: &Jwk, message: &[u8], signature: &[u8]) -> bool {
    if key.alg.as_deref().is_some_and(|a| a != alg)
        || key.use_.as_deref().is_some_and(|u| u != "sig")
    {
        return false;
    }
    let bytes = |field: &Option<String>| {
        field
            .as_deref()
            .and_then(|f| URL_SAFE_NO_PAD.decode(f.trim_end_matches('=')).ok())
    };
    let rsa = |params: &'static signature::RsaParameters| {
        let (Some(n), Some(e)) = (bytes(&key.n), bytes(&key.e)) else {
            return false;
        };
        let strip = |v: &[u8]| {
            v.iter()
                .position(|b| *b != 0)
                .map_or(Vec::new(), |i| v[i..].to_vec())
        };
        key.kty == "RSA"
            && RsaPublicKeyComponents {
                n: strip(&n),
                e: strip(&e),
            }
            .verify(params, message, signature)
            .is_ok()
    };
    let ec = |curve: &str, params: &'static signature::EcdsaVerificationAlgorithm| {
        let (Some(x), Some(y)) = (bytes(&key.x), bytes(&key.y)) else {
            return false;
        };
        let point: Vec<u8> = [&[4u8][..], &x, &y].concat();
        key.kty == "EC"
            && key.crv.as_deref() == Some(curve)
            && UnparsedPublicKey::new(params, point)
                .verify(message, signature)
                .is_ok()
    };
    match alg {
        "RS256" => rsa(&signature::RSA_PKCS1_2048_8192_SHA256),
        "RS384" => rsa(&signature::RSA_PKCS1_2048_8192_SHA384),
        "RS512" => rsa(&signature::RSA_PKCS1_2048_8192_SHA512),
        "PS256" => rsa(&signature::RSA_PSS_2048_8192_SHA256),
        "PS384" => rsa(&signature::RSA_PSS_2048_8192_SHA384),
        "PS512" => rsa(&signature::RSA_PSS_2048_8192_SHA512),
        "ES256" => ec("P-256", &signature::ECDSA_P256_SHA256_FIXED),
        "ES384" => ec("P-384", &signature::ECDSA_P384_SHA384_FIXED),
        // `none` and the HMAC algorithms (a JWKS holds no shared secret) are refused.
        _ => false,
    }
}

/// The keys of the JWKS at `uri` (entries of kinds we do not read are left out).
async fn fetch(uri: &str) -> Result<Vec<Jwk>, Refused> {
    let setup =
        |why: String| Refused::Setup(format!("spec.on.webhook.authentication.jwt.jwksUri: {why}"));
    let tls = quarterdeck_connections::tls::client_config(false)
        .map_err(|e| setup(format!("TLS setup: {e}")))?;
    let client = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .timeout(FETCH_TIMEOUT)
        .build()
        .map_err(|e| setup(format!("HTTP client setup: {e}")))?;
    let mut response = client
        .get(uri)
        .send()
        .await
        .map_err(|e| setup(format!("fetching {uri}: {}", e.without_url())))?;
    if !response.status().is_success() {
        return Err(setup(format!("fetching {uri}: {}", response.status())));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| setup(format!("reading {uri}: {}", e.without_url())))?
    {
        if body.len() + chunk.len() > MAX_JWKS_BYTES {
            return Err(setup(format!("{uri} answered more than 1 MiB")));
        }
        body.extend_from_slice(&chunk);
    }
    let set: JwkSet =
        serde_json::from_slice(&body).map_err(|e| setup(format!("{uri} is not a JWKS: {e}")))?;
    Ok(set
        .keys
        .into_iter()
        .filter_map(|k| serde_json::from_value(k).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exp_and_nbf_hold_with_a_minute_of_leeway() {
        let now = 1_700_000_000;
        assert!(check_times(&json!({}), now).is_ok());
        assert!(check_times(&json!({"exp": now - 30}), now).is_ok());
        assert!(check_times(&json!({"exp": now - 61}), now).is_err());
        assert!(check_times(&json!({"nbf": now + 30}), now).is_ok());
        assert!(check_times(&json!({"nbf": now + 61}), now).is_err());
    }

    #[test]
    fn none_and_hmac_algorithms_are_refused() {
        let key: Jwk = serde_json::from_value(json!({"kty": "oct", "k": "c2VjcmV0"})).unwrap();
        assert!(!verifies("none", &key, b"a.b", b""));
        assert!(!verifies("HS256", &key, b"a.b", b"x"));
    }
}
