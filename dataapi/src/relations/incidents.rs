//! Incident rules, incidents and what hangs off them (hypotheses, evidence, comments, responders, history).

use super::*;

/// A caller access scopes restrict sees an incident when one of the resources
/// its evidences link is visible to it (decision 86.8).
const INCIDENT_SCOPE: &[ScopeBy] = &[ScopeBy::AnyChild {
    child: "incident_resources",
    remote: "incident_id",
}];

/// The columns of the per-resource views: an incident's header and the
/// resource its evidence links.
const fn incident_header_and(resource: Column) -> [Column; 8] {
    [
        not_null(r("id", Uuid)),
        not_null(r("incident_id", Text)),
        not_null(r("title", Text)),
        not_null(r("type", Text)),
        not_null(r("severity", Text)),
        not_null(r("status", Text)),
        CREATED_AT,
        resource,
    ]
}
const BY_COMPONENT: [Column; 8] = incident_header_and(not_null(r("component_id", Uuid)));
const BY_CONFIG: [Column; 8] = incident_header_and(not_null(r("config_id", Uuid)));

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
    .validated(Validator::IncidentRule)
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
            r("acknowledged", Timestamp),
            r("resolved", Timestamp),
            r("closed", Timestamp),
            CREATED_AT,
            UPDATED_AT,
        ],
    )
    .writable()
    .scoped(INCIDENT_SCOPE)
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
    .scoped(&[via("incident_id", "incidents")])
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
        via("hypothesis_id", "hypotheses"),
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
    .scoped(&[via("incident_id", "incidents")])
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
    .scoped(&[via("incident_id", "incidents")])
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
    .scoped(&[
        via("incident_id", "incidents"),
        via("evidence_id", "evidences"),
    ])
    .embeds(&[
        one("incident", "incidents", "incident_id"),
        one("hypothesis", "hypotheses", "hypothesis_id"),
        one("evidence", "evidences", "evidence_id"),
        one("responder", "responders", "responder_id"),
        BY,
    ]),
    Relation::new(
        "incident_resources",
        "incident",
        &[
            not_null(r("incident_id", Uuid)),
            not_null(r("hypothesis_id", Uuid)),
            not_null(r("evidence_id", Uuid)),
            r("config_id", Uuid),
            r("config_change_id", Uuid),
            r("config_analysis_id", Uuid),
            r("component_id", Uuid),
            r("check_id", Uuid),
        ],
    )
    .scoped(&[
        via("config_id", "config_items"),
        via("config_change_id", "config_changes"),
        via("config_analysis_id", "config_analysis"),
        via("component_id", "components"),
        via("check_id", "checks"),
    ])
    .embeds(&[
        one("incident", "incidents", "incident_id"),
        one("evidence", "evidences", "evidence_id"),
    ]),
    Relation::new(
        "incident_summary",
        "incident",
        &[
            not_null(r("id", Uuid)),
            not_null(r("incident_id", Text)),
            not_null(r("title", Text)),
            not_null(r("description", Text)),
            not_null(r("type", Text)),
            not_null(r("severity", Text)),
            not_null(r("status", Text)),
            r("incident_rule_id", Uuid),
            not_null(r("created_by", Uuid)),
            r("commander_id", Uuid),
            r("commander", Text),
            r("communicator_id", Uuid),
            r("communicator", Text),
            r("acknowledged", Timestamp),
            r("resolved", Timestamp),
            r("closed", Timestamp),
            CREATED_AT,
            UPDATED_AT,
            not_null(r("hypotheses", BigInt)),
            // Evidences may link resources the caller does not see.
            unrestricted(r("evidences", BigInt)),
            not_null(r("responders", BigInt)),
            not_null(r("comments", BigInt)),
            not_null(r("age_seconds", BigInt)),
        ],
    )
    .scoped(&[via("id", "incidents")])
    .embeds(&[
        one("commander_person", "people", "commander_id"),
        one("communicator_person", "people", "communicator_id"),
    ]),
    Relation::new("incidents_by_component", "incident", &BY_COMPONENT)
        .scoped(&[via("id", "incidents"), via("component_id", "components")])
        .embeds(&[
            one("incident", "incidents", "id"),
            one("component", "components", "component_id"),
        ]),
    Relation::new("incidents_by_config", "incident", &BY_CONFIG)
        .scoped(&[via("id", "incidents"), via("config_id", "config_items")])
        .embeds(&[
            one("incident", "incidents", "id"),
            one("config", "config_items", "config_id"),
        ]),
];
