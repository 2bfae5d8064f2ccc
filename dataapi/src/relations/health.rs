//! Health checks: canaries, their checks, check statuses and what checks relate to.

use super::*;

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "canaries",
        "canaries",
        &[
            ID,
            AGENT_ID,
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            not_null(w("labels", Json)),
            w("annotations", Json),
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
            not_null(r("canary_id", Uuid)),
            not_null(r("agent_id", Uuid)),
            not_null(r("type", Text)),
            not_null(r("name", Text)),
            r("namespace", Text),
            r("description", Text),
            r("icon", Text),
            r("endpoint", Text),
            holds_secrets(r("spec", Json)),
            not_null(r("labels", Json)),
            r("owner", Text),
            r("severity", Text),
            not_null(r("transformed", Bool)),
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
            not_null(r("check_id", Uuid)),
            not_null(r("time", Timestamp)),
            not_null(r("status", Bool)),
            not_null(r("invalid", Bool)),
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
            not_null(r("component_id", Uuid)),
            not_null(r("check_id", Uuid)),
            not_null(r("canary_id", Uuid)),
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
            not_null(r("config_id", Uuid)),
            not_null(r("check_id", Uuid)),
            not_null(r("canary_id", Uuid)),
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
];
