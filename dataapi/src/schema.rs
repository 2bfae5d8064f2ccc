//! The allow-list: which relations and columns the data API exposes, how
//! they may be written, how they embed each other and which access scopes
//! restrict them. Every identifier that reaches SQL comes from here.

use quarterdeck_store::rbac::Resource;

use super::relations;
pub use super::rights::RightsGuard;

/// The relations of the console's data API (`relations::all`).
#[derive(Debug)]
pub struct Schema(());

static CONSOLE: Schema = Schema(());

impl Schema {
    /// The registry `GET/POST/PATCH/DELETE /api/db/{relation}` serves.
    pub fn console() -> &'static Schema {
        &CONSOLE
    }

    pub fn relation(&self, name: &str) -> Option<&Relation> {
        relations::all().find(|r| r.name == name)
    }

    pub fn relations(&self) -> impl Iterator<Item = &'static Relation> + use<> {
        relations::all()
    }
}

/// The PostgreSQL type of a column, which decides the casts and operators used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Uuid,
    Text,
    Int,
    BigInt,
    Float,
    Bool,
    Timestamp,
    Json,
    TextArray,
}

impl ColumnType {
    /// Whether a value can be a document of any size.
    pub(crate) fn is_document(self) -> bool {
        matches!(self, ColumnType::Json | ColumnType::TextArray)
    }

    /// The SQL type name used to cast a text parameter to this type.
    pub(crate) fn sql(self) -> &'static str {
        match self {
            ColumnType::Uuid => "uuid",
            ColumnType::Text => "text",
            ColumnType::Int => "integer",
            ColumnType::BigInt => "bigint",
            ColumnType::Float => "double precision",
            ColumnType::Bool => "boolean",
            ColumnType::Timestamp => "timestamptz",
            ColumnType::Json => "jsonb",
            ColumnType::TextArray => "text[]",
        }
    }
}

/// What the data API may do with a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read, filter and order only.
    Read,
    /// Also set on POST (e.g. `id`, `created_by`), never on PATCH.
    Insert,
    /// Read and written.
    ReadWrite,
    /// A secret: written, never read, filtered, ordered or embedded.
    Secret,
}

/// Who sees a readable column's value. Others get a masked value, in the
/// output and in every filter and order, so they cannot probe it either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveal {
    Everyone,
    /// A JSON value that may hold credentials: shown whole to those who may
    /// write the relation's [`Relation::write_resource`], to others with
    /// credentials replaced (`quarterdeck_redact`, migration 0019).
    Writers,
    /// Personal details of a person: shown to admins and to the person whose
    /// row it is (`id`), null to others.
    SelfAndAdmins,
    /// A value computed over rows of other relations that access scopes
    /// would filter one by one (counts of what hangs off an item): shown to
    /// callers no access scope restricts, null to others, so a count never
    /// tells of rows the caller cannot see.
    Unrestricted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub ty: ColumnType,
    pub access: Access,
    pub reveal: Reveal,
    /// Whether the column may hold NULL (for a view: whether the registry
    /// says so; PostgreSQL does not know).
    pub nullable: bool,
}

impl Column {
    pub fn readable(&self) -> bool {
        self.access != Access::Secret
    }

    pub fn insertable(&self) -> bool {
        self.access != Access::Read
    }

    pub fn updatable(&self) -> bool {
        matches!(self.access, Access::ReadWrite | Access::Secret)
    }
}

/// How an embedded relation joins its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// Many-to-one: `target.id = parent.<local>`.
    ToOne { local: &'static str },
    /// One-to-many: `target.<remote> = parent.id`.
    ToMany { remote: &'static str },
}

/// A relation that can be embedded with `select=name(...)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Embed {
    /// The name it is embedded by (besides the target's name and the local column).
    pub name: &'static str,
    pub target: &'static str,
    pub join: Join,
}

/// The resource kinds access scopes restrict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScopeKind {
    Config,
    Component,
    Playbook,
    Canary,
}

impl ScopeKind {
    pub const ALL: [ScopeKind; 4] = [
        ScopeKind::Config,
        ScopeKind::Component,
        ScopeKind::Playbook,
        ScopeKind::Canary,
    ];

    /// The name in `access_scopes.resources`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Config => "config",
            ScopeKind::Component => "component",
            ScopeKind::Playbook => "playbook",
            ScopeKind::Canary => "canary",
        }
    }
}

