//! Support for tests that run more than one of Quarterdeck's parts together: the real API on
//! a loopback port over a test database, people to sign in as, and seeded checks.

use quarterdeck_api::{AppState, AuthSettings, serve_on};
use quarterdeck_store::testing;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// The workspace builds reqwest without a default TLS provider (the checks
/// crate brings its own); the test clients use ring, installed at load.
#[ctor::ctor]
fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The API serving on a loopback port.
pub struct Api {
    pub url: String,
    pub pool: PgPool,
    public_url: String,
}

impl Api {
    pub async fn start(pool: PgPool) -> Self {
        let state = AppState::new(pool.clone(), AuthSettings::default());
        Self::serve(pool, state).await
    }

    /// Serves `state`; `pool` is the test's own connection to the same database.
    pub async fn serve(pool: PgPool, state: AppState) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let public_url = state.auth.public_url.clone();
        tokio::spawn(serve_on(listener, state, std::future::pending()));
        Self {
            url,
            pool,
            public_url,
        }
    }

    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// A person with these roles and password.
    pub async fn person(&self, email: &str, roles: &[&str], secret: &str) -> Uuid {
        let person = testing::Person {
            email: email.into(),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            password: secret.into(),
        };
        testing::person(&self.pool, &person).await.unwrap()
    }

    /// A browser client signed in as `email`, holding the session cookie.
    pub async fn signed_in(&self, email: &str, secret: &str) -> Client {
        let (client, res) = sign_in(&self.url, &self.public_url, email, secret).await;
        assert_eq!(res.unwrap().status(), StatusCode::OK, "sign-in of {email}");
        client
    }

    /// A canary with one http check `<canary>-home` that is not due for a year; its id.
    pub async fn check(&self, canary: &str) -> Uuid {
        let canary: testing::Canary = serde_json::from_value(json!({
            "name": canary,
            "spec": {"schedule": "@every 1h"},
            "checks": [{"name": format!("{canary}-home"), "type": "http"}],
        }))
        .unwrap();
        testing::canary(&self.pool, &canary).await.unwrap().checks[0]
    }
}

/// A sign-in through the browser flow of the API at `url` whose public URL
/// (the origin its browser requests carry) is `public_url`: the client,
/// holding the session cookie once signed in, and the flow's last answer.
pub async fn sign_in(
    url: &str,
    public_url: &str,
    email: &str,
    secret: &str,
) -> (Client, Result<reqwest::Response, reqwest::Error>) {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", public_url.trim_end_matches('/').parse().unwrap());
    headers.insert("x-requested-with", "quarterdeck".parse().unwrap());
    let client = Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .unwrap();
    let flow = match client
        .get(format!("{url}/api/auth/login/browser"))
        .send()
        .await
    {
        Ok(res) if res.status() == StatusCode::OK => res.json::<Value>().await.unwrap_or_default(),
        answer => return (client, answer),
    };
    let csrf = flow["ui"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["attributes"]["name"] == "csrf_token")
        .and_then(|n| n["attributes"]["value"].as_str())
        .unwrap_or_default()
        .to_owned();
    let res = client
        .post(format!(
            "{url}/api/auth/login?flow={}",
            flow["id"].as_str().unwrap_or_default()
        ))
        .json(&json!({"method": "password", "identifier": email, "password": secret, "csrf_token": csrf}))
        .send()
        .await;
    (client, res)
}
