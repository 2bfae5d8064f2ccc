//! The relations of the console's data API, with the columns of the
//! migrations. RBAC resources follow the role matrix of `quarterdeck_store::rbac`.
//!
//! Decisions worth knowing:
//! - `people` is read as `database` (everyone signed in needs names for
//!   `created_by` and pickers) and written as `identities`; `password_hash`
//!   is not registered, and `roles`, `type`, `external_id`, `last_login` are
//!   read-only (roles change through the RBAC endpoints). Embedded people
//!   show only `id, name, email, avatar`.
//! - `connections.password` and `.certificate` are write-only secrets;
//!   embedded connections show only `id, name, namespace, type`.
//! - `access_tokens`, `sessions`, `invites` (and the sign-in tables) are not
//!   registered at all.
//! - Rows derived by the system (checks, components, config items, changes,
//!   analyses, runs, job history, events) are read-only here.
//! - `permissions`, `access_scopes`, `team_members` and `teams` hand out
//!   rights: their writes are held to the caller's own (`rights.rs`).
//!   Permission groups are written as `rbac` (admins only).
//! - Scope restrictions follow the foreign keys: a check is visible iff its
//!   canary is, a config change or analysis iff its config item is, a
//!   playbook run, notification, permission, silence, evidence or incident
//!   history entry iff everything scoped it points at is (a run's playbook
//!   and the check, config item or component it ran on; a notification's
//!   playbooks), and so on. A topology is visible iff one of its components
//!   is; job history and notification send history follow the resource they
//!   name (rows naming nothing scopes follow, such as the check engine's own
//!   runs, are hidden from restricted callers), send history also the
//!   notification, run and silence it points at; the event queue is hidden
//!   from restricted callers. See docs/decisions.md.
//! - Person contact details are shown to admins and the person only; JSON
//!   columns marked `holds_secrets` are redacted for non-writers.

use super::schema::{
    Access, Column, ColumnType, ColumnType::*, Embed, Join, Relation, Reveal, RightsGuard, ScopeBy,
    ScopeKind, Validator,
};

const fn col(name: &'static str, ty: ColumnType, access: Access) -> Column {
    Column {
        name,
        ty,
        access,
        reveal: Reveal::Everyone,
    }
}
/// A JSON column that may hold credentials: redacted for non-writers.
const fn holds_secrets(column: Column) -> Column {
    Column {
        reveal: Reveal::Writers,
        ..column
    }
}
/// A person's contact details: admins and the person only.
const fn personal(column: Column) -> Column {
    Column {
        reveal: Reveal::SelfAndAdmins,
        ..column
    }
}
/// Read-only.
const fn r(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::Read)
}
/// Read and written.
const fn w(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::ReadWrite)
}
/// Written on POST only.
const fn i(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::Insert)
}
/// Written, never read.
const fn secret(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::Secret)
}
const fn one(name: &'static str, target: &'static str, local: &'static str) -> Embed {
    Embed {
        name,
        target,
        join: Join::ToOne { local },
    }
}
const fn many(name: &'static str, target: &'static str, remote: &'static str) -> Embed {
    Embed {
        name,
        target,
        join: Join::ToMany { remote },
    }
}
const fn via(fk: &'static str, parent: &'static str) -> ScopeBy {
    ScopeBy::Via { fk, parent }
}
/// Job rows name what they ran for in `resource_type`/`resource_id`.
const JOB_SCOPE: &[ScopeBy] = &[ScopeBy::Typed {
    type_column: "resource_type",
    id_column: "resource_id",
    targets: &[
        ("canary", "canaries"),
        ("check", "checks"),
        ("topology", "topologies"),
        ("component", "components"),
        ("config", "config_items"),
        ("playbook", "playbooks"),
    ],
}];

const ID: Column = i("id", Uuid);
const CREATED_BY: Column = i("created_by", Uuid);
const CREATED_AT: Column = r("created_at", Timestamp);
const UPDATED_AT: Column = r("updated_at", Timestamp);
const DELETED_AT: Column = w("deleted_at", Timestamp);
const SOURCE: Column = w("source", Text);
const AGENT_ID: Column = w("agent_id", Uuid);
const BY: Embed = one("created_by", "people", "created_by");
const AGENT: Embed = one("agent", "agents", "agent_id");
const JOB_HISTORY: &[Column] = &[
    ID,
    r("agent_id", Uuid),
    r("name", Text),
    r("success_count", Int),
    r("error_count", Int),
    holds_secrets(r("details", Json)),
    r("hostname", Text),
    r("duration_millis", Int),
    r("resource_type", Text),
    r("resource_id", Text),
    r("status", Text),
    r("time_start", Timestamp),
    r("time_end", Timestamp),
    CREATED_AT,
];

