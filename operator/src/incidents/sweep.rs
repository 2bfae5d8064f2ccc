//! Resolves and closes the incidents rules opened once their resource has
//! been healthy for the rule's `autoResolve` / `autoClose` timeout.

use std::collections::HashMap;

use quarterdeck_store::Error;
use quarterdeck_store::incident_rules::{self, Rule};
use sqlx::PgPool;
use uuid::Uuid;

/// One sweep; how many incidents it resolved or closed.
#[tracing::instrument(skip_all)]
pub async fn sweep(pool: &PgPool) -> Result<usize, Error> {
    let recovered = incident_rules::recovered(pool).await?;
    if recovered.is_empty() {
        return Ok(0);
    }
    let rules: HashMap<Uuid, Rule> = incident_rules::live_rules(pool)
        .await?
        .into_iter()
        .map(|r| (r.id, r))
        .collect();
    let mut settled = 0;
    for incident in recovered {
        let Some(rule) = rules.get(&incident.incident_rule_id) else {
            continue;
        };
        let past = |timeout: Option<std::time::Duration>| {
            timeout.is_some_and(|t| incident.recovered_for >= t.as_secs_f64())
        };
        let status = if past(rule.auto_close) {
            "closed"
        } else if past(rule.auto_resolve) && incident.status != "resolved" {
            "resolved"
        } else {
            continue;
        };
        if incident_rules::settle(pool, incident.incident_id, status).await? {
            tracing::info!(incident = %incident.incident_id, rule = %rule.name, status, "incident settled after its resource recovered");
            settled += 1;
        }
    }
    Ok(settled)
}
