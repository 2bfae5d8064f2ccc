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
    // The views of migration 0029 and the engine's team links: each row is
    // visible iff its component is.
    Relation::new(
        "component_names",
        "topologies",
        &[
            ID,
            not_null(r("name", Text)),
            r("type", Text),
            r("icon", Text),
            r("topology_id", Uuid),
            r("parent_id", Uuid),
        ],
    )
    .scoped(&[via("id", "components")]),
    Relation::new(
        "component_labels",
        "topologies",
        &[
            not_null(r("component_id", Uuid)),
            not_null(r("key", Text)),
            not_null(r("value", Text)),
        ],
    )
    .scoped(&[via("component_id", "components")]),
    Relation::new(
        "components_with_logs",
        "topologies",
        &[
            ID,
            not_null(r("name", Text)),
            r("type", Text),
            r("icon", Text),
            r("log_selectors", Json),
        ],
    )
    .scoped(&[via("id", "components")]),
    Relation::new(
        "checks_by_component",
        "topologies",
        &[
            not_null(r("component_id", Uuid)),
            ID,
            not_null(r("type", Text)),
            not_null(r("name", Text)),
            r("icon", Text),
            r("severity", Text),
            r("status", Text),
            not_null(r("canary_id", Uuid)),
        ],
    )
    .scoped(&[
        via("component_id", "components"),
        via("canary_id", "canaries"),
    ])
    .embeds(&[one("component", "components", "component_id")]),
    Relation::new(
        "team_components",
        "topologies",
        &[
            not_null(r("team_id", Uuid)),
            not_null(r("component_id", Uuid)),
            r("role", Text),
            r("selector_id", Text),
            CREATED_AT,
        ],
    )
    .scoped(&[via("component_id", "components")])
    .embeds(&[
        one("team", "teams", "team_id"),
        one("component", "components", "component_id"),
    ]),
];
