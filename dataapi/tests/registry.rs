//! The relation registry against the migrated database's
//! `information_schema`: every registered column exists with the registered
//! type and nullability, and every column and table of the schema is either
//! registered or listed below as deliberately not exposed, with the reason.

use std::collections::{BTreeMap, BTreeSet};

use quarterdeck_dataapi::{ColumnType, Schema};
use sqlx::PgPool;

/// Columns of registered tables the data API deliberately does not expose:
/// (table, column, why).
const HIDDEN_COLUMNS: &[(&str, &str, &str)] = &[
    (
        "checks",
        "claimed_slot",
        "the engine's hold on a claimed run (decision 105.4), not the check's state",
    ),
    (
        "checks",
        "lease_until",
        "the engine's hold on a claimed run (decision 105.4), not the check's state",
    ),
    (
        "check_statuses",
        "slot",
        "the engine's guard against a slot recorded twice (decision 105.5)",
    ),
    (
        "artifacts",
        "config_change_id",
        "only playbook actions keep artifacts today",
    ),
    (
        "artifacts",
        "connection_id",
        "artifacts are kept in the database, not a connection's store",
    ),
    (
        "people",
        "password_hash",
        "a secret: never read, and written only by the sign-in flows",
    ),
    (
        "people",
        "verified_at",
        "set only by the verification and recovery flows (the profile answers it)",
    ),
    (
        "checks",
        "run_requested_at",
        "the check engine's queue: Run Now sets it through the health API, which checks the action",
    ),
    (
        "checks",
        "endpoint_override_approved",
        "set only by the canary sync from the execution policy; a writable copy would bypass it",
    ),
    (
        "config_changes",
        "config_type",
        "a copy of the item's type kept by triggers, for the changes search's index",
    ),
    (
        "config_scrapers",
        "next_run",
        "the scrape engine's schedule (operator only)",
    ),
    (
        "config_scrapers",
        "lease_until",
        "the scrape engine's claim on a run in flight (operator only)",
    ),
    (
        "config_scrapers",
        "run_requested_at",
        "the scrape engine's queue: Scrape now sets it through its own route, which checks the right",
    ),
    (
        "topologies",
        "next_run",
        "the topology engine's schedule (operator only)",
    ),
    (
        "topologies",
        "lease_until",
        "the topology engine's claim on a run in flight (operator only)",
    ),
    (
        "topologies",
        "run_requested_at",
        "the topology engine's queue (operator only)",
    ),
];

/// Tables of the schema the data API deliberately does not expose: (table, why).
const NOT_EXPOSED: &[(&str, &str)] = &[
    ("component_rollups", "the topology call's summaries"),
    (
        "playbook_schedules",
        "the slots of playbooks' schedule triggers (operator only)",
    ),
    ("component_rollups_stale", "topologies to roll up"),
    (
        "incident_rule_incidents",
        "which rule opened an incident for which resource, and its recovery (operator only)",
    ),
    (
        "scheduled_jobs",
        "which replica runs a periodic job when (operator only)",
    ),
    (
        "access_tokens",
        "token hashes; managed through the token endpoints",
    ),
    ("sessions", "session hashes; the sign-in flow's own"),
    ("mcp_sessions", "MCP sessions; the /mcp transport's own"),
    (
        "totp_credentials",
        "encrypted second-factor secrets; the second-factor endpoints' own",
    ),
    (
        "webauthn_credentials",
        "security keys' public keys and counters; the second-factor endpoints' own",
    ),
    (
        "webauthn_challenges",
        "one-time WebAuthn challenges; the second-factor and sign-in endpoints' own",
    ),
    (
        "backup_codes",
        "backup code digests; the second-factor endpoints' own",
    ),
    (
        "sso_providers",
        "single sign-on providers with encrypted client secrets; the settings endpoints' own",
    ),
    (
        "sso_group_mappings",
        "groups mapped to roles and teams; the settings endpoints' own",
    ),
    (
        "sso_authorizations",
        "pending sign-ins' state digests, nonces and PKCE verifiers; the sign-in flow's own",
    ),
    (
        "sso_identities",
        "accounts at providers linked to people; the profile endpoints' own",
    ),
    (
        "second_factor_policy",
        "who must have a second factor; the settings endpoints' own",
    ),
    (
        "invites",
        "one-time secrets; managed through the people endpoints",
    ),
    (
        "password_resets",
        "one-time secrets; managed through the people endpoints",
    ),
    ("login_flows", "the sign-in flow's CSRF state"),
    (
        "identity_flows",
        "registration, recovery and verification flows' CSRF state",
    ),
    (
        "identity_codes",
        "digests of mailed codes and links; the self-service flows' own",
    ),
    (
        "identity_settings",
        "mail and registration settings; the settings endpoints' own",
    ),
    ("login_failures", "sign-in throttling state"),
    (
        "operator_leadership",
        "the leader's fence generation (operator only)",
    ),
    (
        "crd_takeovers",
        "rows a custom resource took over, kept to restore them (operator only)",
    ),
    (
        "execution_policy",
        "changed only through the admin-only settings endpoint",
    ),
    (
        "check_statuses_1h",
        "hourly rollups; the health API serves them",
    ),
    (
        "check_statuses_1d",
        "daily rollups; the health API serves them",
    ),
    (
        "scopes",
        "Scope resources: no console screen reads them yet",
    ),
    (
        "artifact_contents",
        "the bytes: read only by GET /api/artifacts/download/{id}",
    ),
    (
        "view_panels",
        "a cache of view results; no console screen reads it yet",
    ),
    (
        "component_relationships",
        "no console screen reads them yet",
    ),
    ("config_relationships", "no console screen reads them yet"),
];

