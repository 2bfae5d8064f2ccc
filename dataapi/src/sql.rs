//! Parsed requests → SQL text plus bound parameters. Pure.
//!
//! Identifiers come only from the registry (plain lowercase identifiers,
//! always double-quoted); every value, output key taken from the request
//! and JSON path key is a bound parameter. Rows are built as JSON by
//! PostgreSQL (`json_build_object`, `json_agg`), except a page of plain
//! columns, which the API writes (`rows`); embeds are correlated
//! subqueries, and access-scope rules are one jsonb parameter per kind.

use serde_json::Value;

use super::Caller;
use super::error::RestError;
use super::execute::{MAX_BODY_BYTES, MAX_EMBEDDED_ROWS};
use super::parse::{
    Condition, Field, IsValue, Logic, Nulls, Op, Operand, OrderTerm, Query, SelectItem,
};
use super::rows;
use super::schema::{
    Column, ColumnType, Embed, Join, Relation, Reveal, Schema, ScopeBy, ScopeKind,
};
use quarterdeck_store::rbac::{Action, Kind, Requirement, Resource, Selector};

/// A bound parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Param {
    Text(String),
    TextArray(Vec<String>),
    Json(Value),
}

/// A statement ready to run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sql {
    pub text: String,
    pub params: Vec<Param>,
    /// RBAC resources of the relations embedded in the output.
    pub embedded_resources: Vec<Resource>,
    /// Set when a GET's statement answers its page as rows of these columns,
    /// for the API to write as JSON; otherwise it answers one row: the page
    /// as JSON (`body`), its length (`n`) and the total.
    pub columns: Option<Vec<(&'static str, ColumnType)>>,
}

/// Alias of the main relation in every statement.
const MAIN: &str = "t0";
/// Arguments of one `json_build_object` call (PostgreSQL allows 100).
const PAIRS_PER_OBJECT: usize = 50;
/// Stands in for the agent of rows that have no agent column.
const LOCAL_AGENT: &str = "'00000000-0000-0000-0000-000000000000'::uuid";

/// Which rows a PATCH or DELETE writes.
pub(crate) enum Target<'q> {
    /// The request's filters (plus scope restrictions).
    Filters(&'q [Condition]),
    /// Rows already locked and checked, by `ctid`.
    Ctids(Vec<String>),
}

/// What a write answers with.
pub(crate) enum Returning<'q> {
    /// Only the number of rows written.
    Count,
    /// The written rows, shaped by `select` (`None` = `*`).
    Rows(Option<&'q [SelectItem]>),
}

struct Builder<'s> {
    schema: &'s Schema,
    caller: &'s Caller,
    params: Vec<Param>,
    next_alias: usize,
    scope_params: Vec<(ScopeKind, String)>,
    embedded_resources: Vec<Resource>,
}

/// A typed SQL expression.
struct Expr {
    sql: String,
    ty: ColumnType,
    /// The registry's name of the column, when the field is the column
    /// itself (no JSON path into it).
    column: Option<&'static str>,
}

/// An output key: a column's name from the registry, or one the request
/// gave (an alias, a JSON path's key, an embed), which is bound.
enum Key {
    Column(&'static str, ColumnType),
    Given(String),
}

/// The keys and values of a JSON object and the `!inner` conditions its
/// embeds add.
struct Object {
    pairs: Vec<(Key, String)>,
    inner: Vec<String>,
    /// Whether a value may be a document of any size (JSON, an array, an
    /// embed): only then is each row counted against the answer's budget.
    documents: bool,
}

impl Object {
    /// The values by column name when every key is a column's and no value
    /// is a document: such a row of columns is its own JSON object.
    fn plain_columns(&self) -> Option<Vec<(&'static str, ColumnType, &str)>> {
        if self.documents || self.pairs.is_empty() {
            return None;
        }
        self.pairs
            .iter()
            .map(|(key, value)| match key {
                Key::Column(name, ty) => Some((*name, *ty, value.as_str())),
                Key::Given(_) => None,
            })
            .collect()
    }
}

/// `->0`, `->-1`: PostgREST reads an integer key as an array index.
fn is_array_index(key: &str) -> bool {
    let digits = key.strip_prefix('-').unwrap_or(key);
    !digits.is_empty() && digits.len() <= 9 && digits.bytes().all(|b| b.is_ascii_digit())
}

fn quote(identifier: &str) -> String {
    format!("\"{identifier}\"")
}

fn where_clause(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    }
}

impl<'s> Builder<'s> {
    fn new(schema: &'s Schema, caller: &'s Caller) -> Self {
        Self {
            schema,
            caller,
            params: Vec::new(),
            next_alias: 1,
            scope_params: Vec::new(),
            embedded_resources: Vec::new(),
        }
    }

    fn finish(self, text: String) -> Sql {
        Sql {
            text,
            params: self.params,
            embedded_resources: self.embedded_resources,
            columns: None,
        }
    }

    fn param(&mut self, param: Param) -> String {
        self.params.push(param);
        format!("${}", self.params.len())
    }

