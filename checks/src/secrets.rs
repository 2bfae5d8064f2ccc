//! Resolving a check's credentials, and keeping them out of what it reports.

use std::sync::{Arc, Mutex, PoisonError};

use quarterdeck_connections::resolve::Cause;
use quarterdeck_crds::canary::ConnectionRef;
use quarterdeck_crds::common::EnvVar;
use serde_json::Value;
use url::Url;

use crate::error::CheckError;
use crate::lookup::{Connection, Lookup, LookupError};

/// The secret values resolved during one run; replaced by `***` in everything reported.
#[derive(Clone, Default)]
pub(crate) struct Scrubber(Arc<Mutex<Vec<String>>>);

pub(crate) const MASK: &str = "***";

/// Secrets shorter than this are masked only where they stand alone (not inside
/// a word), so a password like `p` does not turn every "postgres" into "***ostgres".
const SHORT: usize = 4;

impl Scrubber {
    pub(crate) fn add(&self, value: &str) {
        if value.is_empty() || value == MASK {
            return;
        }
        let mut values = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !values.iter().any(|v| v == value) {
            values.push(value.to_owned());
            // Longest first, so a secret containing another is masked whole.
            values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
    }

    /// Registers the password of a URL in both its raw and its percent-encoded form.
    pub(crate) fn add_url_password(&self, url: &Url) {
        if let Some(encoded) = url.password() {
            self.add(encoded);
            if let Ok(decoded) = percent_encoding::percent_decode_str(encoded).decode_utf8() {
                self.add(&decoded);
            }
        }
    }

    /// No secret was resolved: there is nothing to scrub.
    pub(crate) fn is_empty(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }

    pub(crate) fn scrub(&self, text: &str) -> String {
        let values = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut text = text.to_owned();
        for value in values.iter() {
            if !text.contains(value.as_str()) {
                continue;
            }
            text = if value.chars().count() < SHORT {
                replace_standalone(&text, value)
            } else {
                text.replace(value.as_str(), MASK)
            };
        }
        text
    }

    pub(crate) fn scrub_json(&self, value: Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.scrub(&s)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.scrub_json(v)).collect())
            }
            Value::Object(fields) => Value::Object(
                fields
                    .into_iter()
                    .map(|(k, v)| (self.scrub(&k), self.scrub_json(v)))
                    .collect(),
            ),
            other => other,
        }
    }
}

fn replace_standalone(text: &str, value: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(value) {
        let before = rest[..at]
            .chars()
            .next_back()
            .or_else(|| out.chars().next_back());
        let after = rest[at + value.len()..].chars().next();
        out.push_str(&rest[..at]);
        if word(before) || word(after) {
            out.push_str(value);
        } else {
            out.push_str(MASK);
        }
        rest = &rest[at + value.len()..];
    }
    out.push_str(rest);
    out
}

/// Where to connect and as whom, after `connection`, `url`, `username` and `password` are resolved.
#[derive(Default)]
pub(crate) struct Endpoint {
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
}

/// Resolves credentials for one run, recording the secret ones in its [`Scrubber`].
#[derive(Clone)]
pub(crate) struct Resolver {
    lookup: Arc<dyn Lookup>,
    namespace: String,
    pub scrubber: Scrubber,
    /// A named connection's credentials go only to the connection's own endpoint.
    pin_connections: bool,
}

impl Resolver {
    pub(crate) fn new(
        lookup: Arc<dyn Lookup>,
        namespace: String,
        scrubber: Scrubber,
        pin_connections: bool,
    ) -> Self {
        Self {
            lookup,
            namespace,
            scrubber,
            pin_connections,
        }
    }

    /// A value that is secret only when it comes from a Secret, a service account token or Helm values.
    pub(crate) async fn value(&self, var: &EnvVar) -> Result<String, CheckError> {
        let value = self.resolve(var).await?;
        let from_secret = var.value_from.as_ref().is_some_and(|f| {
            f.secret_key_ref.is_some() || f.service_account.is_some() || f.helm_ref.is_some()
        });
        if from_secret {
            self.scrubber.add(&value);
        }
        Ok(value)
    }

