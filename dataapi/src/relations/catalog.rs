//! The catalog: scrapers, config items and the views over them, their
//! changes and analyses, and their relations to components.

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

/// `configs`: the list, without the scraped document.
const CONFIG_LIST_COLUMNS: &[Column] = &[
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
/// `config_detail`: the item, its agent's name, its scraper (id, name,
/// namespace) and the counts of what hangs off it (null for callers access
/// scopes restrict: the counts are not recounted per caller).
const CONFIG_DETAIL_COLUMNS: &[Column] = &{
    let mut columns = [ID; CONFIG_ITEM_COLUMNS.len() + 3];
    let mut i = 0;
    while i < CONFIG_ITEM_COLUMNS.len() {
        columns[i] = CONFIG_ITEM_COLUMNS[i];
        i += 1;
    }
    columns[i] = r("agent_name", Text);
    columns[i + 1] = unrestricted(r("summary", Json));
    columns[i + 2] = r("scraper", Json);
    columns
};
/// One row per tag (`tag` = `key=value`) or label of a live item.
const ITEM_TAG_COLUMNS: [[Column; 4]; 2] = [
    [
        not_null(r("config_id", Uuid)),
        not_null(r("key", Text)),
        not_null(r("value", Text)),
        not_null(r("tag", Text)),
    ],
    [
        not_null(r("config_id", Uuid)),
        not_null(r("key", Text)),
        not_null(r("value", Text)),
        not_null(r("label", Text)),
    ],
];
/// The distinct tags or labels: `id` is `key=value`.
const KEY_VALUE_COLUMNS: &[Column] = &[
    not_null(r("id", Text)),
    not_null(r("key", Text)),
    not_null(r("value", Text)),
];

/// Rows through a config-component link: visible iff both ends are.
const COMPONENT_LINK_SCOPE: &[ScopeBy] = &[
    via("config_id", "config_items"),
    via("component_id", "components"),
];

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
    Relation::new("configs", "database", CONFIG_LIST_COLUMNS)
        .rows_of("config_items")
        .scoped(CONFIG_SCOPE)
        .embeds(CONFIG_ITEM_EMBEDS),
    Relation::new("config_detail", "database", CONFIG_DETAIL_COLUMNS)
        .rows_of("config_items")
        .scoped(CONFIG_SCOPE)
        .embeds(&[
            one("parent", "config_items", "parent_id"),
            AGENT,
            BY,
            many("config_changes", "config_changes", "config_id"),
            many("config_analysis", "config_analysis", "config_id"),
            many("components", "components", "config_id"),
        ]),
    Relation::new(
        "config_names",
        "database",
        &[
            ID,
            not_null(r("agent_id", Uuid)),
            r("name", Text),
            not_null(r("type", Text)),
            not_null(r("config_class", Text)),
            not_null(r("tags", Json)),
            r("deleted_at", Timestamp),
        ],
    )
    .scoped(CONFIG_SCOPE),
    Relation::new("config_item_tags", "database", &ITEM_TAG_COLUMNS[0])
        .scoped(&[via("config_id", "config_items")]),
    Relation::new("config_item_labels", "database", &ITEM_TAG_COLUMNS[1])
        .scoped(&[via("config_id", "config_items")]),
    Relation::new("config_tags", "database", KEY_VALUE_COLUMNS).scoped(&[ScopeBy::AnyChild {
        child: "config_item_tags",
        remote: "tag",
    }]),
    Relation::new("config_labels", "database", KEY_VALUE_COLUMNS).scoped(&[ScopeBy::AnyChild {
        child: "config_item_labels",
        remote: "label",
    }]),
    // The distinct values (`id` = the value): a value is listed to those who see a row carrying it.
    Relation::new(
        "config_types",
        "database",
        &[not_null(r("id", Text)), not_null(r("type", Text))],
    )
    .scoped(&[ScopeBy::AnyChild {
        child: "config_items",
        remote: "type",
    }]),
    // The distinct values (`id` = the value): a value is listed to those who see a row carrying it.
    Relation::new(
        "config_statuses",
        "database",
        &[not_null(r("id", Text)), not_null(r("status", Text))],
    )
    .scoped(&[ScopeBy::AnyChild {
        child: "config_items",
        remote: "status",
    }]),
    // The distinct values (`id` = the value): a value is listed to those who see a row carrying it.
    Relation::new(
        "config_analysis_analyzers",
        "database",
        &[not_null(r("id", Text)), not_null(r("analyzer", Text))],
    )
    .scoped(&[ScopeBy::AnyChild {
        child: "config_analysis",
        remote: "analyzer",
    }]),
    // The distinct values (`id` = the value): a value is listed to those who see a row carrying it.
    Relation::new(
        "change_types",
        "database",
        &[not_null(r("id", Text)), not_null(r("change_type", Text))],
    )
    .scoped(&[ScopeBy::AnyChild {
        child: "config_changes",
        remote: "change_type",
    }]),
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
            // Links made here are manual (the column's default); selectors write their own.
            r("selector_id", Text),
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .scoped(COMPONENT_LINK_SCOPE)
    .embeds(&[
        one("config", "config_items", "config_id"),
        one("component", "components", "component_id"),
    ]),
    Relation::new(
        "config_analysis_items",
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
            CREATED_AT,
            r("config_name", Text),
            not_null(r("config_type", Text)),
            not_null(r("config_class", Text)),
            not_null(r("config_tags", Json)),
            r("config_deleted_at", Timestamp),
        ],
    )
    .scoped(&[via("config_id", "config_items")])
    .embeds(&[one("config", "config_items", "config_id")]),
    Relation::new(
        "analysis_by_component",
        "database",
        &[
            ID,
            not_null(r("component_id", Uuid)),
            not_null(r("config_id", Uuid)),
            not_null(r("analyzer", Text)),
            r("analysis_type", Text),
            r("severity", Text),
            r("summary", Text),
            not_null(r("status", Text)),
            r("message", Text),
            not_null(r("first_observed", Timestamp)),
            r("last_observed", Timestamp),
            CREATED_AT,
            r("config_name", Text),
            not_null(r("config_type", Text)),
        ],
    )
    .scoped(COMPONENT_LINK_SCOPE),
    Relation::new(
        "changes_by_component",
        "database",
        &[
            ID,
            not_null(r("component_id", Uuid)),
            not_null(r("config_id", Uuid)),
            r("change_type", Text),
            r("severity", Text),
            r("source", Text),
            r("summary", Text),
            not_null(r("count", Int)),
            not_null(r("first_observed", Timestamp)),
            CREATED_AT,
            r("external_created_by", Text),
            r("created_by", Uuid),
            r("config_name", Text),
            not_null(r("config_type", Text)),
        ],
    )
    .scoped(COMPONENT_LINK_SCOPE),
];