    fn alias(&mut self) -> String {
        let alias = format!("t{}", self.next_alias);
        self.next_alias += 1;
        alias
    }

    /// A text parameter cast to `ty`.
    fn typed(&mut self, value: &str, ty: ColumnType) -> String {
        let p = self.param(Param::Text(value.to_owned()));
        match ty {
            ColumnType::Text => p,
            ty => format!("{p}::{}", ty.sql()),
        }
    }

    fn field(
        &mut self,
        relation: &Relation,
        alias: &str,
        field: &Field,
        embedded: bool,
    ) -> Result<Expr, RestError> {
        let column = relation
            .column(&field.column)
            .filter(|c| relation.visible(c, embedded))
            .ok_or_else(|| RestError::unknown_column(relation.name, &field.column))?;
        let mut sql = self.column(relation, alias, column);
        let mut ty = column.ty;
        for step in &field.path {
            if ty != ColumnType::Json {
                return Err(RestError::operator("->", relation.name, column.name));
            }
            let key = self.param(Param::Text(step.key.clone()));
            let key = if is_array_index(&step.key) {
                format!("{key}::integer")
            } else {
                key
            };
            let arrow = if step.text { "->>" } else { "->" };
            sql = format!("({sql} {arrow} {key})");
            ty = if step.text {
                ColumnType::Text
            } else {
                ColumnType::Json
            };
        }
        Ok(Expr {
            sql,
            ty,
            column: field.path.is_empty().then_some(column.name),
        })
    }

    /// A column's value as this caller may see it ([`Reveal`]); filters and
    /// orders use the same expression, so a masked value cannot be probed.
    fn column(&mut self, relation: &Relation, alias: &str, column: &Column) -> String {
        let raw = format!("{alias}.{}", quote(column.name));
        match column.reveal {
            Reveal::Everyone => raw,
            Reveal::Writers if self.caller.writes.contains(&relation.write_resource) => raw,
            Reveal::Writers => format!("quarterdeck_redact({raw})"),
            Reveal::SelfAndAdmins if self.caller.admin => raw,
            Reveal::SelfAndAdmins => match self.caller.person_id {
                Some(person) => {
                    let p = self.param(Param::Text(person.to_string()));
                    format!("CASE WHEN {alias}.\"id\" = {p}::uuid THEN {raw} END")
                }
                None => format!("NULL::{}", column.ty.sql()),
            },
            Reveal::Unrestricted if !self.caller.visibility.restricted() => raw,
            Reveal::Unrestricted => format!("NULL::{}", column.ty.sql()),
        }
    }

    fn conditions(
        &mut self,
        relation: &Relation,
        alias: &str,
        conditions: &[Condition],
    ) -> Result<Vec<String>, RestError> {
        conditions
            .iter()
            .map(|c| self.condition(relation, alias, c))
            .collect()
    }

    fn condition(
        &mut self,
        relation: &Relation,
        alias: &str,
        condition: &Condition,
    ) -> Result<String, RestError> {
        let (negate, sql) = match condition {
            Condition::Logic {
                negate,
                logic,
                items,
            } => {
                let joiner = match logic {
                    Logic::And => " AND ",
                    Logic::Or => " OR ",
                };
                let parts = self.conditions(relation, alias, items)?;
                (*negate, format!("({})", parts.join(joiner)))
            }
            Condition::Filter {
                field,
                negate,
                op,
                value,
            } => (*negate, self.filter(relation, alias, field, *op, value)?),
        };
        Ok(if negate { format!("NOT {sql}") } else { sql })
    }