const CONFIG_ITEM_COLUMNS: &[Column] = &[
    ID,
    r("agent_id", Uuid),
    r("scraper_id", Uuid),
    r("config_class", Text),
    r("type", Text),
    r("name", Text),
    r("description", Text),
    r("icon", Text),
    r("status", Text),
    r("health", Text),
    r("ready", Bool),
    r("external_id", TextArray),
    r("config", Json),
    r("source", Text),
    r("labels", Json),
    r("tags", Json),
    r("properties", Json),
    r("parent_id", Uuid),
    r("path", Text),
    r("cost_per_minute", Float),
    r("cost_total_1d", Float),
    r("cost_total_7d", Float),
    r("cost_total_30d", Float),
    r("last_scraped_time", Timestamp),
    r("created_by", Uuid),
    CREATED_AT,
    UPDATED_AT,
    r("inserted_at", Timestamp),
    r("deleted_at", Timestamp),
    r("delete_reason", Text),
];
const CONFIG_ITEM_EMBEDS: &[Embed] = &[
    one("parent", "config_items", "parent_id"),
    one("scraper", "config_scrapers", "scraper_id"),
    AGENT,
    BY,
    many("config_changes", "config_changes", "config_id"),
    many("config_analysis", "config_analysis", "config_id"),
    many("components", "components", "config_id"),
];
const CONFIG_SCOPE: &[ScopeBy] = &[ScopeBy::Direct {
    kind: ScopeKind::Config,
    tags: "tags",
    agent: Some("agent_id"),
    name: "name",
}];