/// How access scopes restrict the rows of a relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeBy {
    /// The row is matched itself. `agent` is `None` for relations without an
    /// agent column: they count as the local agent.
    Direct {
        kind: ScopeKind,
        tags: &'static str,
        agent: Option<&'static str>,
        name: &'static str,
    },
    /// The row is visible iff the row of `parent` that `fk` points at is (a
    /// NULL `fk` hides nothing).
    Via {
        fk: &'static str,
        parent: &'static str,
    },
    /// A pointer whose target depends on another column: where `type_column`
    /// is `LIKE` a pattern of `targets`, the row is visible iff the row of
    /// that relation whose `id` equals `id_column` (uuid or text) is. Rows of
    /// any other type are hidden from callers access scopes restrict.
    Typed {
        type_column: &'static str,
        id_column: &'static str,
        targets: &'static [(&'static str, &'static str)],
    },
    /// The row is visible iff one of the `child` rows whose `remote` column
    /// points at it is (rows with no child are hidden from callers access
    /// scopes restrict on the child's kind).
    AnyChild {
        child: &'static str,
        remote: &'static str,
    },
    /// Nothing points at a scoped resource: callers access scopes restrict
    /// (on any kind) see no row.
    Hidden,
}

/// Checks run on the post-image of every written row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validator {
    AccessScope,
    Playbook,
    IncidentRule,
    Notification,
    NotificationSilence,
}

/// One relation of the data API.
#[derive(Debug)]
pub struct Relation {
    /// The name in `/api/db/{name}`.
    pub name: &'static str,
    /// The table behind it (differs for aliases such as `configs`).
    pub table: &'static str,
    /// The table whose rows these are, for rules that select rows by kind
    /// (`rbac::selector::Kind::of_table`): the table itself, or the table a
    /// view shows row for row (`configs` and `config_detail` show `config_items`).
    pub rows_of: &'static str,
    /// The RBAC resource checked for reads.
    pub resource: Resource,
    /// The RBAC resource checked for POST, PATCH and DELETE.
    pub write_resource: Resource,
    /// Whether POST, PATCH and DELETE are served at all.
    pub writable: bool,
    pub columns: &'static [Column],
    pub embeds: &'static [Embed],
    /// When set, the only columns visible while embedded in another relation.
    pub embed_columns: Option<&'static [&'static str]>,
    pub scope: &'static [ScopeBy],
    /// The relation has the resource-source enum column: writes are limited
    /// to rows with `source = 'UI'`.
    pub source_guard: bool,
    pub validator: Option<Validator>,
    /// Writes re-derive the canary's checks in the same transaction.
    pub derives_checks: bool,
    /// The rows hand out rights: writes are held to what the caller holds.
    pub rights: Option<RightsGuard>,
}

impl Relation {
    /// A read-only relation over the table of the same name. `resource`
    /// names a resource of the role matrix: the registry is a static, so an
    /// unknown name fails the build.
    pub(crate) const fn new(
        name: &'static str,
        resource: &'static str,
        columns: &'static [Column],
    ) -> Self {
        Self {
            name,
            table: name,
            rows_of: name,
            resource: Resource::named(resource),
            write_resource: Resource::named(resource),
            writable: false,
            columns,
            embeds: &[],
            embed_columns: None,
            scope: &[],
            source_guard: false,
            validator: None,
            derives_checks: false,
            rights: None,
        }
    }

    pub(crate) const fn table(self, table: &'static str) -> Self {
        Self {
            table,
            rows_of: table,
            ..self
        }
    }

    /// A view whose rows are `table`'s, one for one, with its columns.
    pub(crate) const fn rows_of(self, table: &'static str) -> Self {
        Self {
            rows_of: table,
            ..self
        }
    }

    /// Writable, checked against the read resource.
    pub(crate) const fn writable(self) -> Self {
        Self {
            writable: true,
            ..self
        }
    }

    /// Writable, checked against another resource.
    pub(crate) const fn writes(self, resource: &'static str) -> Self {
        Self {
            writable: true,
            write_resource: Resource::named(resource),
            ..self
        }
    }

    pub(crate) const fn embeds(self, embeds: &'static [Embed]) -> Self {
        Self { embeds, ..self }
    }