    fn filter(
        &mut self,
        relation: &Relation,
        alias: &str,
        field: &Field,
        op: Op,
        value: &Operand,
    ) -> Result<String, RestError> {
        let lhs = self.field(relation, alias, field, false)?;
        let wrong = || RestError::operator(op.name(), relation.name, &field.column);
        let scalar = matches!(
            lhs.ty,
            ColumnType::Uuid
                | ColumnType::Text
                | ColumnType::Int
                | ColumnType::BigInt
                | ColumnType::Float
                | ColumnType::Bool
                | ColumnType::Timestamp
        );
        let collection = matches!(lhs.ty, ColumnType::Json | ColumnType::TextArray);
        let sql = match (op, value) {
            (Op::Eq | Op::Neq, Operand::Scalar(v)) => {
                let symbol = if op == Op::Eq { "=" } else { "<>" };
                let rhs = self.typed(v, lhs.ty);
                format!("({} {symbol} {rhs})", lhs.sql)
            }
            (Op::Gt | Op::Gte | Op::Lt | Op::Lte, Operand::Scalar(v)) if scalar => {
                let symbol = match op {
                    Op::Gt => ">",
                    Op::Gte => ">=",
                    Op::Lt => "<",
                    _ => "<=",
                };
                let rhs = self.typed(v, lhs.ty);
                format!("({} {symbol} {rhs})", lhs.sql)
            }
            (Op::Like | Op::Ilike, Operand::Scalar(v)) if lhs.ty == ColumnType::Text => {
                let symbol = if op == Op::Like { "LIKE" } else { "ILIKE" };
                let rhs = self.param(Param::Text(v.clone()));
                format!("({} {symbol} {rhs})", lhs.sql)
            }
            (Op::In, Operand::List(items)) if scalar => {
                let p = self.param(Param::TextArray(items.clone()));
                let rhs = match lhs.ty {
                    ColumnType::Text => p,
                    ty => format!("{p}::{}[]", ty.sql()),
                };
                format!("({} = ANY({rhs}))", lhs.sql)
            }
            (Op::Is, Operand::Is(is)) => {
                let test = match is {
                    IsValue::Null => "IS NULL",
                    IsValue::NotNull => "IS NOT NULL",
                    IsValue::True | IsValue::False | IsValue::Unknown
                        if lhs.ty != ColumnType::Bool =>
                    {
                        return Err(wrong());
                    }
                    IsValue::True => "IS TRUE",
                    IsValue::False => "IS FALSE",
                    IsValue::Unknown => "IS UNKNOWN",
                };
                format!("({} {test})", lhs.sql)
            }
            (Op::Cs | Op::Cd, Operand::Scalar(v)) if collection => {
                let symbol = if op == Op::Cs { "@>" } else { "<@" };
                let rhs = self.typed(v, lhs.ty);
                format!("({} {symbol} {rhs})", lhs.sql)
            }
            (Op::Ov, Operand::Scalar(v)) if lhs.ty == ColumnType::TextArray => {
                let rhs = self.typed(v, lhs.ty);
                format!("({} && {rhs})", lhs.sql)
            }
            _ => return Err(wrong()),
        };
        Ok(sql)
    }

    fn order(
        &mut self,
        relation: &Relation,
        alias: &str,
        terms: &[OrderTerm],
    ) -> Result<String, RestError> {
        if terms.is_empty() {
            return Ok(String::new());
        }
        let mut parts = Vec::with_capacity(terms.len());
        for term in terms {
            let expr = self.field(relation, alias, &term.field, false)?;
            let direction = if term.desc { "DESC" } else { "ASC" };
            let nulls = match term.nulls {
                None => "",
                Some(Nulls::First) => " NULLS FIRST",
                Some(Nulls::Last) => " NULLS LAST",
            };
            parts.push(format!("{} {direction}{nulls}", expr.sql));
        }
        Ok(format!(" ORDER BY {}", parts.join(", ")))
    }

    /// The JSON object of one row of `relation` (aliased `alias`).
    fn object(
        &mut self,
        relation: &Relation,
        alias: &str,
        items: &[SelectItem],
        embedded: bool,
    ) -> Result<Object, RestError> {
        let mut pairs: Vec<(Key, String)> = Vec::new();
        let mut inner = Vec::new();
        let mut documents = false;
        for item in items {
            match item {
                SelectItem::Star => {
                    for column in relation.star(embedded) {
                        documents |= column.ty.is_document();
                        let value = self.column(relation, alias, column);
                        pairs.push((Key::Column(column.name, column.ty), value));
                    }
                }
                SelectItem::Field {
                    alias: key_alias,
                    field,
                } => {
                    let expr = self.field(relation, alias, field, embedded)?;
                    documents |= expr.ty.is_document() || !field.path.is_empty();
                    let key = match expr.column {
                        Some(column) if key_alias.is_none() => Key::Column(column, expr.ty),
                        _ => Key::Given(
                            key_alias
                                .as_deref()
                                .unwrap_or(field.default_key())
                                .to_owned(),
                        ),
                    };
                    pairs.push((key, expr.sql));
                }
                SelectItem::Embed {
                    alias: key_alias,
                    name,
                    hints,
                    select,
                } => {
                    let embed = self.resolve(relation, name, hints)?;
                    let key = Key::Given(key_alias.as_deref().unwrap_or(name).to_owned());
                    let value = self.embed(alias, embed, select)?;
                    documents = true;
                    pairs.push((key, value));
                    if hints.iter().any(|h| h == "inner") {
                        inner.push(self.exists(alias, embed)?);
                    }
                }
            }
        }
        Ok(Object {
            pairs,
            inner,
            documents,
        })
    }

    /// The JSON object of `object`'s pairs, its given keys bound.
    fn json(&mut self, object: &Object) -> String {
        let pairs: Vec<(String, String)> = object
            .pairs
            .iter()
            .map(|(key, value)| {
                let key = match key {
                    Key::Column(name, _) => format!("'{name}'"),
                    Key::Given(key) => self.param(Param::Text(key.clone())),
                };
                (key, value.clone())
            })
            .collect();
        build_object(&pairs)
    }

