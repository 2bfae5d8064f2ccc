//! Settings: properties, connections, logging backends, integrations, views, job history and the event queue.

use super::*;

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

const JOB_HISTORY: &[Column] = &[
    ID,
    not_null(r("agent_id", Uuid)),
    not_null(r("name", Text)),
    not_null(r("success_count", Int)),
    not_null(r("error_count", Int)),
    holds_secrets(r("details", Json)),
    r("hostname", Text),
    r("duration_millis", Int),
    r("resource_type", Text),
    r("resource_id", Text),
    not_null(r("status", Text)),
    not_null(r("time_start", Timestamp)),
    r("time_end", Timestamp),
    CREATED_AT,
];

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "properties",
        "feature_flags",
        &[
            not_null(i("name", Text)),
            not_null(w("value", Text)),
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
            not_null(r("name", Text)),
            not_null(r("namespace", Text)),
            not_null(r("type", Text)),
            r("url", Text),
            r("username", Text),
            secret("password", Text),
            secret("certificate", Text),
            not_null(r("insecure_tls", Bool)),
            not_null(holds_secrets(r("properties", Json))),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    // Written only through /api/connections, which validates each type's
    // fields and encrypts secret values.
    .guarded()
    .embed_columns(&["id", "name", "namespace", "type"])
    .embeds(&[BY]),
    Relation::new(
        "logging_backends",
        "logging_backends",
        &[
            ID,
            AGENT_ID,
            not_null(w("name", Text)),
            not_null(w("labels", Json)),
            not_null(holds_secrets(w("spec", Json))),
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
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            not_null(w("type", Text)),
            w("description", Text),
            not_null(w("labels", Json)),
            not_null(holds_secrets(w("spec", Json))),
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
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            not_null(holds_secrets(w("spec", Json))),
            not_null(w("labels", Json)),
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
            not_null(r("name", Text)),
            r("properties", Json),
            r("error", Text),
            not_null(r("attempts", Int)),
            r("last_attempt", Timestamp),
            not_null(r("priority", Int)),
            CREATED_AT,
        ],
    )
    .scoped(&[ScopeBy::Hidden]),
];
