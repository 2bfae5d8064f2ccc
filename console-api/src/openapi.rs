//! The OpenAPI document of the console API, served at `/api/openapi.json`
//! and committed as `console-api/openapi.json` (a test fails on drift; the
//! web client is generated from the committed copy).

use utoipa::{OpenApi, ToSchema};

/// An error of the API.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ErrorBody {
    /// `EUNAUTHORIZED`, `EFORBIDDEN`, `ENOTFOUND`, `EINVALID`, `ECONFLICT`, `EGONE`, ...
    error: String,
    message: String,
    /// With EFORBIDDEN: the resource refused.
    resource: Option<String>,
    /// With EFORBIDDEN: the action refused.
    action: Option<String>,
    /// With EINVALID: the field at fault.
    field: Option<String>,
}

/// Version and database health.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct About {
    version: String,
    /// `ok`, or `unavailable` with a reason (503).
    database: String,
    reason: Option<String>,
}

/// A person as the API shows them.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Person {
    id: uuid::Uuid,
    name: String,
    email: Option<String>,
    avatar: Option<String>,
    /// null for humans; `agent` or `access_token` for machine identities.
    #[schema(rename = "type")]
    kind: Option<String>,
    roles: Vec<String>,
}

/// A permission rule applying to the caller.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct PermissionRule {
    id: uuid::Uuid,
    subject_type: String,
    subject: Option<String>,
    object: Option<String>,
    action: String,
    deny: bool,
    resource_id: Option<uuid::Uuid>,
    /// The rows the rule is about (`spec.object` of a Permission resource:
    /// `configs`, `components`, `playbooks`, `connections`, `views`).
    #[schema(value_type = Option<Object>)]
    object_selector: Option<serde_json::Value>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct WhoamiPayload {
    user: Person,
    roles: Vec<String>,
    permissions: Vec<PermissionRule>,
    /// Every RBAC resource with the actions the caller may do on it, on
    /// some rows at least (`read`, `create`, `update`, `delete`, and `run`
    /// on `canaries`): roles, permission rules and the token's scope already
    /// applied. The console decides from this alone.
    rights: std::collections::BTreeMap<String, Vec<RightAction>>,
    /// The actions of `rights` that hold on some rows only, per resource:
    /// permission rules with selectors grant or deny them row by row, and
    /// the API acts on the rows they allow (lists leave the others out,
    /// writes to them answer 403). Resources not listed hold on every row.
    limited_rights: std::collections::BTreeMap<String, Vec<RightAction>>,
}

/// An action on an RBAC resource.
#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "lowercase")]
pub enum RightAction {
    Read,
    Create,
    Update,
    Delete,
    Run,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Whoami {
    message: String,
    payload: WhoamiPayload,
}

/// One grant of a token scope.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ScopeGrant {
    subject: Option<String>,
    /// `mcp`, `canaries`, `catalog`, `application`, `playbooks` or `notification`.
    object: String,
    /// Comma-separated: `read`, `create`, `update`, `delete`, `*`, `playbook:run`, `playbook:approve`.
    action: String,
}