    /// The embed `name!hints` of `relation`, as PostgREST resolves it: by
    /// embed name, target relation or foreign-key column, narrowed by hints
    /// naming a column or a `<table>_<column>_fkey` constraint.
    fn resolve(
        &self,
        relation: &'s Relation,
        name: &str,
        hints: &[String],
    ) -> Result<&'s Embed, RestError> {
        let keys: Vec<&str> = hints
            .iter()
            .map(String::as_str)
            .filter(|h| !matches!(*h, "inner" | "left"))
            .collect();
        let candidates: Vec<&Embed> = relation
            .embeds
            .iter()
            .filter(|e| {
                e.name == name
                    || e.target == name
                    || matches!(e.join, Join::ToOne { local } if local == name)
            })
            .filter(|e| keys.iter().all(|k| self.hint_matches(relation, e, k)))
            .collect();
        match candidates.as_slice() {
            [] => Err(RestError::no_relationship(relation.name, name)),
            [one] => Ok(one),
            many => Err(RestError::ambiguous(
                relation.name,
                name,
                &many
                    .iter()
                    .map(|e| describe(relation, e))
                    .collect::<Vec<_>>(),
            )),
        }
    }

    fn hint_matches(&self, relation: &Relation, embed: &Embed, hint: &str) -> bool {
        if hint == embed.name {
            return true;
        }
        match embed.join {
            Join::ToOne { local } => {
                hint == local || hint == format!("{}_{local}_fkey", relation.table)
            }
            Join::ToMany { remote } => {
                let table = self
                    .schema
                    .relation(embed.target)
                    .map_or(embed.target, |t| t.table);
                hint == remote || hint == format!("{table}_{remote}_fkey")
            }
        }
    }

    fn target(&self, embed: &Embed) -> Result<&'s Relation, RestError> {
        self.schema.relation(embed.target).ok_or_else(|| {
            tracing::error!(
                target = embed.target,
                "data API registry: unknown embed target"
            );
            RestError::internal()
        })
    }

    /// Join condition of `embed` between the target alias and the parent alias.
    fn join(embed: &Embed, target: &str, parent: &str) -> String {
        match embed.join {
            Join::ToOne { local } => format!("{target}.\"id\" = {parent}.{}", quote(local)),
            Join::ToMany { remote } => format!("{target}.{} = {parent}.\"id\"", quote(remote)),
        }
    }

    fn embed(
        &mut self,
        parent_alias: &str,
        embed: &Embed,
        select: &[SelectItem],
    ) -> Result<String, RestError> {
        let target = self.target(embed)?;
        self.embedded_resources.push(target.resource);
        let alias = self.alias();
        let object = self.object(target, &alias, select, true)?;
        let json = self.json(&object);
        let mut conditions = vec![Self::join(embed, &alias, parent_alias)];
        conditions.extend(object.inner);
        conditions.extend(self.scope(target, &alias)?);
        let table = quote(target.table);
        let filter = where_clause(&conditions);
        Ok(match embed.join {
            Join::ToOne { .. } => format!("(SELECT {json} FROM {table} {alias}{filter})"),
            // At most MAX_EMBEDDED_ROWS per parent, and as many in the whole answer.
            Join::ToMany { .. } => {
                let cap = MAX_EMBEDDED_ROWS;
                format!(
                    "(SELECT quarterdeck_rest_embedded(coalesce(json_agg(_e.j), '[]'::json), count(*), {cap}) \
                     FROM (SELECT {json} AS j FROM {table} {alias}{filter} LIMIT {cap}) _e)"
                )
            }
        })
    }

    /// `!inner`: the parent row needs at least one visible embedded row.
    fn exists(&mut self, parent_alias: &str, embed: &Embed) -> Result<String, RestError> {
        let target = self.target(embed)?;
        let alias = self.alias();
        let mut conditions = vec![Self::join(embed, &alias, parent_alias)];
        conditions.extend(self.scope(target, &alias)?);
        Ok(format!(
            "EXISTS (SELECT 1 FROM {} {alias}{})",
            quote(target.table),
            where_clause(&conditions)
        ))
    }

    /// Whether access scopes or rules with selectors hide rows of some kind.
    fn restricted(&self) -> bool {
        self.caller.visibility.restricted()
            || Kind::ALL
                .iter()
                .any(|&k| self.caller.authorizer.row_filter(k, Action::Read).is_some())
    }

    /// The rows of `relation` the caller's rules with selectors let it do
    /// `action` on, if they bear on it (`rbac::RowFilter`).
    fn permitted(&mut self, relation: &Relation, alias: &str, action: Action) -> Option<String> {
        let kind = Kind::of_table(relation.rows_of)?;
        let filter = self.caller.authorizer.row_filter(kind, action)?;
        let allow = if filter.all {
            "TRUE".to_owned()
        } else {
            self.any_selected(kind, alias, &filter.allow)
        };
        let deny = self.any_selected(kind, alias, &filter.deny);
        Some(format!("({allow} AND NOT {deny})"))
    }

    fn any_selected(&mut self, kind: Kind, alias: &str, selectors: &[Selector]) -> String {
        if selectors.is_empty() {
            return "FALSE".to_owned();
        }
        let parts: Vec<String> = selectors
            .iter()
            .map(|s| self.selected(kind, alias, s))
            .collect();
        format!("({})", parts.join(" OR "))
    }

    /// Whether one selector matches the row (never NULL).
    fn selected(&mut self, kind: Kind, alias: &str, s: &Selector) -> String {
        let mut conditions = Vec::new();
        if let Some(id) = &s.id {
            let p = self.param(Param::Text(id.clone()));
            conditions.push(format!("{alias}.\"id\"::text = {p}"));
        }
        if let Some(name) = s.name.as_ref().filter(|n| *n != "*") {
            let p = self.param(Param::Text(name.clone()));
            conditions.push(format!("{alias}.\"name\" = {p}"));
        }
        if let Some(namespace) = &s.namespace {
            let p = self.param(Param::Text(namespace.clone()));
            let column = if kind.namespace_in_tags() {
                format!("({alias}.\"tags\" ->> 'namespace')")
            } else {
                format!("{alias}.\"namespace\"")
            };
            conditions.push(format!("{column} = {p}"));
        }
        if let Some(agent) = &s.agent {
            let p = self.param(Param::Text(agent.clone()));
            let column = kind
                .agent_column()
                .map_or(LOCAL_AGENT.to_owned(), |a| format!("{alias}.{}", quote(a)));
            conditions.push(format!(
                "({column} = CASE WHEN {p} IN ('self', 'local') THEN {LOCAL_AGENT} END \
                 OR {column}::text = {p} \
                 OR {column} IN (SELECT _a.\"id\" FROM \"agents\" _a WHERE _a.\"name\" = {p}))"
            ));
        }
        for (column, requirements) in [
            (kind.tags_column(), &s.tags),
            (kind.labels_column(), &s.labels),
        ] {
            let Some(column) = column else { continue };
            for r in requirements {
                let c = format!("{alias}.{}", quote(column));
                conditions.push(self.requirement(&c, r));
            }
        }
        if !s.types.is_empty() {
            let p = self.param(Param::TextArray(s.types.clone()));
            conditions.push(format!("{alias}.\"type\" = ANY({p})"));
        }
        if conditions.is_empty() {
            "TRUE".to_owned()
        } else {
            format!("coalesce(({}), false)", conditions.join(" AND "))
        }
    }

    /// One label-selector requirement on a JSON column (Kubernetes meaning:
    /// `!=` and `notin` hold when the key is absent).
    fn requirement(&mut self, column: &str, r: &Requirement) -> String {
        let (key, test) = match r {
            Requirement::Equals(k, v) => (k, format!("= {}", self.param(Param::Text(v.clone())))),
            Requirement::NotEquals(k, v) => (
                k,
                format!("IS DISTINCT FROM {}", self.param(Param::Text(v.clone()))),
            ),
            Requirement::In(k, vs) => (
                k,
                format!("= ANY({})", self.param(Param::TextArray(vs.clone()))),
            ),
            Requirement::NotIn(k, vs) => {
                let vs = self.param(Param::TextArray(vs.clone()));
                let k = self.param(Param::Text(k.clone()));
                return format!("NOT coalesce(({column} ->> {k}) = ANY({vs}), false)");
            }
            Requirement::Exists(k) => (k, "IS NOT NULL".to_owned()),
            Requirement::Absent(k) => (k, "IS NULL".to_owned()),
        };
        let key = self.param(Param::Text(key.clone()));
        format!("(({column} ->> {key}) {test})")
    }

    /// The rows of `relation` the caller may see: access scopes and rules
    /// with selectors, if any restrict it.
    fn scope(&mut self, relation: &Relation, alias: &str) -> Result<Option<String>, RestError> {
        let mut predicates = Vec::new();
        predicates.extend(self.permitted(relation, alias, Action::Read));
        for by in relation.scope {
            match *by {
                ScopeBy::Direct {
                    kind,
                    tags,
                    agent,
                    name,
                } => {
                    let Some(rules) = self.caller.visibility.rules(kind) else {
                        continue;
                    };
                    if rules.is_empty() {
                        predicates.push("FALSE".to_owned());
                        continue;
                    }
                    let rules = self.rules_param(kind, rules)?;
                    let agent =
                        agent.map_or(LOCAL_AGENT.to_owned(), |a| format!("{alias}.{}", quote(a)));
                    predicates.push(format!(
                        "quarterdeck_scope_allows({rules}, {alias}.{}, {agent}, {alias}.{})",
                        quote(tags),
                        quote(name)
                    ));
                }
                ScopeBy::Via { fk, parent } => {
                    let parent = self.registered(parent)?;
                    let parent_alias = self.alias();
                    if let Some(inner) = self.scope(parent, &parent_alias)? {
                        predicates.push(format!(
                            "({alias}.{fk} IS NULL OR EXISTS (SELECT 1 FROM {table} {parent_alias} \
                             WHERE {parent_alias}.\"id\" = {alias}.{fk} AND {inner}))",
                            fk = quote(fk),
                            table = quote(parent.table),
                        ));
                    }
                }
                ScopeBy::Typed {
                    type_column,
                    id_column,
                    targets,
                } => {
                    if !self.restricted() {
                        continue;
                    }
                    let id = match relation.column(id_column).map(|c| c.ty) {
                        Some(ColumnType::Uuid) => format!("{alias}.{}", quote(id_column)),
                        // Text ids name other things too: cast only what is a uuid.
                        _ => format!(
                            "(CASE WHEN {alias}.{c} ~* '^[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$' \
                             THEN {alias}.{c}::uuid END)",
                            c = quote(id_column)
                        ),
                    };
                    let mut cases = Vec::with_capacity(targets.len());
                    for (pattern, target) in targets {
                        let target = self.registered(target)?;
                        let target_alias = self.alias();
                        let visible = match self.scope(target, &target_alias)? {
                            Some(inner) => format!(
                                "EXISTS (SELECT 1 FROM {} {target_alias} \
                                 WHERE {target_alias}.\"id\" = {id} AND {inner})",
                                quote(target.table)
                            ),
                            None => "TRUE".to_owned(),
                        };
                        let pattern = self.param(Param::Text((*pattern).to_owned()));
                        cases.push(format!(
                            "WHEN {alias}.{} LIKE {pattern} THEN {visible}",
                            quote(type_column)
                        ));
                    }
                    predicates.push(format!("(CASE {} ELSE FALSE END)", cases.join(" ")));
                }
                ScopeBy::AnyChild { child, remote } => {
                    let child = self.registered(child)?;
                    let child_alias = self.alias();
                    if let Some(inner) = self.scope(child, &child_alias)? {
                        predicates.push(format!(
                            "EXISTS (SELECT 1 FROM {} {child_alias} \
                             WHERE {child_alias}.{} = {alias}.\"id\" AND {inner})",
                            quote(child.table),
                            quote(remote)
                        ));
                    }
                }
                ScopeBy::Hidden => {
                    if self.restricted() {
                        predicates.push("FALSE".to_owned());
                    }
                }
            }
        }
        Ok((!predicates.is_empty()).then(|| predicates.join(" AND ")))
    }

    /// A relation the registry names (in a scope or embed).
    fn registered(&self, name: &str) -> Result<&'s Relation, RestError> {
        self.schema.relation(name).ok_or_else(|| {
            tracing::error!(name, "data API registry: unknown relation");
            RestError::internal()
        })
    }

    /// One jsonb parameter per kind, reused by every predicate of that kind.
    fn rules_param(
        &mut self,
        kind: ScopeKind,
        rules: &[super::scope::ScopeRule],
    ) -> Result<String, RestError> {
        if let Some((_, p)) = self.scope_params.iter().find(|(k, _)| *k == kind) {
            return Ok(p.clone());
        }
        let json = serde_json::to_value(rules).map_err(|e| {
            tracing::error!(error = %e, "data API: scope rules do not serialise");
            RestError::internal()
        })?;
        let p = format!("{}::jsonb", self.param(Param::Json(json)));
        self.scope_params.push((kind, p.clone()));
        Ok(p)
    }

    /// `SELECT body, n, hidden, written` over the written rows of `source`
    /// aliased as the main relation: the representation and its row count,
    /// how many rows fall outside the caller's access scopes (a scoped
    /// writer may not create or move rows out of its sight), and, for
    /// relations that hand out rights, the rows as written.
    fn representation(
        &mut self,
        relation: &Relation,
        source: &str,
        returning: &Returning,
        action: Action,
    ) -> Result<String, RestError> {
        let hidden = match self.scope(relation, MAIN)? {
            Some(visible) => format!(
                "(SELECT count(*) FROM {source} {MAIN} WHERE NOT coalesce({visible}, false))"
            ),
            None => "0::bigint".to_owned(),
        };
        let written = if relation.rights.is_some() {
            format!("(SELECT json_agg(to_jsonb({MAIN})) FROM {source} {MAIN})")
        } else {
            "NULL::json".to_owned()
        };
        let refused = self.refused(relation, source, action);
        let checks = format!("{hidden} AS hidden, {refused} AS refused, {written} AS written");
        let Returning::Rows(select) = returning else {
            return Ok(format!(
                "SELECT '[]'::json AS body, count(*) AS n, {checks} FROM {source}"
            ));
        };
        let star = [SelectItem::Star];
        let object = self.object(relation, MAIN, select.unwrap_or(&star), false)?;
        let json = self.json(&object);
        Ok(format!(
            "SELECT coalesce(json_agg(_q.j), '[]'::json) AS body, count(*) AS n, {checks} \
             FROM (SELECT {json} AS j FROM {source} {MAIN}{}) _q",
            where_clause(&object.inner)
        ))
    }

    /// How many rows of `source` (aliased as the main relation) the caller's
    /// rules with selectors do not let it do `action` on.
    fn refused(&mut self, relation: &Relation, source: &str, action: Action) -> String {
        match self.permitted(relation, MAIN, action) {
            Some(permitted) => {
                format!("(SELECT count(*) FROM {source} {MAIN} WHERE NOT {permitted})")
            }
            None => "0::bigint".to_owned(),
        }
    }

    /// WHERE conditions of a PATCH or DELETE.
    fn target_conditions(
        &mut self,
        relation: &Relation,
        target: Target,
    ) -> Result<Vec<String>, RestError> {
        Ok(match target {
            Target::Filters(filters) => {
                let mut conditions = self.conditions(relation, MAIN, filters)?;
                conditions.extend(self.scope(relation, MAIN)?);
                conditions
            }
            Target::Ctids(ctids) => {
                let p = self.param(Param::TextArray(ctids));
                vec![format!("{MAIN}.ctid = ANY({p}::tid[])")]
            }
        })
    }
}

