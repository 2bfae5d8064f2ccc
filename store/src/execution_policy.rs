//! The execution policy: what a canary written in the console may make the
//! operator do. Canaries from Kubernetes (`source = 'KubernetesCRD'`) follow
//! the cluster's RBAC, since whoever may create the resource is trusted; all
//! others are held to two rules, checked when the canary is saved (the data
//! API) and again before each run (the engine):
//!
//! - scripts (`exec` checks) run only while an admin allows scripts from the
//!   console (off by default; it may be switched off after a canary is saved);
//! - a named connection's credentials go only to that connection's own
//!   endpoint: a check that names a connection and overrides its URL or host
//!   may be saved only by an admin (who may point credentials anywhere), and
//!   the engine sends them elsewhere only for checks an admin saved.
//!
//! How scripts run (user, environment, limits) is the checks crate's script
//! sandbox.

use serde_json::{Map, Value as Json};
use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

/// Why a console canary's `exec` check is refused, at save time and at run time.
pub const SCRIPTS_DISABLED: &str = "exec checks from the console are disabled by the execution policy; an admin can allow scripts from the console on the Feature Flags screen";

/// The fields through which a check points somewhere other than its named connection.
const ENDPOINT_OVERRIDES: &[&str] = &["url", "endpoint", "addr", "host"];

/// The stored switches of the policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct ExecutionPolicy {
    /// `exec` checks of console canaries may run.
    pub console_scripts: bool,
}

/// What the engine does with one claimed check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunRules {
    /// Named connections' credentials go only to the connection's own endpoint.
    pub pin_connections: bool,
}

/// Whether rows with this `source` follow the cluster's RBAC instead of this policy.
pub fn trusted_source(source: &str) -> bool {
    source == crate::crd::SOURCE
}

/// The current policy.
pub async fn load(db: impl PgExecutor<'_>) -> Result<ExecutionPolicy, sqlx::Error> {
    let console_scripts: Option<bool> =
        sqlx::query_scalar("SELECT console_scripts FROM execution_policy")
            .fetch_optional(db)
            .await?;
    Ok(ExecutionPolicy {
        console_scripts: console_scripts.unwrap_or(false),
    })
}

/// Stores `policy` as changed by `by`. Callers check that `by` is an admin.
pub async fn save(
    pool: &PgPool,
    policy: ExecutionPolicy,
    by: Uuid,
) -> Result<ExecutionPolicy, sqlx::Error> {
    sqlx::query(
        "INSERT INTO execution_policy (id, console_scripts, updated_by) VALUES (true, $1, $2) \
         ON CONFLICT (id) DO UPDATE SET console_scripts = $1, updated_by = $2, updated_at = now()",
    )
    .bind(policy.console_scripts)
    .bind(by)
    .execute(pool)
    .await?;
    Ok(policy)
}

/// The field of a check spec that overrides the endpoint of the connection it
/// names, if it names one and overrides it.
pub fn endpoint_override(item: &Map<String, Json>) -> Option<&'static str> {
    let set = |field: &str| {
        item.get(field)
            .and_then(Json::as_str)
            .is_some_and(|v| !v.trim().is_empty())
    };
    if !set("connection") {
        return None;
    }
    ENDPOINT_OVERRIDES.iter().copied().find(|f| set(f))
}

/// Whether two check specs point the same connection at the same endpoint.
pub(crate) fn same_endpoint(a: &Map<String, Json>, b: &Map<String, Json>) -> bool {
    std::iter::once("connection")
        .chain(ENDPOINT_OVERRIDES.iter().copied())
        .all(|f| a.get(f) == b.get(f))
}

/// The message of a save refused because `field` overrides a connection's endpoint.
pub(crate) fn override_refused(field: &str) -> String {
    format!(
        "a check that names a connection may not set its own {field}: the connection's credentials go only to its own endpoint (only admins may point them elsewhere)"
    )
}

/// Whether the engine may run a check of `check_type` from a canary of
/// `source`, and how: `Err` is the failure to record instead.
pub fn run_rules(
    policy: ExecutionPolicy,
    source: &str,
    check_type: &str,
    override_approved: bool,
) -> Result<RunRules, &'static str> {
    if trusted_source(source) {
        return Ok(RunRules {
            pin_connections: false,
        });
    }
    if check_type == "exec" && !policy.console_scripts {
        return Err(SCRIPTS_DISABLED);
    }
    Ok(RunRules {
        pin_connections: !override_approved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Json) -> Map<String, Json> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn an_override_needs_a_connection_and_an_endpoint_field() {
        let item = object(json!({"connection": "connection://db", "url": "http://x"}));
        assert_eq!(endpoint_override(&item), Some("url"));
        let item = object(json!({"connection": "connection://db", "addr": "x:1"}));
        assert_eq!(endpoint_override(&item), Some("addr"));
        assert_eq!(endpoint_override(&object(json!({"url": "http://x"}))), None);
        let item = object(json!({"connection": "connection://db", "url": " "}));
        assert_eq!(endpoint_override(&item), None);
    }

    #[test]
    fn cluster_canaries_run_everything_and_console_ones_follow_the_switch() {
        let off = ExecutionPolicy::default();
        let on = ExecutionPolicy {
            console_scripts: true,
        };
        assert!(run_rules(off, "KubernetesCRD", "exec", false).is_ok());
        assert_eq!(run_rules(off, "UI", "exec", false), Err(SCRIPTS_DISABLED));
        assert_eq!(
            run_rules(on, "UI", "exec", false),
            Ok(RunRules {
                pin_connections: true
            })
        );
        assert_eq!(
            run_rules(off, "UI", "http", true),
            Ok(RunRules {
                pin_connections: false
            })
        );
    }
}