    pub(crate) const fn embed_columns(self, columns: &'static [&'static str]) -> Self {
        Self {
            embed_columns: Some(columns),
            ..self
        }
    }

    pub(crate) const fn scoped(self, scope: &'static [ScopeBy]) -> Self {
        Self { scope, ..self }
    }

    pub(crate) const fn guarded(self) -> Self {
        Self {
            source_guard: true,
            ..self
        }
    }

    pub(crate) const fn derives_checks(self) -> Self {
        Self {
            derives_checks: true,
            ..self
        }
    }

    pub(crate) const fn grants_rights(self, guard: RightsGuard) -> Self {
        Self {
            rights: Some(guard),
            ..self
        }
    }

    pub(crate) const fn validated(self, validator: Validator) -> Self {
        Self {
            validator: Some(validator),
            ..self
        }
    }

    /// The column, whatever its access.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub(crate) fn has_column(&self, name: &str) -> bool {
        self.column(name).is_some()
    }

    /// The columns `select=*` expands to, at the top level or embedded.
    pub(crate) fn star(&self, embedded: bool) -> impl Iterator<Item = &Column> {
        self.columns
            .iter()
            .filter(move |c| self.visible(c, embedded))
    }

    /// Whether the column may be read, filtered or ordered on.
    pub(crate) fn visible(&self, column: &Column, embedded: bool) -> bool {
        column.readable()
            && (!embedded
                || self
                    .embed_columns
                    .is_none_or(|allowed| allowed.contains(&column.name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_identifier(s: &str) -> bool {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            && !s.as_bytes()[0].is_ascii_digit()
    }

    /// Registry names are spliced into SQL (quoted), so they must be plain identifiers.
    #[test]
    fn every_identifier_is_plain() {
        for r in Schema::console().relations() {
            assert!(is_identifier(r.name), "{}", r.name);
            assert!(is_identifier(r.table), "{}", r.table);
            for c in r.columns {
                assert!(is_identifier(c.name), "{}.{}", r.name, c.name);
            }
        }
    }

    #[test]
    fn relation_names_are_unique() {
        let mut names: Vec<_> = Schema::console().relations().map(|r| r.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }

    #[test]
    fn embeds_point_at_registered_relations_and_columns() {
        let schema = Schema::console();
        for r in schema.relations() {
            for e in r.embeds {
                let target = schema
                    .relation(e.target)
                    .unwrap_or_else(|| panic!("{}: unknown embed target {}", r.name, e.target));
                match e.join {
                    Join::ToOne { local } => {
                        assert!(r.has_column(local), "{}.{local}", r.name);
                        assert!(target.has_column("id"), "{}.id", target.name);
                    }
                    Join::ToMany { remote } => {
                        assert!(target.has_column(remote), "{}.{remote}", target.name);
                        assert!(r.has_column("id"), "{}.id", r.name);
                    }
                }
            }
            for s in r.scope {
                match *s {
                    ScopeBy::Direct {
                        tags, agent, name, ..
                    } => {
                        assert!(r.has_column(tags) && r.has_column(name), "{}", r.name);
                        assert!(agent.is_none_or(|a| r.has_column(a)), "{}", r.name);
                    }
                    ScopeBy::Via { fk, parent } => {
                        assert!(r.has_column(fk), "{}.{fk}", r.name);
                        let parent = schema.relation(parent).expect("scope parent");
                        assert!(!parent.scope.is_empty(), "{}", parent.name);
                    }
                    ScopeBy::Typed {
                        type_column,
                        id_column,
                        targets,
                    } => {
                        assert!(r.has_column(type_column), "{}.{type_column}", r.name);
                        assert!(r.has_column(id_column), "{}.{id_column}", r.name);
                        for (_, target) in targets {
                            let target = schema.relation(target).expect("scope target");
                            assert!(!target.scope.is_empty(), "{}", target.name);
                        }
                    }
                    ScopeBy::AnyChild { child, remote } => {
                        let child = schema.relation(child).expect("scope child");
                        assert!(child.has_column(remote), "{}.{remote}", child.name);
                        assert!(!child.scope.is_empty(), "{}", child.name);
                    }
                    ScopeBy::Hidden => {}
                }
            }
            if r.source_guard {
                assert!(r.has_column("source"), "{}", r.name);
            }
            for c in r.columns {
                match c.reveal {
                    Reveal::Everyone => {}
                    Reveal::Writers => assert_eq!(c.ty, ColumnType::Json, "{}.{}", r.name, c.name),
                    Reveal::SelfAndAdmins => assert!(r.has_column("id"), "{}", r.name),
                    Reveal::Unrestricted => assert!(c.nullable, "{}.{}", r.name, c.name),
                }
            }
            if let Some(allowed) = r.embed_columns {
                for c in allowed {
                    assert!(r.column(c).is_some_and(Column::readable), "{}.{c}", r.name);
                }
            }
        }
    }

    #[test]
    fn secrets_are_never_readable() {
        let schema = Schema::console();
        let people = schema.relation("people").expect("people");
        assert!(people.column("password_hash").is_none());
        let connections = schema.relation("connections").expect("connections");
        for secret in ["password", "certificate"] {
            let column = connections.column(secret).expect(secret);
            assert!(!column.readable());
            assert!(connections.star(false).all(|c| c.name != secret));
        }
        for hidden in ["access_tokens", "sessions", "invites"] {
            assert!(schema.relation(hidden).is_none(), "{hidden}");
        }
    }
}