/// `json_build_object` over the pairs, in chunks PostgreSQL accepts, spliced
/// textually so the keys keep their order.
fn build_object(pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return "'{}'::json".to_owned();
    }
    let chunks: Vec<String> = pairs
        .chunks(PAIRS_PER_OBJECT)
        .map(|chunk| {
            let args: Vec<String> = chunk.iter().map(|(k, v)| format!("{k}, {v}")).collect();
            format!("json_build_object({})", args.join(", "))
        })
        .collect();
    if chunks.len() == 1 {
        return chunks.into_iter().next().unwrap_or_default();
    }
    let last = chunks.len() - 1;
    let parts: Vec<String> = chunks
        .iter()
        .enumerate()
        .map(|(i, c)| match i {
            0 => format!("left({c}::text, -1)"),
            i if i == last => format!("substr({c}::text, 2)"),
            _ => format!("substr(left({c}::text, -1), 2)"),
        })
        .collect();
    format!("({})::json", parts.join(" || ',' || "))
}

fn describe(relation: &Relation, embed: &Embed) -> String {
    match embed.join {
        Join::ToOne { local } => format!(
            "'{}' ({} via {}.{local})",
            embed.name, embed.target, relation.name
        ),
        Join::ToMany { remote } => format!(
            "'{}' ({} via {}.{remote})",
            embed.name, embed.target, embed.target
        ),
    }
}

