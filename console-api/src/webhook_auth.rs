//! How a playbook webhook authenticates its caller, by the playbook's
//! `on.webhook.authentication`: `basic` (the Authorization header's user and
//! password), `github` (`X-Hub-Signature-256`, HMAC-SHA256 of the body),
//! `svix` (Svix's, or Standard Webhooks', id, timestamp and signatures) and
//! `jwt` (a bearer token signed by a key of a JWKS, [`jwt`]). Every kind set
//! must pass. Secrets are compared in constant time (ring's HMAC
//! verification).

mod jwt;

use std::time::Duration;

use axum::http::HeaderMap;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use quarterdeck_checks::KubeLookup;
use quarterdeck_crds::common::EnvVar;
use quarterdeck_crds::playbook::{WebhookAuth, WebhookAuthSvix};
use ring::hmac;
use ring::rand::SystemRandom;

use crate::auth::{authorization, decode_basic};

pub use jwt::Jwks;

/// The headers that carry credentials: never stored with the run.
pub(crate) const CREDENTIAL_HEADERS: [&str; 8] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-hub-signature",
    "x-hub-signature-256",
    "svix-signature",
    "webhook-signature",
    "x-api-key",
];

/// The clock skew a Svix timestamp may have when `verifyTimestamp` is unset.
const SVIX_SKEW: Duration = Duration::from_secs(5 * 60);

/// Why a request was not let in.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The caller's credentials are missing or wrong (the reason is logged,
    /// never answered).
    #[error("{0}")]
    Credentials(String),
    /// The playbook's own credentials cannot be read or are malformed.
    #[error("{0}")]
    Setup(String),
}

/// What authenticating needs besides the request.
pub struct Verifier<'a> {
    pub cluster: Option<KubeLookup>,
    pub namespace: &'a str,
    pub jwks: &'a Jwks,
}

