//! People, teams, team membership and agents.

use super::*;

pub(super) static RELATIONS: &[Relation] = &[
    Relation::new(
        "people",
        "database",
        &[
            ID,
            not_null(w("name", Text)),
            personal(w("email", Text)),
            w("avatar", Text),
            w("team_id", Uuid),
            personal(w("phone", Text)),
            r("type", Text),
            w("properties", Json),
            r("external_id", Text),
            not_null(r("roles", TextArray)),
            personal(r("last_login", Timestamp)),
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writes("identities")
    .embed_columns(&["id", "name", "email", "avatar"])
    .embeds(&[one("team", "teams", "team_id")]),
    Relation::new(
        "teams",
        "database",
        &[
            ID,
            not_null(w("name", Text)),
            w("icon", Text),
            holds_secrets(w("spec", Json)),
            SOURCE,
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .guarded()
    .grants_rights(RightsGuard::Team)
    .embeds(&[BY, many("team_members", "team_members", "team_id")]),
    Relation::new(
        "team_members",
        "database",
        &[
            not_null(w("team_id", Uuid)),
            not_null(w("person_id", Uuid)),
            SOURCE,
            CREATED_AT,
        ],
    )
    .writable()
    .guarded()
    .grants_rights(RightsGuard::TeamMember)
    .embeds(&[
        one("team", "teams", "team_id"),
        one("person", "people", "person_id"),
    ]),
    Relation::new(
        "agents",
        "agents",
        &[
            ID,
            not_null(w("name", Text)),
            w("description", Text),
            w("hostname", Text),
            w("ip", Text),
            w("version", Text),
            w("username", Text),
            r("person_id", Uuid),
            w("properties", Json),
            r("last_seen", Timestamp),
            r("last_received", Timestamp),
            not_null(w("cleanup", Bool)),
            CREATED_BY,
            CREATED_AT,
            UPDATED_AT,
            DELETED_AT,
        ],
    )
    .writable()
    .embeds(&[one("person", "people", "person_id"), BY]),
];