/// Whether access scopes hide some rows of `relation` from the caller.
pub(crate) fn restricted(schema: &Schema, caller: &Caller, relation: &Relation) -> bool {
    Builder::new(schema, caller)
        .scope(relation, MAIN)
        .map_or(true, |predicate| predicate.is_some())
}

/// A GET: one row of `body` (JSON array), `n` (rows in it) and `total`
/// (matching rows, when `count`).
pub(crate) fn select(
    schema: &Schema,
    caller: &Caller,
    relation: &Relation,
    query: &Query,
    page: (i64, i64),
    count: bool,
) -> Result<Sql, RestError> {
    let mut b = Builder::new(schema, caller);
    let star = [SelectItem::Star];
    let mut object = b.object(
        relation,
        MAIN,
        query.select.as_deref().unwrap_or(&star),
        false,
    )?;
    let mut conditions = b.conditions(relation, MAIN, &query.filters)?;
    conditions.extend(std::mem::take(&mut object.inner));
    conditions.extend(b.scope(relation, MAIN)?);
    let filter = where_clause(&conditions);
    let order = b.order(relation, MAIN, &query.order)?;
    // Numbers, so written into the statement rather than bound: the planner
    // can then cost the cached generic plan and keep it where it is as good
    // as a plan per request (a bound LIMIT made it plan every request).
    let (limit, offset) = page;
    let max_bytes = MAX_BODY_BYTES;
    let table = quote(relation.table);
    let total = if count {
        format!("(SELECT count(*) FROM {table} {MAIN}{filter})")
    } else {
        "NULL::bigint".to_owned()
    };
    // The page is chosen first and its rows built after, so embeds run for
    // the page only. json_agg takes the rows in the order the subquery sorts
    // them, as PostgREST relies on: the outer level only aggregates (no join
    // or grouping that could reorder them), and an ORDER BY of its own would
    // sort the page a second time (a third of the statement's time).
    let page = |columns: &str| {
        format!("SELECT {columns} FROM {table} {MAIN}{filter}{order} LIMIT {limit} OFFSET {offset}")
    };
    let plain = object.plain_columns();
    if let Some(columns) = plain.as_ref().filter(|_| !count) {
        // Plain columns and no total: the page's rows as they are, which the
        // API writes as JSON (rows::json_array); aggregating them into JSON
        // here halved what the database could serve.
        let list: Vec<String> = columns
            .iter()
            .map(|(name, ty, value)| format!("{} AS {}", rows::output(value, *ty), quote(name)))
            .collect();
        let mut sql = b.finish(page(&list.join(", ")));
        sql.columns = Some(columns.iter().map(|(name, ty, _)| (*name, *ty)).collect());
        return Ok(sql);
    }
    let text = match plain {
        // Plain columns: the page sorts only them (not whole rows), and a
        // row of them, named by the registry, is its own JSON object; half
        // the statement's cost.
        Some(columns) => {
            let list: Vec<String> = columns
                .iter()
                .map(|(name, _, value)| format!("{value} AS {}", quote(name)))
                .collect();
            format!(
                "SELECT coalesce(json_agg(_r), '[]'::json)::text AS body, count(*) AS n, {total} AS total \
                 FROM ({}) _r",
                page(&list.join(", "))
            )
        }
        // Counting each row's bytes as it is built costs a function call per
        // row (half the statement's time on a page of names), so only rows
        // that may hold documents of any size are counted; others are
        // measured once built.
        None => {
            let json = b.json(&object);
            let row = if object.documents {
                format!("quarterdeck_rest_row({json}, {max_bytes})")
            } else {
                json
            };
            format!(
                "SELECT coalesce(json_agg({row}), '[]'::json)::text AS body, count(*) AS n, {total} AS total \
                 FROM ({}) {MAIN}",
                page(&format!("{MAIN}.*"))
            )
        }
    };
    Ok(b.finish(text))
}