    /// A check's `env` entries as (name, value) pairs, each resolved as [`Resolver::value`].
    pub(crate) async fn env_values(
        &self,
        vars: Option<&[EnvVar]>,
    ) -> Result<Vec<(String, String)>, CheckError> {
        let mut values = Vec::new();
        for var in vars.unwrap_or_default() {
            let name = var
                .name
                .clone()
                .filter(|n| !n.is_empty())
                .ok_or_else(|| CheckError::new("every env entry needs a name"))?;
            values.push((name, self.value(var).await?));
        }
        Ok(values)
    }

    /// A value that is always secret (passwords, tokens), even when written inline.
    pub(crate) async fn secret(&self, var: &EnvVar) -> Result<String, CheckError> {
        let value = self.resolve(var).await?;
        self.scrubber.add(&value);
        Ok(value)
    }

    /// The value of `var`; empty when it names a Secret or ConfigMap key marked
    /// `optional` and the object or the key does not exist.
    async fn resolve(&self, var: &EnvVar) -> Result<String, CheckError> {
        match self.lookup.env_var(&self.namespace, var).await {
            Err(LookupError::Read(Cause::NotFound { .. } | Cause::MissingKey { .. }))
                if optional(var) =>
            {
                Ok(String::new())
            }
            found => Ok(found?),
        }
    }

    async fn named_connection(&self, reference: &str) -> Result<Connection, CheckError> {
        let name = reference
            .strip_prefix("connection://")
            .unwrap_or(reference)
            .trim_matches('/');
        let (namespace, name) = match name.split_once('/') {
            Some((namespace, name)) => (namespace, name),
            None => (self.namespace.as_str(), name),
        };
        if name.is_empty() {
            return Err(CheckError::new(format!(
                "connection {reference:?} names no connection"
            )));
        }
        let connection = self.lookup.connection(namespace, name).await?;
        if let Some(password) = &connection.password {
            self.scrubber.add(password);
        }
        if let Some(url) = connection.url.as_deref().and_then(|u| Url::parse(u).ok()) {
            self.scrubber.add_url_password(&url);
        }
        Ok(connection)
    }

    /// Merges a named connection with the check's own fields; the check's fields
    /// win. `alias` is the kind's deprecated URL field, used when neither the
    /// check nor the connection has a URL. With pinned connections, a check
    /// that names a connection cannot send it anywhere but the connection's own endpoint.
    pub(crate) async fn endpoint(
        &self,
        spec: &ConnectionRef,
        alias: Option<&str>,
    ) -> Result<Endpoint, CheckError> {
        let mut endpoint = Endpoint::default();
        let mut named = None;
        if let Some(reference) = spec.connection.as_deref().filter(|c| !c.is_empty()) {
            let connection = self.named_connection(reference).await?;
            named = Some((reference, connection.url.clone()));
            endpoint.url = connection.url;
            endpoint.username = connection.username;
            endpoint.password = connection.password;
        }
        let nonempty = |u: &&str| !u.trim().is_empty();
        let own_url = spec.url.as_deref().filter(nonempty);
        if let Some(url) = own_url {
            endpoint.url = Some(url.to_owned());
            if let Ok(parsed) = Url::parse(url) {
                self.scrubber.add_url_password(&parsed);
            }
        } else if endpoint.url.is_none() {
            endpoint.url = alias.filter(nonempty).map(|a| a.trim().to_owned());
        }
        if let (Some((reference, connection_url)), Some(url), true) =
            (named, endpoint.url.as_deref(), self.pin_connections)
            && !same_endpoint(connection_url.as_deref(), url)
        {
            return Err(CheckError::new(format!(
                "connection {reference:?} is used with another endpoint: its credentials go only to its own endpoint unless an admin saves the check"
            )));
        }
        if let Some(var) = &spec.username {
            endpoint.username = Some(self.value(var).await?);
        }
        if let Some(var) = &spec.password {
            endpoint.password = Some(self.secret(var).await?);
        }
        Ok(endpoint)
    }
}

