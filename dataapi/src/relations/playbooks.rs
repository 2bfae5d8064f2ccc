//! Playbooks, their names, their runs, run actions, approvals and the
//! artifacts run actions kept.

use super::*;

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "playbooks",
        "playbooks",
        &[
            ID,
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
            not_null(w("title", Text)),
            w("icon", Text),
            w("description", Text),
            not_null(w("category", Text)),
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
    .validated(Validator::Playbook)
    .scoped(&[ScopeBy::Direct {
        kind: ScopeKind::Playbook,
        tags: "labels",
        agent: None,
        name: "name",
    }])
    .embeds(&[BY, many("playbook_runs", "playbook_runs", "playbook_id")]),
    // Live playbooks by name, for pickers and filters (migration 0033).
    Relation::new(
        "playbook_names",
        "playbooks",
        &[
            ID,
            not_null(r("name", Text)),
            not_null(r("namespace", Text)),
            not_null(r("title", Text)),
            r("icon", Text),
            not_null(r("category", Text)),
        ],
    )
    .scoped(&[via("id", "playbooks")]),
    Relation::new(
        "playbook_runs",
        "playbook_runs",
        &[
            ID,
            not_null(r("playbook_id", Uuid)),
            not_null(r("status", Text)),
            not_null(holds_secrets(r("spec", Json))),
            not_null(r("scheduled_time", Timestamp)),
            r("start_time", Timestamp),
            r("end_time", Timestamp),
            not_null(r("timeout", BigInt)),
            r("created_by", Uuid),
            r("notification_send_id", Uuid),
            r("check_id", Uuid),
            r("config_id", Uuid),
            r("component_id", Uuid),
            r("parameters", Json),
            holds_secrets(r("request", Json)),
            not_null(r("agent_id", Uuid)),
            r("parent_id", Uuid),
            r("error", Text),
            // The engine's claim: the replica running it and until when.
            r("claimed_by", Text),
            r("lease_until", Timestamp),
            r("cancel_requested_at", Timestamp),
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
        many("approvals", "playbook_approvals", "run_id"),
    ]),
    Relation::new(
        "playbook_run_actions",
        "playbook_runs",
        &[
            ID,
            not_null(r("playbook_run_id", Uuid)),
            not_null(r("name", Text)),
            // The action's place in the run's spec.
            not_null(r("action_index", Int)),
            not_null(r("status", Text)),
            not_null(r("retry_count", Int)),
            not_null(r("scheduled_time", Timestamp)),
            r("start_time", Timestamp),
            r("end_time", Timestamp),
            r("result", Json),
            r("error", Text),
            not_null(r("agent_id", Uuid)),
            r("claimed_by", Text),
            r("lease_until", Timestamp),
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .scoped(&[via("playbook_run_id", "playbook_runs")])
    .embeds(&[
        one("run", "playbook_runs", "playbook_run_id"),
        AGENT,
        many("artifacts", "artifacts", "playbook_run_action_id"),
    ]),
    // Files run actions kept, without their content (GET /api/artifacts/download/{id}).
    Relation::new(
        "artifacts",
        "playbook_runs",
        &[
            ID,
            r("playbook_run_action_id", Uuid),
            r("check_id", Uuid),
            not_null(r("path", Text)),
            not_null(r("filename", Text)),
            not_null(r("size", BigInt)),
            r("content_type", Text),
            r("checksum", Text),
            r("expires_at", Timestamp),
            CREATED_AT,
            r("deleted_at", Timestamp),
        ],
    )
    .scoped(&[
        via("playbook_run_action_id", "playbook_run_actions"),
        via("check_id", "checks"),
    ])
    .embeds(&[one(
        "action",
        "playbook_run_actions",
        "playbook_run_action_id",
    )]),
    Relation::new(
        "playbook_approvals",
        "playbook_runs",
        &[
            ID,
            not_null(r("run_id", Uuid)),
            r("person_id", Uuid),
            r("team_id", Uuid),
            CREATED_AT,
        ],
    )
    .scoped(&[via("run_id", "playbook_runs")])
    .embeds(&[
        one("run", "playbook_runs", "run_id"),
        one("person", "people", "person_id"),
        one("team", "teams", "team_id"),
    ]),
];
