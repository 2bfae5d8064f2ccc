//! The catalog: scrapers, config items, their changes and analyses, and their relations to components.

use super::*;

const CONFIG_ITEM_COLUMNS: &[Column] = &[
    ID,
    not_null(r("agent_id", Uuid)),
    r("scraper_id", Uuid),
    not_null(r("config_class", Text)),
    not_null(r("type", Text)),
    r("name", Text),
    r("description", Text),
    r("icon", Text),
    r("status", Text),
    r("health", Text),
    r("ready", Bool),
    r("external_id", TextArray),
    r("config", Json),
    r("source", Text),
    not_null(r("labels", Json)),
    not_null(r("tags", Json)),
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
    not_null(r("inserted_at", Timestamp)),
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

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "config_scrapers",
        "config_scrapers",
        &[
            ID,
            AGENT_ID,
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            w("description", Text),
            not_null(holds_secrets(w("spec", Json))),
            not_null(w("labels", Json)),
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
            not_null(r("config_id", Uuid)),
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
            not_null(r("count", Int)),
            r("fingerprint", Text),
            not_null(r("first_observed", Timestamp)),
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
            not_null(r("config_id", Uuid)),
            r("scraper_id", Uuid),
            r("source", Text),
            not_null(r("analyzer", Text)),
            r("analysis_type", Text),
            r("severity", Text),
            r("summary", Text),
            not_null(r("status", Text)),
            r("message", Text),
            r("analysis", Json),
            not_null(r("first_observed", Timestamp)),
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
            not_null(w("component_id", Uuid)),
            not_null(w("config_id", Uuid)),
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
];
