//! Shared harness: the real application on a loopback port over a fresh
//! database, and helpers to create people and sign in as they would.
#![allow(dead_code)]

pub mod soft_key;
pub mod tool;

use quarterdeck_api::{AppState, AuthSettings, serve_on};
use quarterdeck_store::testing;
pub use quarterdeck_store::testing::Subject;
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

/// The usual two callers of a test: see [`Api::admin_and_guest`].
pub struct AdminAndGuest {
    pub admin: Client,
    pub guest: Client,
    pub guest_id: Uuid,
}

pub struct Api {
    pub url: String,
    pub pool: PgPool,
    /// The public URL the server was configured with: its console pages'
    /// origin, which cookie-authenticated writes must come from.
    pub public_url: String,
}

impl Api {
    pub async fn start(pool: PgPool) -> Self {
        Self::start_with(pool, AuthSettings::default()).await
    }

    pub async fn start_with(pool: PgPool, settings: AuthSettings) -> Self {
        Self::start_state(pool.clone(), |_| AppState::new(pool, settings)).await
    }

    /// Serves the state `build` makes from the server's own URL.
    pub async fn start_state(pool: PgPool, build: impl FnOnce(&str) -> AppState) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = build(&url);
        let public_url = state.auth.public_url.clone();
        tokio::spawn(serve_on(listener, state, std::future::pending()));
        Self {
            url,
            pool,
            public_url,
        }
    }

    /// A client that keeps cookies and sends what the console's pages send.
    pub fn browser(&self) -> Client {
        browser_at(&self.public_url)
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

    /// A team with these members.
    pub async fn team(&self, name: &str, members: &[Uuid]) -> Uuid {
        testing::team(&self.pool, name, members).await.unwrap()
    }

    /// An access scope of a person or team over `resources`; `scopes` is the JSON array of entries.
    pub async fn access_scope(
        &self,
        name: &str,
        subject: Subject,
        resources: &[&str],
        scopes: Value,
    ) -> Uuid {
        let scope = testing::AccessScope {
            name: name.into(),
            subject,
            resources: resources.iter().map(|r| r.to_string()).collect(),
            scopes,
            source: "UI".into(),
        };
        testing::access_scopes(&self.pool, &[scope]).await.unwrap()[0]
    }

    /// A permission rule of a person or team on a global object.
    pub async fn permission(
        &self,
        subject: Subject,
        object: &str,
        action: &str,
        deny: bool,
    ) -> Uuid {
        let rule = testing::Permission {
            name: None,
            subject,
            object: object.into(),
            action: action.into(),
            deny,
        };
        testing::permission(&self.pool, &rule).await.unwrap()
    }

    /// `admin@example.com` (role admin) and `guest@example.com` (role
    /// guest), both with password `pw`, signed in (access scopes are read
    /// per request: the guest's may come after).
    pub async fn admin_and_guest(&self) -> AdminAndGuest {
        self.person("admin@example.com", &["admin"], "pw").await;
        let guest_id = self.person("guest@example.com", &["guest"], "pw").await;
        AdminAndGuest {
            admin: self.signed_in("admin@example.com", "pw").await,
            guest: self.signed_in("guest@example.com", "pw").await,
            guest_id,
        }
    }

    /// Signs in through a browser flow; returns the client holding the session cookie.
    pub async fn signed_in(&self, email: &str, secret: &str) -> Client {
        let client = self.browser();
        let (status, _) = self.sign_in(&client, email, secret).await;
        assert_eq!(status, StatusCode::OK, "sign-in of {email}");
        client
    }

    /// Runs one sign-in flow with this client.
    pub async fn sign_in(&self, client: &Client, email: &str, secret: &str) -> (StatusCode, Value) {
        let flow = self.flow(client).await;
        let res = client
            .post(self.at(&format!("/api/auth/login?flow={}", flow["id"].as_str().unwrap())))
            .json(&json!({"method": "password", "identifier": email, "password": secret, "csrf_token": csrf(&flow)}))
            .send()
            .await
            .unwrap();
        (res.status(), res.json().await.unwrap_or(Value::Null))
    }

    pub async fn flow(&self, client: &Client) -> Value {
        self.login_flow(client, "").await
    }

    /// A new sign-in flow started with this query (`?aal=aal2`, or empty).
    pub async fn login_flow(&self, client: &Client, query: &str) -> Value {
        let res = client
            .get(self.at(&format!("/api/auth/login/browser{query}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        res.json().await.unwrap()
    }

    /// Sends a call as `client` (asking for the written rows back); the
    /// status and the JSON body (null when there is none).
    pub async fn call(
        &self,
        client: &Client,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = client
            .request(method, self.at(path))
            .header("Prefer", "return=representation");
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// The status of `GET /api/auth/whoami` with this bearer token.
    pub async fn whoami_bearer(&self, token: &str) -> StatusCode {
        self.whoami_bearer_body(token).await.0
    }

    /// `GET /api/auth/whoami` with this bearer token: status and body.
    pub async fn whoami_bearer_body(&self, token: &str) -> (StatusCode, Value) {
        let res = Client::new()
            .get(self.at("/api/auth/whoami"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        (res.status(), res.json().await.unwrap_or(Value::Null))
    }

    pub async fn status(
        &self,
        client: &Client,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> StatusCode {
        let mut req = client.request(method, self.at(path));
        if let Some(body) = body {
            req = req.json(&body);
        }
        req.send().await.unwrap().status()
    }
}

/// A client that keeps cookies, like a browser on the pages of a console
/// with the default public URL.
pub fn browser() -> Client {
    browser_at(&AuthSettings::default().public_url)
}

/// A browser on the console's pages at `public_url`: it names that origin
/// and sends the header the console sends on every call, as cookie-signed
/// writes require.
pub fn browser_at(public_url: &str) -> Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", public_url.trim_end_matches('/').parse().unwrap());
    headers.insert("x-requested-with", "quarterdeck".parse().unwrap());
    Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .build()
        .unwrap()
}

/// The CSRF token from a flow's hidden node.
pub fn csrf(flow: &Value) -> String {
    flow["ui"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["attributes"]["name"] == "csrf_token")
        .and_then(|n| n["attributes"]["value"].as_str())
        .unwrap()
        .to_owned()
}

/// Runs an `INSERT ... RETURNING id` with uuid arguments.
pub async fn insert(pool: &PgPool, sql: &'static str, args: &[Uuid]) -> Uuid {
    let mut query = sqlx::query_scalar(sql);
    for arg in args {
        query = query.bind(*arg);
    }
    query
        .fetch_one(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Runs a statement with uuid arguments.
pub async fn exec(pool: &PgPool, sql: &'static str, args: &[Uuid]) {
    let mut query = sqlx::query(sql);
    for arg in args {
        query = query.bind(*arg);
    }
    query
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}
