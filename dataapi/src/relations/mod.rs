//! The relations of the console's data API, with the columns of the
//! migrations. RBAC resources follow the role matrix of `quarterdeck_store::rbac`.
//!
//! Decisions worth knowing:
//! - `people` is read as `database` (everyone signed in needs names for
//!   `created_by` and pickers) and written as `identities`; `password_hash`
//!   is not registered, and `roles`, `type`, `external_id`, `last_login` are
//!   read-only (roles change through the RBAC endpoints). Embedded people
//!   show only `id, name, email, avatar`.
//! - `connections.password` and `.certificate` are write-only secrets;
//!   embedded connections show only `id, name, namespace, type`.
//! - `access_tokens`, `sessions`, `invites` (and the sign-in tables) are not
//!   registered at all.
//! - Rows derived by the system (checks, components, config items, changes,
//!   analyses, runs, job history, events) are read-only here.
//! - `permissions`, `access_scopes`, `team_members` and `teams` hand out
//!   rights: their writes are held to the caller's own (`rights.rs`).
//!   Permission groups are written as `rbac` (admins only).
//! - Scope restrictions follow the foreign keys: a check is visible iff its
//!   canary is, a config change or analysis iff its config item is, a
//!   playbook run, notification, permission, silence, evidence or incident
//!   history entry iff everything scoped it points at is (a run's playbook
//!   and the check, config item or component it ran on; a notification's
//!   playbooks), and so on. A topology is visible iff one of its components
//!   is; job history and notification send history follow the resource they
//!   name (rows naming nothing scopes follow, such as the check engine's own
//!   runs, are hidden from restricted callers), send history also the
//!   notification, run and silence it points at; the event queue is hidden
//!   from restricted callers. See docs/decisions.md.
//! - Person contact details are shown to admins and the person only; JSON
//!   columns marked `holds_secrets` are redacted for non-writers.

mod catalog;
mod health;
mod identity;
mod incidents;
mod notifications;
mod playbooks;
mod rbac;
mod settings;
mod topology;

use crate::schema::{
    Access, Column, ColumnType, ColumnType::*, Embed, Join, Relation, Reveal, RightsGuard, ScopeBy,
    ScopeKind, Validator,
};

const fn col(name: &'static str, ty: ColumnType, access: Access) -> Column {
    Column {
        name,
        ty,
        access,
        reveal: Reveal::Everyone,
        nullable: true,
    }
}
/// A `NOT NULL` column.
const fn not_null(column: Column) -> Column {
    Column {
        nullable: false,
        ..column
    }
}
/// A JSON column that may hold credentials: redacted for non-writers.
const fn holds_secrets(column: Column) -> Column {
    Column {
        reveal: Reveal::Writers,
        ..column
    }
}
/// A person's contact details: admins and the person only.
const fn personal(column: Column) -> Column {
    Column {
        reveal: Reveal::SelfAndAdmins,
        ..column
    }
}
/// Counts across relations: callers access scopes restrict get null.
const fn unrestricted(column: Column) -> Column {
    Column {
        reveal: Reveal::Unrestricted,
        nullable: true,
        ..column
    }
}
/// Read-only.
const fn r(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::Read)
}
/// Read and written.
const fn w(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::ReadWrite)
}
/// Written on POST only.
const fn i(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::Insert)
}
/// Written, never read.
const fn secret(name: &'static str, ty: ColumnType) -> Column {
    col(name, ty, Access::Secret)
}
const fn one(name: &'static str, target: &'static str, local: &'static str) -> Embed {
    Embed {
        name,
        target,
        join: Join::ToOne { local },
    }
}
const fn many(name: &'static str, target: &'static str, remote: &'static str) -> Embed {
    Embed {
        name,
        target,
        join: Join::ToMany { remote },
    }
}
const fn via(fk: &'static str, parent: &'static str) -> ScopeBy {
    ScopeBy::Via { fk, parent }
}

const ID: Column = not_null(i("id", Uuid));
const CREATED_BY: Column = i("created_by", Uuid);
const CREATED_AT: Column = not_null(r("created_at", Timestamp));
const UPDATED_AT: Column = not_null(r("updated_at", Timestamp));
const DELETED_AT: Column = w("deleted_at", Timestamp);
const SOURCE: Column = not_null(w("source", Text));
const AGENT_ID: Column = not_null(w("agent_id", Uuid));
const BY: Embed = one("created_by", "people", "created_by");
const AGENT: Embed = one("agent", "agents", "agent_id");

/// Every relation of the console, by domain.
pub(crate) fn all() -> impl Iterator<Item = &'static Relation> {
    [
        identity::RELATIONS,
        rbac::RELATIONS,
        settings::RELATIONS,
        health::RELATIONS,
        topology::RELATIONS,
        catalog::RELATIONS,
        playbooks::RELATIONS,
        incidents::RELATIONS,
        notifications::RELATIONS,
    ]
    .into_iter()
    .flatten()
}