impl Verifier<'_> {
    async fn value(&self, var: &EnvVar, field: &str) -> Result<String, Refused> {
        quarterdeck_checks::env_value(self.cluster.as_ref(), self.namespace, var)
            .await
            .map_err(|e| Refused::Setup(format!("spec.on.webhook.authentication.{field}: {e}")))
    }

    /// Passes when every kind of `auth` passes.
    pub async fn verify(
        &self,
        auth: &WebhookAuth,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Result<(), Refused> {
        if let Some(basic) = &auth.basic {
            let username = self.value(&basic.username, "basic.username").await?;
            let password = self.value(&basic.password, "basic.password").await?;
            verify_basic(headers, &username, &password)?;
        }
        if let Some(github) = &auth.github {
            let token = self.value(&github.token, "github.token").await?;
            verify_github(headers, &token, body)?;
        }
        if let Some(svix) = &auth.svix {
            let secret = self.value(&svix.secret, "svix.secret").await?;
            let skew = svix_skew(svix)?;
            verify_svix(headers, &secret, skew, body, chrono::Utc::now().timestamp())?;
        }
        if let Some(jwt) = &auth.jwt {
            self.jwks.verify(&jwt.jwks_uri, headers).await?;
        }
        Ok(())
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn refused(why: impl Into<String>) -> Refused {
    Refused::Credentials(why.into())
}

/// Whether `given` is `expected`, in time that does not depend on where they differ.
fn same(given: &[u8], expected: &[u8]) -> bool {
    // Each side's HMAC under a key of this call: comparing tags in constant
    // time compares the texts, whatever their lengths.
    let Ok(key) = hmac::Key::generate(hmac::HMAC_SHA256, &SystemRandom::new()) else {
        return false;
    };
    let tag = hmac::sign(&key, expected);
    hmac::verify(&key, given, tag.as_ref()).is_ok()
}

fn verify_basic(headers: &HeaderMap, username: &str, password: &str) -> Result<(), Refused> {
    let encoded = authorization(headers, "basic")
        .ok_or_else(|| refused("basic: no Basic Authorization header"))?;
    let (user, pass) = decode_basic(encoded)
        .ok_or_else(|| refused("basic: the credentials are not base64 of user:password"))?;
    // Both compared, so the time does not tell which was wrong.
    let user_ok = same(user.as_bytes(), username.as_bytes());
    let pass_ok = same(pass.as_bytes(), password.as_bytes());
    if user_ok && pass_ok {
        Ok(())
    } else {
        Err(refused("basic: wrong username or password"))
    }
}

fn verify_github(headers: &HeaderMap, token: &str, body: &[u8]) -> Result<(), Refused> {
    let signature = header(headers, "x-hub-signature-256")
        .and_then(|v| v.strip_prefix("sha256="))
        .ok_or_else(|| refused("github: no X-Hub-Signature-256 header"))?;
    let signature =
        hex(signature.trim()).ok_or_else(|| refused("github: the signature is not hex"))?;
    let key = hmac::Key::new(hmac::HMAC_SHA256, token.as_bytes());
    hmac::verify(&key, body, &signature).map_err(|_| refused("github: wrong signature"))
}

fn hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn svix_skew(svix: &WebhookAuthSvix) -> Result<Duration, Refused> {
    match svix.verify_timestamp.as_deref().map(str::trim) {
        None | Some("") => Ok(SVIX_SKEW),
        Some(text) => humantime::parse_duration(text).map_err(|e| {
            Refused::Setup(format!(
                "spec.on.webhook.authentication.svix.verifyTimestamp: {text:?}: {e}"
            ))
        }),
    }
}

/// Svix's scheme (also Standard Webhooks', with `webhook-` headers): the
/// base64 HMAC-SHA256 of `id.timestamp.body` under the secret (base64 after
/// `whsec_`) is one of the space-separated `v1,<signature>` entries, and
/// the timestamp is within `skew` of `now` (Unix seconds).
fn verify_svix(
    headers: &HeaderMap,
    secret: &str,
    skew: Duration,
    body: &[u8],
    now: i64,
) -> Result<(), Refused> {
    let pick = |name: &str| {
        header(headers, &format!("svix-{name}"))
            .or_else(|| header(headers, &format!("webhook-{name}")))
    };
    let (Some(id), Some(timestamp), Some(signatures)) =
        (pick("id"), pick("timestamp"), pick("signature"))
    else {
        return Err(refused(
            "svix: the svix-id, svix-timestamp and svix-signature headers are required",
        ));
    };
    let sent: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| refused("svix: the timestamp is not a number"))?;
    if sent.abs_diff(now) > skew.as_secs() {
        return Err(refused("svix: the timestamp is too far from now"));
    }
    let key = STANDARD
        .decode(
            secret
                .trim()
                .strip_prefix("whsec_")
                .unwrap_or(secret.trim()),
        )
        .map_err(|_| {
            Refused::Setup(
                "spec.on.webhook.authentication.svix.secret: not base64 (whsec_...)".into(),
            )
        })?;
    let key = hmac::Key::new(hmac::HMAC_SHA256, &key);
    let mut signed = Vec::with_capacity(id.len() + timestamp.len() + body.len() + 2);
    signed.extend_from_slice(id.as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(timestamp.trim().as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(body);
    let matched = signatures
        .split_whitespace()
        .filter_map(|entry| entry.strip_prefix("v1,"))
        .filter_map(|b64| STANDARD.decode(b64).ok())
        .any(|signature| hmac::verify(&key, &signed, &signature).is_ok());
    if matched {
        Ok(())
    } else {
        Err(refused("svix: no signature matches"))
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn svix_checks_each_signature_and_the_timestamp() {
        // Svix's documented example: secret, id, timestamp, body, signature.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        let signed = headers(&[
            ("svix-id", "msg_p5jXN8AQM9LWM0D4loKWxJek"),
            ("svix-timestamp", "1614265330"),
            (
                "svix-signature",
                "v1,bad v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
            ),
        ]);
        let five = Duration::from_secs(300);
        assert!(verify_svix(&signed, secret, five, body, 1614265330 + 299).is_ok());
        assert!(verify_svix(&signed, secret, five, body, 1614265330 + 301).is_err());
        assert!(verify_svix(&signed, secret, five, b"{}", 1614265330).is_err());
    }

    #[test]
    fn github_signature_is_the_hmac_of_the_body() {
        // GitHub's documented example.
        let ok = headers(&[(
            "x-hub-signature-256",
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
        )]);
        assert!(verify_github(&ok, "It's a Secret to Everybody", b"Hello, World!").is_ok());
        assert!(verify_github(&ok, "another secret", b"Hello, World!").is_err());
        assert!(verify_github(&HeaderMap::new(), "x", b"").is_err());
    }

    #[test]
    fn basic_needs_both_user_and_password() {
        let sent = |user_pass: &str| {
            headers(&[(
                "authorization",
                &format!("Basic {}", STANDARD.encode(user_pass)),
            )])
        };
        assert!(verify_basic(&sent("hook:s3cret"), "hook", "s3cret").is_ok());
        assert!(verify_basic(&sent("hook:s3cre"), "hook", "s3cret").is_err());
        assert!(verify_basic(&sent("hoo:s3cret"), "hook", "s3cret").is_err());
        assert!(verify_basic(&sent("hook"), "hook", "").is_err());
        assert!(verify_basic(&HeaderMap::new(), "hook", "s3cret").is_err());
    }
}
