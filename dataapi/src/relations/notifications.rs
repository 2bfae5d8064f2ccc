//! Notifications, silences and the send history.

use super::*;

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "notifications",
        "notifications",
        &[
            ID,
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            not_null(w("events", TextArray)),
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
    .validated(Validator::Notification)
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
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            w("description", Text),
            w("filter", Text),
            w("selectors", Json),
            r("error", Text),
            w("from", Timestamp),
            w("until", Timestamp),
            not_null(w("recursive", Bool)),
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
    .validated(Validator::NotificationSilence)
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
            not_null(r("notification_id", Uuid)),
            r("status", Text),
            not_null(r("source_event", Text)),
            not_null(r("resource_id", Uuid)),
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
            not_null(r("count", Int)),
            not_null(r("retries", Int)),
            r("not_before", Timestamp),
            // The groupBy values the send was grouped by (decision 89.5).
            r("group_key", Text),
            not_null(r("first_observed", Timestamp)),
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
    Relation::new(
        "notifications_summary",
        "notifications",
        &[
            not_null(r("id", Uuid)),
            not_null(r("name", Text)),
            not_null(r("namespace", Text)),
            not_null(r("events", TextArray)),
            r("title", Text),
            r("filter", Text),
            r("person_id", Uuid),
            r("team_id", Uuid),
            r("playbook_id", Uuid),
            r("repeat_interval", Text),
            r("group_by", TextArray),
            r("wait_for", BigInt),
            not_null(r("source", Text)),
            r("error", Text),
            r("error_at", Timestamp),
            r("created_by", Uuid),
            CREATED_AT,
            UPDATED_AT,
            not_null(r("recipients", TextArray)),
            // Sends may be about resources the caller does not see.
            unrestricted(r("sent", BigInt)),
            unrestricted(r("failed", BigInt)),
            unrestricted(r("pending", BigInt)),
            unrestricted(r("silenced", BigInt)),
            unrestricted(r("last_sent", Timestamp)),
            unrestricted(r("last_failed", Timestamp)),
        ],
    )
    .scoped(&[via("id", "notifications")])
    .embeds(&[
        one("notification", "notifications", "id"),
        one("person", "people", "person_id"),
        one("team", "teams", "team_id"),
        one("playbook", "playbooks", "playbook_id"),
        BY,
    ]),
    Relation::new(
        "notification_send_history_summary",
        "notifications",
        &[
            not_null(r("id", Uuid)),
            not_null(r("notification_id", Uuid)),
            not_null(r("notification_name", Text)),
            not_null(r("notification_namespace", Text)),
            r("status", Text),
            not_null(r("source_event", Text)),
            not_null(r("resource_id", Uuid)),
            not_null(r("resource_kind", Text)),
            r("resource_name", Text),
            r("resource_type", Text),
            r("resource_deleted_at", Timestamp),
            r("resource_health", Text),
            r("resource_status", Text),
            r("person_id", Uuid),
            r("playbook_run_id", Uuid),
            r("recipient", Text),
            r("silenced_by", Uuid),
            r("silenced_by_name", Text),
            r("error", Text),
            not_null(r("count", Int)),
            not_null(r("retries", Int)),
            not_null(r("first_observed", Timestamp)),
            CREATED_AT,
        ],
    )
    .scoped(&[via("id", "notification_send_history")])
    .embeds(&[
        one("notification", "notifications", "notification_id"),
        one("person", "people", "person_id"),
        one("playbook_run", "playbook_runs", "playbook_run_id"),
        one("silence", "notification_silences", "silenced_by"),
    ]),
];
