//! Every role and token scope against every endpoint of the OpenAPI document
//! and every relation of the data API, over real HTTP against a real
//! database: what the rights model allows gets past authorization (and no
//! server error); what it refuses is 401 or 403 and changes nothing. An
//! endpoint added without a line in [`ENDPOINTS`] fails the sweep.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

mod common;

use common::Api;
use quarterdeck_dataapi::Schema;
use quarterdeck_store::rbac::{Action, Authorizer, Resource, ScopeGrant};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";
const ROLES: &[&str] = &[
    "admin",
    "editor",
    "viewer",
    "guest",
    "commander",
    "responder",
];
const NIL: &str = "00000000-0000-0000-0000-000000000001";

/// Who may call an endpoint.
#[derive(Debug, Clone, Copy)]
enum Needs {
    /// Anyone, signed in or not.
    Nothing,
    /// Anyone signed in.
    SignedIn,
    /// A person at the console (a session or password), not a token.
    Person,
    /// A browser session (the session endpoint says 401 to anything else).
    Session,
    /// This right.
    Right(Resource, Action),
    /// A person with this right, not a token.
    PersonWith(Resource, Action),
    /// The admin role, not narrowed by a token.
    Admin,
    /// Creating or updating any resource that names connections (the pickers).
    ConnectionPicker,
}

/// The resources whose writers may list connection names.
const PICKERS: &[Resource] = &[
    Resource::Canaries,
    Resource::ConfigScrapers,
    Resource::Playbooks,
    Resource::Notifications,
];

const CONNECTION: &str =
    r#"{"name": "sweep", "type": "folder", "fields": {"url": {"value": "/tmp"}}}"#;

const SSO_PROVIDER: &str = r#"{"slug": "sweep", "label": "Sweep", "issuer": "https://id.example.com", "client_id": "sweep", "client_secret": "sweep"}"#;