fn optional(var: &EnvVar) -> bool {
    var.value_from
        .as_ref()
        .and_then(|from| {
            from.secret_key_ref
                .as_ref()
                .or(from.config_map_key_ref.as_ref())
        })
        .and_then(|key| key.optional)
        == Some(true)
}

/// Whether `url` is the connection's own endpoint: the same scheme, host and
/// port, or (for addresses that are not URLs) the same text.
pub fn same_endpoint(connection: Option<&str>, url: &str) -> bool {
    let Some(connection) = connection else {
        return false;
    };
    let origin = |text: &str| {
        Url::parse(text.trim()).ok().and_then(|u| {
            let host = u.host_str()?.to_owned();
            Some((u.scheme().to_owned(), host, u.port_or_known_default()))
        })
    };
    match (origin(connection), origin(url)) {
        (Some(a), Some(b)) => a == b,
        _ => connection.trim() == url.trim(),
    }
}

impl Endpoint {
    /// The URL with `$(username)` / `$(password)` filled in, or the credentials set as
    /// its user info when it has none. Registers the password as it appears in the URL.
    pub(crate) fn database_url(&self, scrubber: &Scrubber) -> Result<Url, CheckError> {
        let raw = self
            .url
            .as_deref()
            .ok_or_else(|| CheckError::new("no url or connection given"))?;
        let templated = raw.contains("$(username)") || raw.contains("$(password)");
        let text = raw
            .replace(
                "$(username)",
                &encode_userinfo(self.username.as_deref().unwrap_or("")),
            )
            .replace(
                "$(password)",
                &encode_userinfo(self.password.as_deref().unwrap_or("")),
            );
        let mut url = Url::parse(&text)
            .map_err(|e| CheckError::new(format!("invalid url {:?}: {e}", scrubber.scrub(raw))))?;
        if !templated {
            if let Some(user) = self
                .username
                .as_deref()
                .filter(|_| url.username().is_empty())
            {
                url.set_username(user)
                    .map_err(|()| CheckError::new("the url cannot carry a username"))?;
            }
            if let Some(password) = self
                .password
                .as_deref()
                .filter(|_| url.password().is_none())
            {
                url.set_password(Some(password))
                    .map_err(|()| CheckError::new("the url cannot carry a password"))?;
            }
        }
        scrubber.add_url_password(&url);
        Ok(url)
    }
}

fn encode_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scrubs_longest_first_everywhere() {
        let s = Scrubber::default();
        s.add("abcd");
        s.add("abcdefgh");
        s.add("");
        assert_eq!(s.scrub("x abcdefgh y abcd"), "x *** y ***");
        let v = s.scrub_json(json!({"k": ["abcd", 1, {"abcdefgh": "zabcd"}]}));
        assert_eq!(v, json!({"k": ["***", 1, {"***": "z***"}]}));
    }

    #[test]
    fn short_secrets_are_masked_only_where_they_stand_alone() {
        let s = Scrubber::default();
        s.add("p");
        assert_eq!(
            s.scrub("connecting to postgres://u:p@db failed: p"),
            "connecting to postgres://u:***@db failed: ***"
        );
    }

    #[test]
    fn url_passwords_are_recorded_raw_and_encoded() {
        let s = Scrubber::default();
        let endpoint = Endpoint {
            url: Some("postgres://$(username):$(password)@db:5432/app".into()),
            username: Some("app".into()),
            password: Some("p@ss word".into()),
        };
        let url = endpoint.database_url(&s).unwrap();
        assert_eq!(url.password(), Some("p%40ss%20word"));
        assert_eq!(s.scrub(url.as_str()), "postgres://app:***@db:5432/app");
        assert_eq!(s.scrub("bad p@ss word"), "bad ***");
    }

    #[test]
    fn credentials_are_set_when_the_url_has_none() {
        let s = Scrubber::default();
        let endpoint = Endpoint {
            url: Some("mysql://db:3306/app".into()),
            username: Some("root".into()),
            password: Some("secret".into()),
        };
        let url = endpoint.database_url(&s).unwrap();
        assert_eq!(url.as_str(), "mysql://root:secret@db:3306/app");
    }
}