#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct CreateToken {
    name: String,
    /// `30d`, `90d` (default), `180d`, `365d`, `never`, or any duration such as `720h`.
    expiry: Option<String>,
    auto_renew: Option<bool>,
    scope: Option<Vec<ScopeGrant>>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct TokenCreatedPayload {
    /// The token; shown this once only.
    token: String,
    id: uuid::Uuid,
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct TokenCreated {
    message: String,
    payload: TokenCreatedPayload,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct TokenInfo {
    id: uuid::Uuid,
    name: String,
    person_id: uuid::Uuid,
    #[schema(value_type = Option<Vec<ScopeGrant>>)]
    scope: Option<serde_json::Value>,
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
    auto_renew: bool,
    created_at: chrono::DateTime<chrono::Utc>,
    last_used_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct PersonWithRoles {
    id: uuid::Uuid,
    name: String,
    email: Option<String>,
    avatar: Option<String>,
    roles: Vec<String>,
    last_login: Option<chrono::DateTime<chrono::Utc>>,
    created_at: chrono::DateTime<chrono::Utc>,
    /// false while an invitation is pending.
    active: bool,
}

#[derive(ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
pub struct InviteUser {
    first_name: String,
    last_name: String,
    email: String,
    /// admin, editor, viewer, guest, commander or responder.
    role: String,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct LinkPayload {
    id: Option<uuid::Uuid>,
    /// The one-time link to hand to the person.
    link: String,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct LinkCreated {
    message: String,
    payload: LinkPayload,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct LinkTarget {
    email: Option<String>,
    name: String,
    expires_at: chrono::DateTime<chrono::Utc>,
    /// The password rule, to show beside the field.
    policy: String,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct RedeemLink {
    token: String,
    password: String,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct UpdatePerson {
    id: uuid::Uuid,
    name: Option<String>,
    email: Option<String>,
    roles: Option<Vec<String>>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct SubmitLogin {
    /// `password`.
    method: Option<String>,
    identifier: String,
    password: String,
    /// The value of the flow's hidden `csrf_token` node.
    csrf_token: String,
}

/// Uptime of a check over a range.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Uptime {
    passed: i64,
    failed: i64,
    last_pass: Option<chrono::DateTime<chrono::Utc>>,
    last_fail: Option<chrono::DateTime<chrono::Utc>>,
}

/// Latency percentiles in milliseconds (the summary's come from hourly
/// histograms, within 25 %).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Latency {
    p95: Option<f64>,
    p97: Option<f64>,
    p99: Option<f64>,
    /// p95 over the last hour.
    rolling1h: Option<f64>,
}

/// A check with its uptime and latency.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct CheckSummary {
    id: uuid::Uuid,
    canary_id: uuid::Uuid,
    canary_name: String,
    canary_namespace: String,
    agent_id: uuid::Uuid,
    name: String,
    namespace: Option<String>,
    #[schema(rename = "type")]
    kind: String,
    /// `healthy`, `unhealthy`, or null before the first run.
    status: Option<String>,
    description: Option<String>,
    endpoint: Option<String>,
    icon: Option<String>,
    #[schema(value_type = Object)]
    labels: serde_json::Value,
    owner: Option<String>,
    severity: Option<String>,
    last_runtime: Option<chrono::DateTime<chrono::Utc>>,
    next_runtime: Option<chrono::DateTime<chrono::Utc>>,
    last_transition_time: Option<chrono::DateTime<chrono::Utc>>,
    created_at: chrono::DateTime<chrono::Utc>,
    updated_at: chrono::DateTime<chrono::Utc>,
    deleted_at: Option<chrono::DateTime<chrono::Utc>>,
    silenced_at: Option<chrono::DateTime<chrono::Utc>>,
    uptime: Uptime,
    latency: Latency,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct HealthSummary {
    /// Milliseconds the summary took.
    duration: u64,
    #[schema(rename = "runnerName")]
    runner_name: String,
    checks_summary: Vec<CheckSummary>,
}

/// One run of a check.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct StatusEntry {
    time: chrono::DateTime<chrono::Utc>,
    /// Milliseconds.
    duration: Option<i32>,
    status: bool,
    message: Option<String>,
    error: Option<String>,
    #[schema(value_type = Option<Object>)]
    details: Option<serde_json::Value>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct StatusHistory {
    data: Vec<StatusEntry>,
    #[schema(rename = "totalEntries")]
    total_entries: i64,
    error: Option<String>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct SeriesPoint {
    time: chrono::DateTime<chrono::Utc>,
    passed: i64,
    failed: i64,
    /// Average milliseconds.
    duration: Option<f64>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct CheckMetrics {
    uptime: Uptime,
    latency: Latency,
    series: Vec<SeriesPoint>,
}

#[derive(ToSchema)]
#[allow(dead_code)]
pub struct RunNowResult {
    check_id: uuid::Uuid,
    result: Option<StatusEntry>,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Quarterdeck console API",
        description = "The HTTP API of the Quarterdeck console."
    ),
    paths(
        crate::routes::about::about,
        crate::routes::about::healthz,
        crate::routes::about::readyz,
        crate::routes::login::create_flow,
        crate::routes::login::get_flow,
        crate::routes::login::submit,
        crate::routes::login::session,
        crate::routes::login::logout,
        crate::routes::auth::whoami,
        crate::routes::auth::create_token,
        crate::routes::auth::list_tokens,
        crate::routes::auth::revoke_token,
        crate::routes::people::invite,
        crate::routes::people::peek_invite,
        crate::routes::people::accept_invite,
        crate::routes::people::peek_reset,
        crate::routes::people::redeem_reset,
        crate::routes::people::issue_reset,
        crate::routes::people::list,
        crate::routes::people::update,
        crate::routes::people::remove,
        crate::routes::db::handle,
        crate::routes::integrations::list_options,
        crate::routes::integrations::preview,
        crate::routes::kubeconfig::refuse_get,
        crate::routes::kubeconfig::kubeconfig,
        crate::routes::settings::execution_policy,
        crate::routes::settings::set_execution_policy,
        crate::routes::canary::summary_get,
        crate::routes::canary::summary_post,
        crate::routes::canary::history,
        crate::routes::canary::graph,
        crate::routes::canary::run_now,
        openapi_json,
    ),
    components(schemas(ErrorBody))
)]
pub struct ApiDoc;

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", responses((status = 200, description = "The OpenAPI document", body = Object)))]
pub async fn openapi_json() -> axum::Json<utoipa::openapi::OpenApi> {
    axum::Json(ApiDoc::openapi())
}

/// The document as committed: pretty JSON with a final newline.
pub fn document() -> String {
    let mut text = ApiDoc::openapi().to_pretty_json().unwrap_or_default();
    text.push('\n');
    text
}
