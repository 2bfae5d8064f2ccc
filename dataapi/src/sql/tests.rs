use std::collections::BTreeMap;

use super::*;
use crate::parse::parse_query;
use crate::{ScopeRule, Visibility};

fn relation(name: &str) -> &'static Relation {
    Schema::console().relation(name).expect("registered")
}

fn build(relation_name: &str, query: &str, visibility: &Visibility) -> Result<Sql, RestError> {
    let query = parse_query(query)?;
    let caller = Caller {
        visibility: visibility.clone(),
        ..Caller::default()
    };
    select(
        Schema::console(),
        &caller,
        relation(relation_name),
        &query,
        (50, 0),
        false,
    )
}

fn sql(relation_name: &str, query: &str) -> Sql {
    build(relation_name, query, &Visibility::default()).unwrap_or_else(|e| panic!("{query}: {e:?}"))
}

fn texts(sql: &Sql) -> Vec<&str> {
    sql.params
        .iter()
        .filter_map(|p| match p {
            Param::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn values_are_bound_never_spliced() {
    let encoded = "x%27%20OR%20%271%27%3D%271%3B%20DROP%20TABLE%20teams%3B--";
    for query in [
        format!("name=eq.{encoded}"),
        format!("name=like.{encoded}"),
        format!("name=in.({encoded},b)"),
        format!("or=(name.eq.{encoded})"),
        format!("select=name&spec->>{encoded}=eq.1"),
    ] {
        let built = sql("teams", &query);
        assert!(!built.text.contains("DROP"), "{query}: {}", built.text);
        assert!(!built.text.contains("OR '1'"), "{query}: {}", built.text);
        let bound = format!("{:?}", built.params);
        assert!(bound.contains("DROP TABLE"), "{query}: {bound}");
    }
}

#[test]
fn filters_cast_parameters_to_the_column_type() {
    let built = sql(
        "config_items",
        "id=eq.x&cost_per_minute=gt.1&ready=is.true&created_at=lt.2024-01-01&tags->>env=eq.prod&name=in.(a,b)&id=in.(c)",
    );
    let t = &built.text;
    assert!(t.contains("(t0.\"id\" = $"), "{t}");
    assert!(t.contains("::uuid)"), "{t}");
    assert!(
        t.contains("t0.\"cost_per_minute\" > $") && t.contains("::double precision"),
        "{t}"
    );
    assert!(t.contains("(t0.\"ready\" IS TRUE)"), "{t}");
    assert!(t.contains("::timestamptz"), "{t}");
    assert!(t.contains("((t0.\"tags\" ->> $"), "{t}");
    assert!(t.contains("t0.\"name\" = ANY($"), "{t}");
    assert!(t.contains("::uuid[]"), "{t}");
    assert!(
        built
            .params
            .contains(&Param::TextArray(vec!["a".into(), "b".into()]))
    );
}

#[test]
fn operators_must_fit_the_column() {
    for (relation_name, query) in [
        ("teams", "name=is.true"),
        ("teams", "spec=gt.1"),
        ("teams", "spec=like.x"),
        ("teams", "name=cs.{a}"),
        ("teams", "name=ov.{a}"),
        ("people", "roles=in.(a)"),
        ("people", "roles=like.a"),
        ("teams", "name->>x=eq.1"),
    ] {
        let error = build(relation_name, query, &Visibility::default()).expect_err(query);
        assert_eq!(
            (error.status, error.code.as_str()),
            (400, "PGRST100"),
            "{query}"
        );
    }
    sql(
        "people",
        "roles=cs.{admin}&roles=ov.{a,b}&roles=eq.{x}&properties=cd.{}",
    );
}

#[test]
fn select_builds_json_with_bound_keys_and_embeds() {
    let built = sql(
        "access_scopes",
        "select=label:name,person(name),created_by(*),team:teams!team_id(name)",
    );
    let t = &built.text;
    assert!(
        t.starts_with("SELECT coalesce(json_agg(quarterdeck_rest_row(json_build_object("),
        "{t}"
    );
    assert!(
        t.contains("FROM \"people\" t1 WHERE t1.\"id\" = t0.\"person_id\""),
        "{t}"
    );
    assert!(
        t.contains("FROM \"teams\" t3 WHERE t3.\"id\" = t0.\"team_id\""),
        "{t}"
    );
    assert_eq!(texts(&built)[..2], ["label", "person"]);
    // created_by(*) expands to the embeddable columns of people only.
    assert!(t.contains("'avatar', t2.\"avatar\""), "{t}");
    assert!(!t.contains("t2.\"roles\""), "{t}");
    assert!(!t.contains("password"), "{t}");
    assert_eq!(built.embedded_resources, [Resource::Database; 3]);

    let built = sql(
        "canaries",
        "select=name,checks(name,check_statuses(status))",
    );
    assert!(
        built.text.contains(
            "quarterdeck_rest_embedded(coalesce(json_agg(_e.j), '[]'::json), count(*), 2000)"
        ),
        "{}",
        built.text
    );
    assert!(
        built.text.contains("t2.\"check_id\" = t1.\"id\""),
        "{}",
        built.text
    );
}

#[test]
fn embeds_resolve_like_postgrest() {
    let ok = |relation_name: &str, query: &str| {
        build(relation_name, query, &Visibility::default())
            .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    };
    ok("access_scopes", "select=person(name)");
    ok("access_scopes", "select=person_id(name)");
    ok("access_scopes", "select=people!person_id(name)");
    ok(
        "access_scopes",
        "select=people!access_scopes_created_by_fkey(name)",
    );
    ok("access_scopes", "select=people!created_by!inner(name)");
    ok("team_members", "select=teams(name),people(name)");
    ok("canaries", "select=checks!checks_canary_id_fkey(name)");
    ok("teams", "select=team_members(person(name),teams(name))");
    let err = |relation_name: &str, query: &str| {
        build(relation_name, query, &Visibility::default()).expect_err(query)
    };
    assert_eq!(err("access_scopes", "select=people(name)").status, 300);
    assert_eq!(
        err("access_scopes", "select=people!nope(name)").code,
        "PGRST200"
    );
    assert_eq!(
        err("access_scopes", "select=canaries(name)").code,
        "PGRST200"
    );
    assert_eq!(
        err("access_scopes", "select=person(password_hash)").code,
        "42703"
    );
    assert_eq!(
        err("permissions", "select=connection(password)").code,
        "42703"
    );
}

#[test]
fn ordering_is_bound_and_paging_written() {
    let built = sql(
        "config_items",
        "order=name.desc.nullslast,tags->>team,created_at.asc.nullsfirst",
    );
    assert!(
        built.text.contains(
            "ORDER BY t0.\"name\" DESC NULLS LAST, (t0.\"tags\" ->> $1) ASC, t0.\"created_at\" ASC NULLS FIRST LIMIT 50 OFFSET 0"
        ),
        "{}",
        built.text
    );
    // The page is sorted once; json_agg keeps the subquery's order.
    assert_eq!(built.text.matches("ORDER BY").count(), 1, "{}", built.text);
    assert_eq!(built.params.len(), 1);
}

#[test]
fn counts_reuse_the_filters() {
    let query = parse_query("name=eq.x").expect("query");
    let built = select(
        Schema::console(),
        &Caller::default(),
        relation("teams"),
        &query,
        (10, 0),
        true,
    )
    .expect("sql");
    assert!(
        built
            .text
            .contains("(SELECT count(*) FROM \"teams\" t0 WHERE (t0.\"name\" = $1)) AS total"),
        "{}",
        built.text
    );
}

#[test]
fn scopes_add_one_predicate_per_scoped_relation() {
    let unrestricted = sql("checks", "select=name,canary(name)");
    assert!(!unrestricted.text.contains("quarterdeck_scope_allows"));

    let rule = ScopeRule {
        tags: BTreeMap::from([("env".into(), "prod".into())]),
        ..ScopeRule::default()
    };
    let visibility = Visibility {
        canary: Some(vec![rule]),
        ..Visibility::default()
    };
    let built = build("checks", "select=name,canary(name)", &visibility).expect("sql");
    let t = &built.text;
    assert_eq!(t.matches("quarterdeck_scope_allows(").count(), 2, "{t}");
    assert!(t.contains("EXISTS (SELECT 1 FROM \"canaries\""), "{t}");
    let json_params = built
        .params
        .iter()
        .filter(|p| matches!(p, Param::Json(_)))
        .count();
    assert_eq!(json_params, 1, "the rules are bound once per kind");

    let none = build("config_items", "", &Visibility::none()).expect("sql");
    assert!(none.text.contains(" FALSE"), "{}", none.text);
    let playbooks = build(
        "playbooks",
        "",
        &Visibility {
            playbook: Some(vec![ScopeRule {
                names: vec!["a".into()],
                ..ScopeRule::default()
            }]),
            ..Visibility::default()
        },
    )
    .expect("sql");
    assert!(
        playbooks
            .text
            .contains("'00000000-0000-0000-0000-000000000000'::uuid"),
        "playbooks have no agent column: {}",
        playbooks.text
    );
}

#[test]
fn wide_selects_split_the_json_object() {
    let items = (0..120)
        .map(|i| format!("k{i}:name"))
        .collect::<Vec<_>>()
        .join(",");
    let built = sql("teams", &format!("select={items}"));
    assert_eq!(built.text.matches("json_build_object(").count(), 3);
    assert!(
        built.text.contains("left(json_build_object("),
        "{}",
        built.text
    );
    assert_eq!(
        build_object(&[("'a'".into(), "1".into())]),
        "json_build_object('a', 1)"
    );
    assert_eq!(build_object(&[]), "'{}'::json");
}

#[test]
fn writes() {
    let schema = Schema::console();
    let caller = Caller::default();
    let teams = relation("teams");
    let built = insert(
        schema,
        &caller,
        teams,
        &["name", "source"],
        serde_json::json!([{"name": "a", "source": "UI"}]),
        &Returning::Count,
    )
    .expect("insert");
    assert_eq!(
        built.text,
        "WITH _w AS (INSERT INTO \"teams\" (\"name\", \"source\") SELECT \"name\", \"source\" \
         FROM jsonb_populate_recordset(NULL::\"teams\", $1::jsonb) RETURNING *) \
         SELECT '[]'::json AS body, count(*) AS n, 0::bigint AS hidden, 0::bigint AS refused, \
         (SELECT json_agg(to_jsonb(t0)) FROM _w t0) AS written FROM _w"
    );
    let query = parse_query("name=eq.a").expect("query");
    let built = update(
        schema,
        &caller,
        teams,
        &["icon"],
        serde_json::json!({"icon": "x"}),
        Target::Filters(&query.filters),
        &Returning::Rows(None),
    )
    .expect("update");
    assert!(
        built.text.starts_with(
            "WITH _w AS (UPDATE \"teams\" t0 SET \"icon\" = _b.\"icon\" \
             FROM jsonb_populate_record(NULL::\"teams\", $1::jsonb) _b WHERE (t0.\"name\" = $2) RETURNING t0.*)"
        ),
        "{}",
        built.text
    );
    let built = delete(
        schema,
        &caller,
        teams,
        Target::Ctids(vec!["(0,1)".into()]),
        &Returning::Count,
    )
    .expect("delete");
    assert!(
        built.text.contains("WHERE t0.ctid = ANY($1::tid[])"),
        "{}",
        built.text
    );
    let built = lock(
        schema,
        &caller,
        teams,
        &query.filters,
        true,
        quarterdeck_store::rbac::Action::Update,
    )
    .expect("lock");
    assert!(
        built
            .text
            .contains("t0.\"source\" IS DISTINCT FROM 'UI' AS read_only")
    );
    assert!(built.text.ends_with("FOR UPDATE OF t0"));
}

#[test]
fn a_page_of_plain_columns_is_its_rows_and_given_keys_stay_bound() {
    let plain = sql("config_items", "select=id,name,created_at&type=eq.Pod");
    assert!(!plain.text.contains("json_agg"), "{}", plain.text);
    assert!(
        plain.text.starts_with(
            "SELECT t0.\"id\" AS \"id\", t0.\"name\" AS \"name\", \
             to_json(t0.\"created_at\")::text AS \"created_at\" FROM"
        ),
        "{}",
        plain.text
    );
    assert_eq!(
        plain.columns,
        Some(vec![
            ("id", ColumnType::Uuid),
            ("name", ColumnType::Text),
            ("created_at", ColumnType::Timestamp)
        ])
    );
    assert_eq!(texts(&plain), ["Pod"]);
    // A total is counted beside the page, which PostgreSQL then aggregates.
    let counted = select(
        Schema::console(),
        &Caller::default(),
        relation("config_items"),
        &parse_query("select=id,name").expect("query"),
        (50, 0),
        true,
    )
    .expect("select");
    assert!(counted.text.contains("json_agg(_r)"), "{}", counted.text);
    assert_eq!(counted.columns, None);

    let aliased = sql("config_items", "select=id,label:name");
    assert!(
        aliased
            .text
            .contains("json_build_object('id', t0.\"id\", $1,"),
        "{}",
        aliased.text
    );
    assert_eq!(texts(&aliased), ["label"]);
    // Documents are counted against the answer's budget row by row.
    let documents = sql("config_items", "select=id,tags");
    assert!(
        documents.text.contains("quarterdeck_rest_row("),
        "{}",
        documents.text
    );
}