/// A POST of `rows` (a JSON array of objects with exactly `columns`).
pub(crate) fn insert(
    schema: &Schema,
    caller: &Caller,
    relation: &Relation,
    columns: &[&'static str],
    rows: Value,
    returning: &Returning,
) -> Result<Sql, RestError> {
    let mut b = Builder::new(schema, caller);
    let body = b.param(Param::Json(rows));
    let table = quote(relation.table);
    let list = columns
        .iter()
        .map(|c| quote(c))
        .collect::<Vec<_>>()
        .join(", ");
    let representation = b.representation(relation, "_w", returning, Action::Create)?;
    let text = format!(
        "WITH _w AS (INSERT INTO {table} ({list}) SELECT {list} \
         FROM jsonb_populate_recordset(NULL::{table}, {body}::jsonb) RETURNING *) {representation}"
    );
    Ok(b.finish(text))
}

/// A PATCH setting `columns` from the `patch` object.
pub(crate) fn update(
    schema: &Schema,
    caller: &Caller,
    relation: &Relation,
    columns: &[&'static str],
    patch: Value,
    target: Target,
    returning: &Returning,
) -> Result<Sql, RestError> {
    let mut b = Builder::new(schema, caller);
    let body = b.param(Param::Json(patch));
    let conditions = b.target_conditions(relation, target)?;
    let table = quote(relation.table);
    let sets = columns
        .iter()
        .map(|c| format!("{0} = _b.{0}", quote(c)))
        .collect::<Vec<_>>()
        .join(", ");
    let representation = b.representation(relation, "_w", returning, Action::Update)?;
    let text = format!(
        "WITH _w AS (UPDATE {table} {MAIN} SET {sets} \
         FROM jsonb_populate_record(NULL::{table}, {body}::jsonb) _b{} RETURNING {MAIN}.*) {representation}",
        where_clause(&conditions)
    );
    Ok(b.finish(text))
}

/// A DELETE.
pub(crate) fn delete(
    schema: &Schema,
    caller: &Caller,
    relation: &Relation,
    target: Target,
    returning: &Returning,
) -> Result<Sql, RestError> {
    let mut b = Builder::new(schema, caller);
    let conditions = b.target_conditions(relation, target)?;
    let table = quote(relation.table);
    let representation = b.representation(relation, "_w", returning, Action::Delete)?;
    let text = format!(
        "WITH _w AS (DELETE FROM {table} {MAIN}{} RETURNING {MAIN}.*) {representation}",
        where_clause(&conditions)
    );
    Ok(b.finish(text))
}

/// Locks the rows a PATCH or DELETE targets: `ctid`, whether the row is
/// managed outside the UI, whether rules with selectors refuse the caller
/// `action` on it, and (when `rows`) the whole row for validators.
pub(crate) fn lock(
    schema: &Schema,
    caller: &Caller,
    relation: &Relation,
    filters: &[Condition],
    rows: bool,
    action: Action,
) -> Result<Sql, RestError> {
    let mut b = Builder::new(schema, caller);
    let conditions = b.target_conditions(relation, Target::Filters(filters))?;
    let read_only = if relation.source_guard {
        format!("{MAIN}.\"source\" IS DISTINCT FROM 'UI'")
    } else {
        "false".to_owned()
    };
    let row = if rows {
        format!("to_jsonb({MAIN})")
    } else {
        "NULL::jsonb".to_owned()
    };
    let refused = match b.permitted(relation, MAIN, action) {
        Some(permitted) => format!("NOT {permitted}"),
        None => "false".to_owned(),
    };
    let text = format!(
        "SELECT {MAIN}.ctid::text AS ctid, {read_only} AS read_only, {refused} AS refused, {row} AS row \
         FROM {} {MAIN}{} FOR UPDATE OF {MAIN}",
        quote(relation.table),
        where_clause(&conditions)
    );
    Ok(b.finish(text))
}

#[cfg(test)]
mod tests;