/// Every operation of the OpenAPI document, with who may call it and a body
/// that parses (so a refusal is about rights, not shape).
const ENDPOINTS: &[(&str, &str, Needs, &str)] = &[
    ("GET", "/api/about", Needs::Nothing, r#"{}"#),
    (
        "POST",
        "/mcp",
        Needs::Right(Resource::Mcp, Action::Read),
        r#"{}"#,
    ),
    (
        "DELETE",
        "/mcp",
        Needs::Right(Resource::Mcp, Action::Read),
        r#"{}"#,
    ),
    ("GET", "/livez", Needs::Nothing, r#"{}"#),
    ("GET", "/readyz", Needs::Nothing, r#"{}"#),
    ("GET", "/api/openapi.json", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/login/browser", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/login/flows", Needs::Nothing, r#"{}"#),
    ("POST", "/api/auth/login", Needs::Nothing, r#"{}"#),
    (
        "POST",
        "/api/auth/login/webauthn",
        Needs::Nothing,
        r#"{"csrf_token": "x"}"#,
    ),
    ("GET", "/api/auth/session", Needs::Session, r#"{}"#),
    ("GET", "/api/profile", Needs::SignedIn, r#"{}"#),
    (
        "PATCH",
        "/api/profile",
        Needs::SignedIn,
        r#"{"name": "Sweep"}"#,
    ),
    (
        "POST",
        "/api/profile/password",
        Needs::Session,
        r#"{"current_password": "not the password", "password": "a long new password"}"#,
    ),
    (
        "POST",
        "/api/profile/sign_out_everywhere",
        Needs::Person,
        r#"{}"#,
    ),
    ("POST", "/api/auth/logout", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/sso/providers", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/sso/{slug}/start", Needs::Nothing, r#"{}"#),
    (
        "GET",
        "/api/auth/sso/{slug}/callback",
        Needs::Nothing,
        r#"{}"#,
    ),
    ("GET", "/api/profile/sso", Needs::Person, r#"{}"#),
    ("DELETE", "/api/profile/sso/{slug}", Needs::Person, r#"{}"#),
    ("GET", "/api/settings/sso", Needs::Admin, r#"{}"#),
    ("POST", "/api/settings/sso", Needs::Admin, SSO_PROVIDER),
    ("GET", "/api/settings/sso/{slug}", Needs::Admin, r#"{}"#),
    (
        "PUT",
        "/api/settings/sso/{slug}",
        Needs::Admin,
        SSO_PROVIDER,
    ),
    ("DELETE", "/api/settings/sso/{slug}", Needs::Admin, r#"{}"#),
    ("GET", "/api/auth/invite", Needs::Nothing, r#"{}"#),
    ("POST", "/api/auth/invite", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/password_reset", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/self_service", Needs::Nothing, r#"{}"#),
    (
        "GET",
        "/api/auth/registration/browser",
        Needs::Nothing,
        r#"{}"#,
    ),
    (
        "GET",
        "/api/auth/registration/flows",
        Needs::Nothing,
        r#"{}"#,
    ),
    ("POST", "/api/auth/registration", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/recovery/browser", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/recovery/flows", Needs::Nothing, r#"{}"#),
    ("POST", "/api/auth/recovery", Needs::Nothing, r#"{}"#),
    (
        "GET",
        "/api/auth/verification/browser",
        Needs::Nothing,
        r#"{}"#,
    ),
    (
        "GET",
        "/api/auth/verification/flows",
        Needs::Nothing,
        r#"{}"#,
    ),
    ("POST", "/api/auth/verification", Needs::Nothing, r#"{}"#),
    (
        "POST",
        "/api/auth/verification/link",
        Needs::Nothing,
        r#"{"token": "qdv_sweep"}"#,
    ),
    ("POST", "/api/auth/password_reset", Needs::Nothing, r#"{}"#),
    ("GET", "/api/kubeconfig", Needs::Nothing, r#"{}"#),
    ("GET", "/api/auth/whoami", Needs::SignedIn, r#"{}"#),
    ("GET", "/api/auth/tokens", Needs::SignedIn, r#"{}"#),
    ("DELETE", "/api/auth/token/{id}", Needs::SignedIn, r#"{}"#),
    ("POST", "/api/auth/create_token", Needs::Person, r#"{}"#),
    ("GET", "/api/auth/second-factor", Needs::SignedIn, r#"{}"#),
    ("POST", "/api/auth/totp", Needs::Session, r#"{}"#),
    (
        "POST",
        "/api/auth/totp/confirm",
        Needs::Session,
        r#"{"code": "abcdef"}"#,
    ),
    ("POST", "/api/auth/totp/remove", Needs::Session, r#"{}"#),
    ("POST", "/api/auth/backup-codes", Needs::Session, r#"{}"#),
    (
        "POST",
        "/api/auth/webauthn/registration",
        Needs::Session,
        r#"{"name": "sweep"}"#,
    ),
    (
        "POST",
        "/api/auth/webauthn/credentials",
        Needs::Session,
        r#"{"registration": "00000000-0000-0000-0000-000000000000", "credential": {"response": {"clientDataJSON": "", "attestationObject": ""}}}"#,
    ),
    (
        "DELETE",
        "/api/auth/webauthn/credentials/{id}",
        Needs::Session,
        r#"{}"#,
    ),
    (
        "GET",
        "/api/canary/api",
        Needs::Right(Resource::Canaries, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/canary/api/graph",
        Needs::Right(Resource::Canaries, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/canary/api/summary",
        Needs::Right(Resource::Canaries, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/canary/api/summary",
        Needs::Right(Resource::Canaries, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/canary/api/topology",
        Needs::Right(Resource::Topologies, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/snapshot/topology/{id}",
        Needs::Right(Resource::Topologies, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/canary/run/check/{id}",
        Needs::Right(Resource::Canaries, Action::Run),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/scrapers/{id}/run",
        Needs::Right(Resource::ConfigScrapers, Action::Update),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/notification/summary",
        Needs::Right(Resource::Notifications, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/notification/silence",
        Needs::Right(Resource::Notifications, Action::Create),
        r#"{"filter": "true"}"#,
    ),
    (
        "GET",
        "/api/notification/silence_preview",
        Needs::Right(Resource::Notifications, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/catalog/summary",
        Needs::Right(Resource::Database, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/catalog/changes",
        Needs::Right(Resource::Database, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/catalog/{id}/relationships",
        Needs::Right(Resource::Database, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/db/rpc/related_configs_recursive",
        Needs::Right(Resource::Database, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/db/rpc/lookup_analysis_by_component",
        Needs::Right(Resource::Database, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/db/rpc/get_parents_by_location",
        Needs::Right(Resource::Database, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/playbook/list",
        Needs::Right(Resource::Playbooks, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/playbook/{id}/params",
        Needs::Right(Resource::Playbooks, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/playbook/run",
        Needs::Right(Resource::PlaybookRuns, Action::Create),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/playbook/run/{id}",
        Needs::Right(Resource::Playbooks, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/playbook/run/{id}/status",
        Needs::Right(Resource::Playbooks, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/playbook/run/approve/{id}",
        Needs::Right(Resource::PlaybookRuns, Action::Update),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/playbook/run/cancel/{id}",
        Needs::Right(Resource::PlaybookRuns, Action::Create),
        r#"{}"#,
    ),
    // Authenticated by the playbook's own webhook credentials, not a session.
    (
        "GET",
        "/api/playbook/webhook/{path}",
        Needs::Nothing,
        r#"{}"#,
    ),
    (
        "POST",
        "/api/playbook/webhook/{path}",
        Needs::Nothing,
        r#"{}"#,
    ),
    (
        "GET",
        "/api/artifacts/download/{id}",
        Needs::Right(Resource::Playbooks, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/db/rpc/get_playbook_run_actions",
        Needs::Right(Resource::Playbooks, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/resources/search",
        Needs::SignedIn,
        r#"{"configs": [{}], "checks": [{}], "components": [{}], "connections": [{}], "playbooks": [{}]}"#,
    ),
    (
        "GET",
        "/api/db/{relation}",
        Needs::Right(Resource::Database, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/db/{relation}",
        Needs::Right(Resource::Database, Action::Create),
        r#"{}"#,
    ),
    (
        "PATCH",
        "/api/db/{relation}",
        Needs::Right(Resource::Database, Action::Update),
        r#"{}"#,
    ),
    (
        "DELETE",
        "/api/db/{relation}",
        Needs::Right(Resource::Database, Action::Delete),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/integrations/options",
        Needs::Right(Resource::Integrations, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/integrations/preview",
        Needs::Right(Resource::Integrations, Action::Read),
        r#"{"option": "flux", "values": {}}"#,
    ),
    (
        "POST",
        "/api/kubeconfig",
        Needs::PersonWith(Resource::KubernetesProxy, Action::Create),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/people_roles",
        Needs::Right(Resource::Identities, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/people/update",
        Needs::Right(Resource::Identities, Action::Update),
        r#"{"id": "00000000-0000-0000-0000-000000000001"}"#,
    ),
    (
        "DELETE",
        "/api/people/{id}",
        Needs::Right(Resource::Identities, Action::Delete),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/people/{id}/password_reset",
        Needs::Right(Resource::Identities, Action::Update),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/auth/invite_user",
        Needs::Right(Resource::Identities, Action::Create),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/connections",
        Needs::Right(Resource::Connections, Action::Read),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/connections",
        Needs::Right(Resource::Connections, Action::Create),
        CONNECTION,
    ),
    (
        "GET",
        "/api/connections/{id}",
        Needs::Right(Resource::Connections, Action::Read),
        r#"{}"#,
    ),
    (
        "PUT",
        "/api/connections/{id}",
        Needs::Right(Resource::Connections, Action::Update),
        CONNECTION,
    ),
    (
        "DELETE",
        "/api/connections/{id}",
        Needs::Right(Resource::Connections, Action::Delete),
        r#"{}"#,
    ),
    (
        "POST",
        "/api/connection/test/{id}",
        Needs::Right(Resource::Connections, Action::Read),
        r#"{}"#,
    ),
    (
        "GET",
        "/api/connections/options",
        Needs::ConnectionPicker,
        r#"{}"#,
    ),
    (
        "GET",
        "/api/settings/execution-policy",
        Needs::Right(Resource::FeatureFlags, Action::Read),
        r#"{}"#,
    ),
    (
        "PUT",
        "/api/settings/execution-policy",
        Needs::Admin,
        r#"{"allowConsoleScripts": false}"#,
    ),
    (
        "GET",
        "/api/settings/second-factor",
        Needs::Right(Resource::FeatureFlags, Action::Read),
        r#"{}"#,
    ),
    (
        "PUT",
        "/api/settings/second-factor",
        Needs::Admin,
        r#"{"required": "nobody"}"#,
    ),
    (
        "GET",
        "/api/settings/identity",
        Needs::Right(Resource::FeatureFlags, Action::Read),
        r#"{}"#,
    ),
    (
        "PUT",
        "/api/settings/identity",
        Needs::Admin,
        r#"{"mailConnection": null, "registrationEnabled": false}"#,
    ),
];

/// One caller of the sweep.
struct Who {
    name: String,
    client: Client,
    authorizer: Authorizer,
    token: Option<String>,
}

impl Who {
    fn request(&self, method: Method, url: String) -> reqwest::RequestBuilder {
        let req = self.client.request(method, url);
        match &self.token {
            Some(token) => req.bearer_auth(token),
            None => req,
        }
    }

    fn may(&self, needs: Needs) -> bool {
        let person = self.token.is_none();
        match needs {
            Needs::Nothing | Needs::SignedIn => true,
            Needs::Person | Needs::Session => person,
            Needs::Right(resource, action) => self.authorizer.allows(resource, action),
            Needs::PersonWith(resource, action) => {
                person && self.authorizer.allows(resource, action)
            }
            Needs::Admin => self.authorizer.is_admin(),
            Needs::ConnectionPicker => PICKERS.iter().any(|r| {
                self.authorizer.allows(*r, Action::Create)
                    || self.authorizer.allows(*r, Action::Update)
            }),
        }
    }
}

fn grants(scope: &[(&str, &str)]) -> Vec<ScopeGrant> {
    scope
        .iter()
        .map(|(object, action)| ScopeGrant {
            subject: None,
            object: object.parse().expect("a token object"),
            actions: action
                .split(',')
                .map(|a| a.parse().expect("a token action"))
                .collect(),
        })
        .collect()
}

async fn callers(api: &Api) -> Vec<Who> {
    let mut out = Vec::new();
    for role in ROLES {
        let email = format!("{role}@example.com");
        api.person(&email, &[role], PASSWORD).await;
        out.push(Who {
            name: role.to_string(),
            client: api.signed_in(&email, PASSWORD).await,
            authorizer: Authorizer {
                roles: vec![role.to_string()],
                ..Default::default()
            },
            token: None,
        });
    }
    for (role, scope) in [
        ("admin", vec![("canaries", "read")]),
        (
            "editor",
            vec![
                ("canaries", "read,create"),
                ("catalog", "read,create"),
                ("playbooks", "read"),
            ],
        ),
    ] {
        let session = &out.iter().find(|w| w.name == role).expect("role").client;
        let body = json!({"name": format!("{role} sweep"), "scope": grants(&scope)});
        let created: Value = session
            .post(api.at("/api/auth/create_token"))
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        out.push(Who {
            name: format!("{role} token {scope:?}"),
            client: Client::new(),
            authorizer: Authorizer {
                roles: vec![role.to_string()],
                rules: Vec::new(),
                token_scope: Some(grants(&scope)),
            },
            token: Some(created["payload"]["token"].as_str().unwrap().to_owned()),
        });
    }
    out
}

/// A digest of a table's rows, to tell that a refused write changed nothing.
async fn digest(pool: &PgPool, table: &str) -> String {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM \"{table}\" t"
    )))
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Rows in the tables writes are tried on, so a refused write has something to change.
async fn seed(pool: &PgPool) {
    for statement in [
        "INSERT INTO teams (name) VALUES ('seeded')",
        "INSERT INTO team_members (team_id, person_id) SELECT t.id, p.id FROM teams t, people p WHERE p.email = 'viewer@example.com'",
        "INSERT INTO agents (name) VALUES ('seeded')",
        "INSERT INTO properties (name, value) VALUES ('seeded.disable', 'false')",
        "INSERT INTO connections (name, type) VALUES ('seeded', 'postgres')",
        "INSERT INTO permissions (subject_type, subject, object, action) VALUES ('group', 'viewer', 'canaries', 'read')",
        "INSERT INTO access_scopes (name, team_id, resources, scopes) SELECT 'seeded', id, '{config}', '[{\"names\": [\"*\"]}]' FROM teams",
        "INSERT INTO canaries (name, spec) VALUES ('seeded', '{}')",
        // The self-service flows on, so that answering them is about rights.
        "INSERT INTO connections (name, type) VALUES ('seeded mail', 'email')",
        "INSERT INTO identity_settings (mail_connection_id, registration_enabled) SELECT id, true FROM connections WHERE type = 'email'",
    ] {
        sqlx::query(statement).execute(pool).await.unwrap();
    }
}

fn concrete(path: &str) -> String {
    path.replace("{id}", NIL)
        .replace("{relation}", "teams")
        .replace("{slug}", "sweep")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_role_and_token_against_every_endpoint_and_relation(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let callers = callers(&api).await;
    seed(&pool).await;
    let mut requests = 0usize;

    // The table covers the document, operation for operation.
    let document: Value = serde_json::from_str(&quarterdeck_api::openapi::document()).unwrap();
    for (path, operations) in document["paths"].as_object().unwrap() {
        // The proxy answers only with a cluster: tests/kubeproxy.rs and
        // kubeproxy_cluster.rs cover who may use it.
        if path.starts_with("/kubeproxy/") {
            continue;
        }
        for method in operations.as_object().unwrap().keys() {
            let method = method.to_uppercase();
            assert!(
                ENDPOINTS
                    .iter()
                    .any(|(m, p, _, _)| *m == method && p == path),
                "{method} {path} is not in the security sweep"
            );
        }
    }

    for &(method, path, needs, body) in ENDPOINTS {
        let method: Method = method.parse().unwrap();
        let body: Value = serde_json::from_str(body).unwrap();
        let url = api.at(&concrete(path));
        let anonymous = Client::new()
            .request(method.clone(), &url)
            .json(&body)
            .send()
            .await
            .unwrap()
            .status();
        requests += 1;
        if !matches!(needs, Needs::Nothing) {
            assert_eq!(
                anonymous,
                StatusCode::UNAUTHORIZED,
                "anonymous {method} {path}"
            );
        }
        // Signing out is tried last, by nobody the sweep still needs.
        if path == "/api/auth/logout" {
            continue;
        }
        for who in &callers {
            let status = who
                .request(method.clone(), url.clone())
                .json(&body)
                .send()
                .await
                .unwrap()
                .status();
            requests += 1;
            if who.may(needs) {
                assert!(
                    !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
                        && !status.is_server_error(),
                    "{}: {method} {path} answered {status}",
                    who.name
                );
            } else {
                assert!(
                    matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN),
                    "{}: {method} {path} answered {status}, expected a refusal",
                    who.name
                );
            }
        }
    }

    let schema = Schema::console();
    let mut relations = 0usize;
    for relation in schema.relations() {
        relations += 1;
        let first = relation.columns[0].name;
        for who in &callers {
            let read = who.authorizer.allows(relation.resource, Action::Read);
            let res = who
                .request(
                    Method::GET,
                    api.at(&format!("/api/db/{}?limit=1", relation.name)),
                )
                .send()
                .await
                .unwrap();
            requests += 1;
            let status = res.status();
            if read {
                assert_eq!(
                    status,
                    StatusCode::OK,
                    "{}: GET {}: {}",
                    who.name,
                    relation.name,
                    res.text().await.unwrap()
                );
            } else {
                assert_eq!(
                    status,
                    StatusCode::FORBIDDEN,
                    "{}: GET {}",
                    who.name,
                    relation.name
                );
            }

            let updatable = relation
                .columns
                .iter()
                .find(|c| c.updatable())
                .map(|c| c.name);
            for (method, action) in [
                (Method::POST, Action::Create),
                (Method::PATCH, Action::Update),
                (Method::DELETE, Action::Delete),
            ] {
                let allowed =
                    relation.writable && who.authorizer.allows(relation.write_resource, action);
                // Refused callers aim at every row; allowed ones at none.
                let filter = if allowed { "is.null" } else { "not.is.null" };
                let (query, body) = match method {
                    Method::POST => (String::new(), json!({})),
                    Method::PATCH => (
                        format!("?{first}={filter}"),
                        json!({ updatable.unwrap_or(first): null }),
                    ),
                    _ => (format!("?{first}={filter}"), Value::Null),
                };
                let before = digest(&pool, relation.table).await;
                let mut req = who.request(
                    method.clone(),
                    api.at(&format!("/api/db/{}{query}", relation.name)),
                );
                if !body.is_null() {
                    req = req.json(&body);
                }
                let res = req.send().await.unwrap();
                requests += 1;
                let status = res.status();
                let text = res.text().await.unwrap();
                if allowed {
                    assert!(
                        !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
                            && !status.is_server_error(),
                        "{}: {method} {} answered {status}: {text}",
                        who.name,
                        relation.name
                    );
                } else {
                    assert!(
                        matches!(
                            status,
                            StatusCode::FORBIDDEN | StatusCode::METHOD_NOT_ALLOWED
                        ),
                        "{}: {method} {} answered {status}: {text}",
                        who.name,
                        relation.name
                    );
                    assert_eq!(
                        before,
                        digest(&pool, relation.table).await,
                        "{}: {method} {} changed rows",
                        who.name,
                        relation.name
                    );
                }
            }
        }
    }
    println!(
        "security sweep: {requests} requests, {} callers, {} endpoints, {relations} relations",
        callers.len(),
        ENDPOINTS.len()
    );
}
