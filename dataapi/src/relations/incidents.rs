//! Incident rules, incidents and what hangs off them (hypotheses, evidence, comments, responders, history).

use super::*;

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "incident_rules",
        "incident",
        &[
            ID,
            not_null(w("name", Text)),
            not_null(w("namespace", Text)),
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
    .embeds(&[BY]),
    Relation::new(
        "incidents",
        "incident",
        &[
            ID,
            not_null(r("incident_id", Text)),
            w("incident_rule_id", Uuid),
            not_null(w("title", Text)),
            not_null(w("description", Text)),
            not_null(w("type", Text)),
            not_null(w("severity", Text)),
            not_null(w("status", Text)),
            not_null(CREATED_BY),
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
            not_null(w("incident_id", Uuid)),
            w("parent_id", Uuid),
            not_null(w("type", Text)),
            not_null(w("title", Text)),
            not_null(w("status", Text)),
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
            not_null(w("hypothesis_id", Uuid)),
            not_null(w("type", Text)),
            not_null(w("description", Text)),
            w("config_id", Uuid),
            w("config_change_id", Uuid),
            w("config_analysis_id", Uuid),
            w("component_id", Uuid),
            w("check_id", Uuid),
            w("evidence", Json),
            w("properties", Json),
            not_null(w("definition_of_done", Bool)),
            not_null(w("done", Bool)),
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
            not_null(w("incident_id", Uuid)),
            w("hypothesis_id", Uuid),
            w("responder_id", Uuid),
            not_null(w("comment", Text)),
            w("external_id", Text),
            w("external_created_by", Text),
            not_null(CREATED_BY),
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
            not_null(w("incident_id", Uuid)),
            not_null(w("type", Text)),
            w("person_id", Uuid),
            w("team_id", Uuid),
            w("properties", Json),
            w("external_id", Text),
            w("acknowledged", Timestamp),
            w("resolved", Timestamp),
            w("closed", Timestamp),
            not_null(CREATED_BY),
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
            not_null(r("incident_id", Uuid)),
            not_null(r("type", Text)),
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
];
