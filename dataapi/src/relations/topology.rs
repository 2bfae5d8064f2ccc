//! Topologies and their components.

use super::*;

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "topologies",
        "topologies",
        &[
            ID,
            AGENT_ID,
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            not_null(w("labels", Json)),
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
            not_null(r("agent_id", Uuid)),
            r("topology_id", Uuid),
            r("external_id", Text),
            r("parent_id", Uuid),
            r("config_id", Uuid),
            not_null(r("name", Text)),
            r("text", Text),
            r("namespace", Text),
            r("type", Text),
            r("icon", Text),
            r("owner", Text),
            r("tooltip", Text),
            r("description", Text),
            r("lifecycle", Text),
            not_null(r("labels", Json)),
            not_null(r("hidden", Bool)),
            not_null(r("status", Text)),
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
];
