//! Permission rules, permission groups and access scopes: the rows that hand out rights.

use super::*;

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "permissions",
        "permissions",
        &[
            ID,
            w("name", Text),
            not_null(w("namespace", Text)),
            w("description", Text),
            not_null(w("subject_type", Text)),
            w("subject", Text),
            w("person_id", Uuid),
            w("team_id", Uuid),
            w("notification_id", Uuid),
            not_null(w("action", Text)),
            not_null(w("deny", Bool)),
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
            not_null(w("labels", Json)),
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
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            not_null(w("selectors", Json)),
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
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            w("description", Text),
            w("person_id", Uuid),
            w("team_id", Uuid),
            not_null(w("resources", TextArray)),
            not_null(w("scopes", Json)),
            SOURCE,
            not_null(w("labels", Json)),
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
];