pub(crate) static RELATIONS: &[Relation] = &[
    // --- identity -----------------------------------------------------------
    Relation::new(
        "people",
        "database",
        &[
            ID,
            w("name", Text),
            personal(w("email", Text)),
            w("avatar", Text),
            w("team_id", Uuid),
            personal(w("phone", Text)),
            r("type", Text),
            w("properties", Json),
            r("external_id", Text),
            r("roles", TextArray),
            personal(r("last_login", Timestamp)),
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writes("identities")
    .embed_columns(&["id", "name", "email", "avatar"])
    .embeds(&[one("team", "teams", "team_id")]),
    Relation::new(
        "teams",
        "database",
        &[
            ID,
            w("name", Text),
            w("icon", Text),
            holds_secrets(w("spec", Json)),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .grants_rights(RightsGuard::Team)
    .embeds(&[BY, many("team_members", "team_members", "team_id")]),
    Relation::new(
        "team_members",
        "database",
        &[w("team_id", Uuid), w("person_id", Uuid), SOURCE, CREATED_AT],
    )
    .writable()
    .guarded()
    .grants_rights(RightsGuard::TeamMember)
    .embeds(&[
        one("team", "teams", "team_id"),
        one("person", "people", "person_id"),
    ]),
    Relation::new(
        "agents",
        "agents",
        &[
            ID,
            w("name", Text),
            w("description", Text),
            w("hostname", Text),
            w("ip", Text),
            w("version", Text),
            w("username", Text),
            r("person_id", Uuid),
            w("properties", Json),
            r("last_seen", Timestamp),
            r("last_received", Timestamp),
            w("cleanup", Bool),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .embeds(&[one("person", "people", "person_id"), BY]),
    // --- RBAC and scopes ----------------------------------------------------
    Relation::new(
        "permissions",
        "permissions",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            w("description", Text),
            w("subject_type", Text),
            w("subject", Text),
            w("person_id", Uuid),
            w("team_id", Uuid),
            w("notification_id", Uuid),
            w("action", Text),
            w("deny", Bool),
            w("object", Text),
            w("object_selector", Json),
            w("component_id", Uuid),
            w("config_id", Uuid),
            w("canary_id", Uuid),
            w("playbook_id", Uuid),
            w("connection_id", Uuid),
            w("agents", TextArray),
            w("tags", Json),
            w("until", Timestamp),
            r("error", Text),
            SOURCE,
            w("labels", Json),
            CREATED_BY,
            r("updated_by", Uuid),
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .grants_rights(RightsGuard::Permission)
    .scoped(&[
        via("component_id", "components"),
        via("config_id", "config_items"),
        via("canary_id", "canaries"),
        via("playbook_id", "playbooks"),
        via("notification_id", "notifications"),
    ])
    .embeds(&[
        one("person", "people", "person_id"),
        one("team", "teams", "team_id"),
        one("notification", "notifications", "notification_id"),
        BY,
        one("updated_by", "people", "updated_by"),
        one("playbook", "playbooks", "playbook_id"),
        one("canary", "canaries", "canary_id"),
        one("connection", "connections", "connection_id"),
        one("component", "components", "component_id"),
        one("config", "config_items", "config_id"),
    ]),
    Relation::new(
        "permission_groups",
        "permissions",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            w("selectors", Json),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writes("rbac")
    .guarded()
    .embeds(&[BY]),
    Relation::new(
        "access_scopes",
        "access_scopes",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            w("description", Text),
            w("person_id", Uuid),
            w("team_id", Uuid),
            w("resources", TextArray),
            w("scopes", Json),
            SOURCE,
            w("labels", Json),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .validated(Validator::AccessScope)
    .grants_rights(RightsGuard::AccessScope)
    .embeds(&[
        one("person", "people", "person_id"),
        one("team", "teams", "team_id"),
        BY,
    ]),
    // --- settings -----------------------------------------------------------
    Relation::new(
        "properties",
        "feature_flags",
        &[
            i("name", Text),
            w("value", Text),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .writable()
    .embeds(&[BY]),
    Relation::new(
        "connections",
        "connections",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            w("type", Text),
            w("url", Text),
            w("username", Text),
            secret("password", Text),
            secret("certificate", Text),
            w("insecure_tls", Bool),
            holds_secrets(w("properties", Json)),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .embed_columns(&["id", "name", "namespace", "type"])
    .embeds(&[BY]),
    Relation::new(
        "logging_backends",
        "logging_backends",
        &[
            ID,
            AGENT_ID,
            w("name", Text),
            w("labels", Json),
            holds_secrets(w("spec", Json)),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .embeds(&[AGENT, BY]),
    Relation::new(
        "integrations",
        "integrations",
        &[
            ID,
            AGENT_ID,
            w("name", Text),
            w("namespace", Text),
            w("type", Text),
            w("description", Text),
            w("labels", Json),
            holds_secrets(w("spec", Json)),
            r("error", Text),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .embeds(&[AGENT, BY]),
    // Direct and GitOps integrations in one list; written through their own relations.
    Relation::new(
        "integrations_with_status",
        "integrations",
        &[
            r("id", Uuid),
            r("agent_id", Uuid),
            r("name", Text),
            r("namespace", Text),
            r("integration_type", Text),
            r("type", Text),
            r("labels", Json),
            r("source", Text),
            r("error", Text),
            r("created_by", Uuid),
            CREATED_AT,
            UPDATED_AT,
            r("deleted_at", Timestamp),
            r("job_status", Text),
            r("job_time_start", Timestamp),
            r("job_error_count", Int),
            holds_secrets(r("job_details", Json)),
        ],
    )
    .scoped(&[ScopeBy::Typed {
        type_column: "integration_type",
        id_column: "id",
        targets: &[("topology", "topologies")],
    }])
    .embeds(&[AGENT, BY]),
    Relation::new(
        "views",
        "views",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            holds_secrets(w("spec", Json)),
            w("labels", Json),
            r("last_ran", Timestamp),
            r("error", Text),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .embeds(&[BY]),
    Relation::new("job_history", "database", JOB_HISTORY)
        .scoped(JOB_SCOPE)
        .embeds(&[AGENT]),
    // The console's name for the same table.
    Relation::new("job_histories", "database", JOB_HISTORY)
        .table("job_history")
        .scoped(JOB_SCOPE)
        .embeds(&[AGENT]),
    Relation::new("job_history_names", "database", &[r("name", Text)]),
    Relation::new(
        "event_queue",
        "database",
        &[
            ID,
            r("name", Text),
            r("properties", Json),
            r("error", Text),
            r("attempts", Int),
            r("last_attempt", Timestamp),
            r("priority", Int),
            CREATED_AT,
        ],
    )
    .scoped(&[ScopeBy::Hidden]),
    // --- health checks ------------------------------------------------------
    Relation::new(
        "canaries",
        "canaries",
        &[
            ID,
            AGENT_ID,
            w("name", Text),
            w("namespace", Text),
            w("labels", Json),
            w("annotations", Json),
            holds_secrets(w("spec", Json)),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .derives_checks()
    .scoped(&[ScopeBy::Direct {
        kind: ScopeKind::Canary,
        tags: "labels",
        agent: Some("agent_id"),
        name: "name",
    }])
    .embeds(&[many("checks", "checks", "canary_id"), AGENT, BY]),
    Relation::new(
        "checks",
        "canaries",
        &[
            ID,
            r("canary_id", Uuid),
            r("agent_id", Uuid),
            r("type", Text),
            r("name", Text),
            r("namespace", Text),
            r("description", Text),
            r("icon", Text),
            r("endpoint", Text),
            holds_secrets(r("spec", Json)),
            r("labels", Json),
            r("owner", Text),
            r("severity", Text),
            r("transformed", Bool),
            r("status", Text),
            r("last_runtime", Timestamp),
            r("next_runtime", Timestamp),
            r("last_transition_time", Timestamp),
            r("silenced_at", Timestamp),
            CREATED_AT,
            UPDATED_AT,
            r("deleted_at", Timestamp),
        ],
    )
    .scoped(&[via("canary_id", "canaries")])
    .embeds(&[
        one("canary", "canaries", "canary_id"),
        AGENT,
        many("check_statuses", "check_statuses", "check_id"),
    ]),
    Relation::new(
        "check_statuses",
        "canaries",
        &[
            r("check_id", Uuid),
            r("time", Timestamp),
            r("status", Bool),
            r("invalid", Bool),
            r("duration", Int),
            r("message", Text),
            r("error", Text),
            r("details", Json),
            r("severity", Text),
            CREATED_AT,
        ],
    )
    .scoped(&[via("check_id", "checks")])
    .embeds(&[one("check", "checks", "check_id")]),
    Relation::new(
        "check_component_relationships",
        "canaries",
        &[
            r("component_id", Uuid),
            r("check_id", Uuid),
            r("canary_id", Uuid),
            r("selector_id", Text),
            CREATED_AT,
            UPDATED_AT,
            r("deleted_at", Timestamp),
        ],
    )
    .scoped(&[via("check_id", "checks"), via("component_id", "components")])
    .embeds(&[
        one("check", "checks", "check_id"),
        one("component", "components", "component_id"),
    ]),
    Relation::new(
        "check_config_relationships",
        "canaries",
        &[
            r("config_id", Uuid),
            r("check_id", Uuid),
            r("canary_id", Uuid),
            r("selector_id", Text),
            CREATED_AT,
            UPDATED_AT,
            r("deleted_at", Timestamp),
        ],
    )
    .scoped(&[via("check_id", "checks"), via("config_id", "config_items")])
    .embeds(&[
        one("check", "checks", "check_id"),
        one("config", "config_items", "config_id"),
    ]),
    // --- topology -----------------------------------------------------------
    Relation::new(
        "topologies",
        "topologies",
        &[
            ID,
            AGENT_ID,
            w("name", Text),
            w("namespace", Text),
            w("labels", Json),
            holds_secrets(w("spec", Json)),
            w("schedule", Text),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .scoped(&[ScopeBy::AnyChild {
        child: "components",
        remote: "topology_id",
    }])
    .embeds(&[many("components", "components", "topology_id"), AGENT, BY]),
    Relation::new(
        "components",
        "topologies",
        &[
            ID,
            r("agent_id", Uuid),
            r("topology_id", Uuid),
            r("external_id", Text),
            r("parent_id", Uuid),
            r("config_id", Uuid),
            r("name", Text),
            r("text", Text),
            r("namespace", Text),
            r("type", Text),
            r("icon", Text),
            r("owner", Text),
            r("tooltip", Text),
            r("description", Text),
            r("lifecycle", Text),
            r("labels", Json),
            r("hidden", Bool),
            r("status", Text),
            r("health", Text),
            r("status_reason", Text),
            r("selectors", Json),
            r("configs", Json),
            r("log_selectors", Json),
            r("properties", Json),
            r("summary", Json),
            r("path", Text),
            r("created_by", Uuid),
            CREATED_AT,
            UPDATED_AT,
            r("deleted_at", Timestamp),
        ],
    )
    .scoped(&[ScopeBy::Direct {
        kind: ScopeKind::Component,
        tags: "labels",
        agent: Some("agent_id"),
        name: "name",
    }])
    .embeds(&[
        one("topology", "topologies", "topology_id"),
        one("parent", "components", "parent_id"),
        one("config", "config_items", "config_id"),
        AGENT,
        BY,
    ]),
    // --- catalog ------------------------------------------------------------
    Relation::new(
        "config_scrapers",
        "config_scrapers",
        &[
            ID,
            AGENT_ID,
            w("name", Text),
            w("namespace", Text),
            w("description", Text),
            holds_secrets(w("spec", Json)),
            w("labels", Json),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .embeds(&[AGENT, BY]),
    Relation::new("config_items", "database", CONFIG_ITEM_COLUMNS)
        .scoped(CONFIG_SCOPE)
        .embeds(CONFIG_ITEM_EMBEDS),
    Relation::new("configs", "database", CONFIG_ITEM_COLUMNS)
        .table("config_items")
        .scoped(CONFIG_SCOPE)
        .embeds(CONFIG_ITEM_EMBEDS),
    Relation::new(
        "config_changes",
        "database",
        &[
            ID,
            r("config_id", Uuid),
            r("external_change_id", Text),
            r("external_created_by", Text),
            r("created_by", Uuid),
            r("change_type", Text),
            r("severity", Text),
            r("source", Text),
            r("summary", Text),
            r("patches", Json),
            r("diff", Text),
            r("details", Json),
            r("count", Int),
            r("fingerprint", Text),
            r("first_observed", Timestamp),
            CREATED_AT,
        ],
    )
    .scoped(&[via("config_id", "config_items")])
    .embeds(&[one("config", "config_items", "config_id"), BY]),
    Relation::new(
        "config_analysis",
        "database",
        &[
            ID,
            r("config_id", Uuid),
            r("scraper_id", Uuid),
            r("source", Text),
            r("analyzer", Text),
            r("analysis_type", Text),
            r("severity", Text),
            r("summary", Text),
            r("status", Text),
            r("message", Text),
            r("analysis", Json),
            r("first_observed", Timestamp),
            r("last_observed", Timestamp),
            r("created_by", Uuid),
            CREATED_AT,
        ],
    )
    .scoped(&[via("config_id", "config_items")])
    .embeds(&[
        one("config", "config_items", "config_id"),
        one("scraper", "config_scrapers", "scraper_id"),
        BY,
    ]),
    Relation::new(
        "config_component_relationships",
        "database",
        &[
            w("component_id", Uuid),
            w("config_id", Uuid),
            w("selector_id", Text),
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .scoped(&[
        via("config_id", "config_items"),
        via("component_id", "components"),
    ])
    .embeds(&[
        one("config", "config_items", "config_id"),
        one("component", "components", "component_id"),
    ]),
    // --- playbooks ----------------------------------------------------------
    Relation::new(
        "playbooks",
        "playbooks",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            w("title", Text),
            w("icon", Text),
            w("description", Text),
            w("category", Text),
            holds_secrets(w("spec", Json)),
            w("labels", Json),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .scoped(&[ScopeBy::Direct {
        kind: ScopeKind::Playbook,
        tags: "labels",
        agent: None,
        name: "name",
    }])
    .embeds(&[BY, many("playbook_runs", "playbook_runs", "playbook_id")]),
    Relation::new(
        "playbook_runs",
        "playbook_runs",
        &[
            ID,
            r("playbook_id", Uuid),
            r("status", Text),
            holds_secrets(r("spec", Json)),
            r("scheduled_time", Timestamp),
            r("start_time", Timestamp),
            r("end_time", Timestamp),
            r("timeout", BigInt),
            r("created_by", Uuid),
            r("notification_send_id", Uuid),
            r("check_id", Uuid),
            r("config_id", Uuid),
            r("component_id", Uuid),
            r("parameters", Json),
            holds_secrets(r("request", Json)),
            r("agent_id", Uuid),
            r("parent_id", Uuid),
            r("error", Text),
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .scoped(&[
        via("playbook_id", "playbooks"),
        via("check_id", "checks"),
        via("config_id", "config_items"),
        via("component_id", "components"),
    ])
    .embeds(&[
        one("playbook", "playbooks", "playbook_id"),
        BY,
        one("check", "checks", "check_id"),
        one("config", "config_items", "config_id"),
        one("component", "components", "component_id"),
        AGENT,
        one("parent", "playbook_runs", "parent_id"),
        many("children", "playbook_runs", "parent_id"),
        many(
            "playbook_run_actions",
            "playbook_run_actions",
            "playbook_run_id",
        ),
    ]),
    Relation::new(
        "playbook_run_actions",
        "playbook_runs",
        &[
            ID,
            r("playbook_run_id", Uuid),
            r("name", Text),
            r("status", Text),
            r("retry_count", Int),
            r("scheduled_time", Timestamp),
            r("start_time", Timestamp),
            r("end_time", Timestamp),
            r("result", Json),
            r("error", Text),
            r("agent_id", Uuid),
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .scoped(&[via("playbook_run_id", "playbook_runs")])
    .embeds(&[one("run", "playbook_runs", "playbook_run_id"), AGENT]),
    // --- incidents ----------------------------------------------------------
    Relation::new(
        "incident_rules",
        "incident",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            holds_secrets(w("spec", Json)),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .embeds(&[BY]),
    Relation::new(
        "incidents",
        "incident",
        &[
            ID,
            r("incident_id", Text),
            w("incident_rule_id", Uuid),
            w("title", Text),
            w("description", Text),
            w("type", Text),
            w("severity", Text),
            w("status", Text),
            CREATED_BY,
            w("commander_id", Uuid),
            w("communicator_id", Uuid),
            w("acknowledged", Timestamp),
            w("resolved", Timestamp),
            w("closed", Timestamp),
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .writable()
    .embeds(&[
        BY,
        one("commander", "people", "commander_id"),
        one("communicator", "people", "communicator_id"),
        one("incident_rule", "incident_rules", "incident_rule_id"),
        many("hypotheses", "hypotheses", "incident_id"),
        many("responders", "responders", "incident_id"),
        many("comments", "comments", "incident_id"),
        many("incident_histories", "incident_histories", "incident_id"),
    ]),
    Relation::new(
        "hypotheses",
        "incident",
        &[
            ID,
            w("incident_id", Uuid),
            w("parent_id", Uuid),
            w("type", Text),
            w("title", Text),
            w("status", Text),
            w("owner", Uuid),
            w("team_id", Uuid),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .writable()
    .embeds(&[
        one("incident", "incidents", "incident_id"),
        one("parent", "hypotheses", "parent_id"),
        one("owner", "people", "owner"),
        one("team", "teams", "team_id"),
        BY,
        many("evidences", "evidences", "hypothesis_id"),
        many("comments", "comments", "hypothesis_id"),
    ]),
    Relation::new(
        "evidences",
        "evidences",
        &[
            ID,
            w("hypothesis_id", Uuid),
            w("type", Text),
            w("description", Text),
            w("config_id", Uuid),
            w("config_change_id", Uuid),
            w("config_analysis_id", Uuid),
            w("component_id", Uuid),
            w("check_id", Uuid),
            w("evidence", Json),
            w("properties", Json),
            w("definition_of_done", Bool),
            w("done", Bool),
            w("script", Text),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .writable()
    .scoped(&[
        via("config_id", "config_items"),
        via("config_change_id", "config_changes"),
        via("config_analysis_id", "config_analysis"),
        via("component_id", "components"),
        via("check_id", "checks"),
    ])
    .embeds(&[
        one("hypothesis", "hypotheses", "hypothesis_id"),
        one("config", "config_items", "config_id"),
        one("config_change", "config_changes", "config_change_id"),
        one("config_analysis", "config_analysis", "config_analysis_id"),
        one("component", "components", "component_id"),
        one("check", "checks", "check_id"),
        BY,
    ]),
    Relation::new(
        "comments",
        "comments",
        &[
            ID,
            w("incident_id", Uuid),
            w("hypothesis_id", Uuid),
            w("responder_id", Uuid),
            w("comment", Text),
            w("external_id", Text),
            w("external_created_by", Text),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .writable()
    .embeds(&[
        one("incident", "incidents", "incident_id"),
        one("hypothesis", "hypotheses", "hypothesis_id"),
        one("responder", "responders", "responder_id"),
        BY,
    ]),
    Relation::new(
        "responders",
        "responder",
        &[
            ID,
            w("incident_id", Uuid),
            w("type", Text),
            w("person_id", Uuid),
            w("team_id", Uuid),
            w("properties", Json),
            w("external_id", Text),
            w("acknowledged", Timestamp),
            w("resolved", Timestamp),
            w("closed", Timestamp),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .writable()
    .embeds(&[
        one("incident", "incidents", "incident_id"),
        one("person", "people", "person_id"),
        one("team", "teams", "team_id"),
        BY,
    ]),
    Relation::new(
        "incident_histories",
        "incident",
        &[
            ID,
            r("incident_id", Uuid),
            r("type", Text),
            r("description", Text),
            r("hypothesis_id", Uuid),
            r("evidence_id", Uuid),
            r("responder_id", Uuid),
            r("created_by", Uuid),
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .scoped(&[via("evidence_id", "evidences")])
    .embeds(&[
        one("incident", "incidents", "incident_id"),
        one("hypothesis", "hypotheses", "hypothesis_id"),
        one("evidence", "evidences", "evidence_id"),
        one("responder", "responders", "responder_id"),
        BY,
    ]),
    // --- notifications ------------------------------------------------------
    Relation::new(
        "notifications",
        "notifications",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            w("events", TextArray),
            w("title", Text),
            w("template", Text),
            w("filter", Text),
            w("person_id", Uuid),
            w("team_id", Uuid),
            w("playbook_id", Uuid),
            holds_secrets(w("custom_services", Json)),
            holds_secrets(w("properties", Json)),
            w("repeat_interval", Text),
            w("group_by", TextArray),
            w("group_by_interval", BigInt),
            w("wait_for", BigInt),
            w("wait_for_eval_period", BigInt),
            w("inhibitions", Json),
            w("fallback_person_id", Uuid),
            w("fallback_team_id", Uuid),
            w("fallback_playbook_id", Uuid),
            holds_secrets(w("fallback_custom_services", Json)),
            w("fallback_delay", BigInt),
            r("error", Text),
            r("error_at", Timestamp),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .scoped(&[
        via("playbook_id", "playbooks"),
        via("fallback_playbook_id", "playbooks"),
    ])
    .embeds(&[
        one("person", "people", "person_id"),
        one("team", "teams", "team_id"),
        one("playbook", "playbooks", "playbook_id"),
        one("fallback_person", "people", "fallback_person_id"),
        one("fallback_team", "teams", "fallback_team_id"),
        one("fallback_playbook", "playbooks", "fallback_playbook_id"),
        BY,
    ]),
    Relation::new(
        "notification_silences",
        "notifications",
        &[
            ID,
            w("name", Text),
            w("namespace", Text),
            w("description", Text),
            w("filter", Text),
            w("selectors", Json),
            r("error", Text),
            w("from", Timestamp),
            w("until", Timestamp),
            w("recursive", Bool),
            w("config_id", Uuid),
            w("check_id", Uuid),
            w("canary_id", Uuid),
            w("component_id", Uuid),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .scoped(&[
        via("config_id", "config_items"),
        via("check_id", "checks"),
        via("canary_id", "canaries"),
        via("component_id", "components"),
    ])
    .embeds(&[
        one("config", "config_items", "config_id"),
        one("check", "checks", "check_id"),
        one("canary", "canaries", "canary_id"),
        one("component", "components", "component_id"),
        BY,
    ]),
    Relation::new(
        "notification_send_history",
        "notifications",
        &[
            ID,
            r("notification_id", Uuid),
            r("status", Text),
            r("source_event", Text),
            r("resource_id", Uuid),
            r("resource_health", Text),
            r("resource_status", Text),
            r("person_id", Uuid),
            r("playbook_run_id", Uuid),
            r("silenced_by", Uuid),
            r("parent_id", Uuid),
            r("body", Text),
            r("body_payload", Json),
            r("error", Text),
            r("duration_millis", Int),
            r("count", Int),
            r("retries", Int),
            r("not_before", Timestamp),
            r("first_observed", Timestamp),
            CREATED_AT,
        ],
    )
    // `source_event` is `<kind>.<event>`, e.g. `check.failed`.
    .scoped(&[
        ScopeBy::Typed {
            type_column: "source_event",
            id_column: "resource_id",
            targets: &[
                ("check.%", "checks"),
                ("canary.%", "canaries"),
                ("component.%", "components"),
                ("config.%", "config_items"),
            ],
        },
        via("notification_id", "notifications"),
        via("playbook_run_id", "playbook_runs"),
        via("silenced_by", "notification_silences"),
    ])
    .embeds(&[
        one("notification", "notifications", "notification_id"),
        one("person", "people", "person_id"),
        one("playbook_run", "playbook_runs", "playbook_run_id"),
    ]),
];
