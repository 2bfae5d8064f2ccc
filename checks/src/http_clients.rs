//! HTTP clients shared between runs.
//!
//! Building a reqwest client (its rustls configuration and certificate
//! verifier, whose platform roots load on first use, and its connector)
//! costs far more CPU than the request it sends, so runs with the same
//! settings share one client. Every setting that shapes a client is part of
//! its key, so one check's TLS trust or redirect policy never reaches
//! another's requests. Shared clients keep no idle connections: each run
//! connects anew, as it did with a client of its own, so its latency,
//! certificate expiry and name resolution are measured afresh every run.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use reqwest::{Client, redirect};

use crate::error::CheckError;
use crate::tls::TlsOptions;

/// Distinct settings kept at most; past that the cache starts over, so specs
/// that change their CA often cannot grow it without bound.
const MAX_CLIENTS: usize = 256;

/// Everything a client is built from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ClientKey {
    insecure: bool,
    ca: Option<String>,
    /// `None`: reqwest's default of 10; `Some(0)`: a 3xx is the answer.
    max_redirects: Option<usize>,
    tls_info: bool,
}

impl ClientKey {
    pub(crate) fn new(tls: &TlsOptions, max_redirects: Option<i32>, tls_info: bool) -> Self {
        Self {
            insecure: tls.insecure,
            ca: tls.ca.clone(),
            max_redirects: max_redirects
                .map(|limit| usize::try_from(limit.max(0)).unwrap_or(usize::MAX)),
            tls_info,
        }
    }

    fn build(&self) -> Result<Client, CheckError> {
        let policy = match self.max_redirects {
            None => redirect::Policy::default(),
            Some(0) => redirect::Policy::none(),
            Some(limit) => redirect::Policy::limited(limit),
        };
        let tls = TlsOptions {
            insecure: self.insecure,
            ca: self.ca.clone(),
        };
        Client::builder()
            .tls_backend_preconfigured(tls.client_config(&[b"http/1.1"])?)
            .tls_info(self.tls_info)
            .redirect(policy)
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| CheckError::from_err("http client", &e))
    }
}

/// The shared client for `key`, built on first use. Settings that fail to
/// build a client are not kept: each run reports the error.
pub(crate) fn client(key: ClientKey) -> Result<Client, CheckError> {
    static CLIENTS: OnceLock<Mutex<HashMap<ClientKey, Client>>> = OnceLock::new();
    let clients = CLIENTS.get_or_init(Mutex::default);
    if let Some(client) = clients
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return Ok(client.clone());
    }
    // Built outside the lock: two runs may build the same client at once,
    // and the second one's is kept; both work.
    let client = key.build()?;
    let mut clients = clients.lock().unwrap_or_else(PoisonError::into_inner);
    if clients.len() >= MAX_CLIENTS {
        clients.clear();
    }
    clients.insert(key, client.clone());
    Ok(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(insecure: bool, ca: Option<&str>, redirects: Option<i32>, info: bool) -> ClientKey {
        let tls = TlsOptions {
            insecure,
            ca: ca.map(str::to_owned),
        };
        ClientKey::new(&tls, redirects, info)
    }

    #[test]
    fn every_setting_is_part_of_the_key() {
        let base = key(false, None, None, true);
        assert_eq!(base, key(false, None, None, true));
        for other in [
            key(true, None, None, true),
            key(false, Some("pem"), None, true),
            key(false, None, Some(3), true),
            key(false, None, None, false),
        ] {
            assert_ne!(base, other);
        }
        // Zero and negative limits both mean no redirects, as before.
        assert_eq!(
            key(false, None, Some(0), true),
            key(false, None, Some(-2), true)
        );
        assert_ne!(key(false, None, Some(0), true), base);
    }

    #[tokio::test]
    async fn settings_that_fail_are_reported_every_time() {
        assert!(client(key(true, None, Some(7), false)).is_ok());
        let bad = key(false, Some("not a certificate"), None, false);
        assert!(client(bad.clone()).is_err());
        assert!(client(bad).is_err());
    }
}