#[derive(sqlx::FromRow)]
struct DbColumn {
    table_name: String,
    column_name: String,
    data_type: String,
    udt_name: String,
    nullable: bool,
    view: bool,
}

/// The `information_schema.columns` spelling of a registered type.
fn db_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Uuid => "uuid",
        ColumnType::Text => "text",
        ColumnType::Int => "int4",
        ColumnType::BigInt => "int8",
        ColumnType::Float => "float8",
        ColumnType::Bool => "bool",
        ColumnType::Timestamp => "timestamptz",
        ColumnType::Json => "jsonb",
        ColumnType::TextArray => "_text",
    }
}

async fn database_columns(pool: &PgPool) -> Vec<DbColumn> {
    sqlx::query_as(
        "SELECT c.table_name::text, c.column_name::text, c.data_type::text, c.udt_name::text, \
                c.is_nullable = 'YES' AS nullable, t.table_type = 'VIEW' AS view \
         FROM information_schema.columns c \
         JOIN information_schema.tables t USING (table_schema, table_name) \
         WHERE c.table_schema = 'public' AND c.table_name <> '_sqlx_migrations' \
         ORDER BY c.table_name, c.ordinal_position",
    )
    .fetch_all(pool)
    .await
    .expect("information_schema.columns")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_registry_matches_the_database(pool: PgPool) {
    let db = database_columns(&pool).await;
    let by_key: BTreeMap<(&str, &str), &DbColumn> = db
        .iter()
        .map(|c| ((c.table_name.as_str(), c.column_name.as_str()), c))
        .collect();
    let mut problems = Vec::new();
    let mut registered: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for relation in Schema::console().relations() {
        let columns = registered.entry(relation.table).or_default();
        for column in relation.columns {
            columns.insert(column.name);
            let place = format!("{}.{}", relation.name, column.name);
            let Some(found) = by_key.get(&(relation.table, column.name)) else {
                problems.push(format!(
                    "{place}: registered, but {}.{} does not exist",
                    relation.table, column.name
                ));
                continue;
            };
            if found.udt_name != db_type(column.ty) {
                problems.push(format!(
                    "{place}: registered as {:?}, the database has {} ({})",
                    column.ty, found.data_type, found.udt_name
                ));
            }
            if !found.view && found.nullable != column.nullable {
                problems.push(format!(
                    "{place}: registered as {}, the database column is {}",
                    if column.nullable {
                        "nullable"
                    } else {
                        "NOT NULL"
                    },
                    if found.nullable {
                        "nullable"
                    } else {
                        "NOT NULL"
                    },
                ));
            }
        }
    }
    let hidden: BTreeSet<(&str, &str)> = HIDDEN_COLUMNS.iter().map(|(t, c, _)| (*t, *c)).collect();
    let not_exposed: BTreeSet<&str> = NOT_EXPOSED.iter().map(|(t, _)| *t).collect();
    for c in &db {
        let table = c.table_name.as_str();
        match registered.get(table) {
            Some(columns) => {
                let key = (table, c.column_name.as_str());
                if !columns.contains(key.1) && !hidden.contains(&key) {
                    problems.push(format!(
                        "{table}.{}: not registered and not in HIDDEN_COLUMNS",
                        key.1
                    ));
                }
            }
            None if !not_exposed.contains(table) => {
                problems.push(format!("{table}: not registered and not in NOT_EXPOSED"));
            }
            None => {}
        }
    }
    for (table, column, _) in HIDDEN_COLUMNS {
        if !by_key.contains_key(&(*table, *column)) {
            problems.push(format!("HIDDEN_COLUMNS: {table}.{column} does not exist"));
        }
        if registered.get(table).is_some_and(|c| c.contains(column)) {
            problems.push(format!("HIDDEN_COLUMNS: {table}.{column} is registered"));
        }
    }
    for (table, _) in NOT_EXPOSED {
        if !db.iter().any(|c| c.table_name == *table) {
            problems.push(format!("NOT_EXPOSED: {table} does not exist"));
        }
        if registered.contains_key(table) {
            problems.push(format!("NOT_EXPOSED: {table} is registered"));
        }
    }
    problems.dedup();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
