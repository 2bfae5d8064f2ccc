use super::*;

fn field(column: &str) -> Field {
    Field {
        column: column.into(),
        path: vec![],
    }
}

fn filter(column: &str, negate: bool, op: Op, value: Operand) -> Condition {
    Condition::Filter {
        field: field(column),
        negate,
        op,
        value,
    }
}

fn scalar(v: &str) -> Operand {
    Operand::Scalar(v.into())
}

fn parse(q: &str) -> Query {
    parse_query(q).unwrap_or_else(|e| panic!("{q}: {e:?}"))
}

fn fails(q: &str) -> RestError {
    parse_query(q).expect_err(q)
}

#[test]
fn every_operator() {
    for (name, op) in [
        ("eq", Op::Eq),
        ("neq", Op::Neq),
        ("gt", Op::Gt),
        ("gte", Op::Gte),
        ("lt", Op::Lt),
        ("lte", Op::Lte),
        ("cs", Op::Cs),
        ("cd", Op::Cd),
        ("ov", Op::Ov),
    ] {
        let q = parse(&format!("age={name}.5"));
        assert_eq!(q.filters, [filter("age", false, op, scalar("5"))], "{name}");
    }
    let q = parse("name=like.*web*&title=ilike.A*");
    assert_eq!(
        q.filters,
        [
            filter("name", false, Op::Like, scalar("%web%")),
            filter("title", false, Op::Ilike, scalar("A%")),
        ]
    );
    for (value, is) in [
        ("null", IsValue::Null),
        ("NULL", IsValue::Null),
        ("not_null", IsValue::NotNull),
        ("true", IsValue::True),
        ("false", IsValue::False),
        ("unknown", IsValue::Unknown),
    ] {
        let q = parse(&format!("x=is.{value}"));
        assert_eq!(q.filters, [filter("x", false, Op::Is, Operand::Is(is))]);
    }
}

#[test]
fn values_keep_dots_and_decode() {
    let q = parse("version=eq.1.2.3&name=eq.a%20b+c&at=gte.2024-01-01T00:00:00%2B02:00");
    assert_eq!(
        q.filters,
        [
            filter("version", false, Op::Eq, scalar("1.2.3")),
            filter("name", false, Op::Eq, scalar("a b c")),
            filter("at", false, Op::Gte, scalar("2024-01-01T00:00:00+02:00")),
        ]
    );
    assert_eq!(
        parse("name=eq.").filters,
        [filter("name", false, Op::Eq, scalar(""))]
    );
}

#[test]
fn not_prefix() {
    assert_eq!(
        parse("deleted_at=not.is.null").filters,
        [filter(
            "deleted_at",
            true,
            Op::Is,
            Operand::Is(IsValue::Null)
        )]
    );
    assert_eq!(
        parse("name=not.in.(a,b)").filters,
        [filter(
            "name",
            true,
            Op::In,
            Operand::List(vec!["a".into(), "b".into()])
        )]
    );
}

#[test]
fn in_lists() {
    let list = |q: &str| match &parse(q).filters[0] {
        Condition::Filter {
            value: Operand::List(items),
            ..
        } => items.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(list("x=in.(a,b,c)"), ["a", "b", "c"]);
    assert_eq!(list("x=in.(a,\"b, c\",\"d(e)\")"), ["a", "b, c", "d(e)"]);
    assert_eq!(
        list("x=in.(\"say \\\"hi\\\"\",\"back\\\\slash\")"),
        ["say \"hi\"", "back\\slash"]
    );
    assert_eq!(list("x=in.()"), Vec::<String>::new());
    assert_eq!(list("x=in.(a,)"), ["a", ""]);
    assert_eq!(list("x=in.(,)"), ["", ""]);
    for bad in [
        "x=in.a,b",
        "x=in.(a",
        "x=in.(\"a)",
        "x=in.(\"a\"b)",
        "x=in.(a\"b)",
        "x=in.((a))",
    ] {
        assert_eq!(fails(bad).status, 400, "{bad}");
    }
    let many = (0..=MAX_IN_LIST).map(|i| i.to_string()).collect::<Vec<_>>();
    assert_eq!(fails(&format!("x=in.({})", many.join(","))).status, 400);
}

#[test]
fn logic_trees_nest() {
    let q = parse("or=(a.eq.1,and(b.gt.2,not.or(c.is.null,d.in.(x,\"y,z\"))),e.not.like.f*)");
    let expected = Condition::Logic {
        negate: false,
        logic: Logic::Or,
        items: vec![
            filter("a", false, Op::Eq, scalar("1")),
            Condition::Logic {
                negate: false,
                logic: Logic::And,
                items: vec![
                    filter("b", false, Op::Gt, scalar("2")),
                    Condition::Logic {
                        negate: true,
                        logic: Logic::Or,
                        items: vec![
                            filter("c", false, Op::Is, Operand::Is(IsValue::Null)),
                            filter(
                                "d",
                                false,
                                Op::In,
                                Operand::List(vec!["x".into(), "y,z".into()]),
                            ),
                        ],
                    },
                ],
            },
            filter("e", true, Op::Like, scalar("f%")),
        ],
    };
    assert_eq!(q.filters, [expected]);
    let q = parse("not.and=(a.eq.\"x,y\",b.eq.1.5)");
    assert_eq!(
        q.filters,
        [Condition::Logic {
            negate: true,
            logic: Logic::And,
            items: vec![
                filter("a", false, Op::Eq, scalar("x,y")),
                filter("b", false, Op::Eq, scalar("1.5")),
            ],
        }]
    );
}

#[test]
fn logic_trees_reject_bad_syntax_and_depth() {
    for bad in [
        "or=(a.eq.1",
        "or=a.eq.1",
        "or=()",
        "or=(a.eq.1))",
        "or=((a.eq.1)",
        "or=(a)",
        "or=(a.eq)",
        "or=(a.zz.1)",
        "or=(a.eq.x(y))",
        "or=(a.eq.\"x)",
        "and=(a.eq.1,)",
    ] {
        assert_eq!(fails(bad).status, 400, "{bad}");
    }
    let mut tree = "a.eq.1".to_owned();
    for _ in 0..MAX_LOGIC_DEPTH {
        tree = format!("and({tree})");
    }
    assert_eq!(fails(&format!("or=({tree})")).status, 400);
}

#[test]
fn json_paths() {
    let q = parse("tags->>env=eq.prod&spec->a->b=eq.1");
    assert_eq!(
        q.filters[0],
        Condition::Filter {
            field: Field {
                column: "tags".into(),
                path: vec![PathStep {
                    key: "env".into(),
                    text: true
                }],
            },
            negate: false,
            op: Op::Eq,
            value: scalar("prod"),
        }
    );
    let Condition::Filter { field, .. } = &q.filters[1] else {
        panic!("filter")
    };
    assert_eq!(field.path.len(), 2);
    assert!(field.path.iter().all(|s| !s.text));
    let q = parse("labels->>app.kubernetes.io/name=eq.web");
    let Condition::Filter { field, .. } = &q.filters[0] else {
        panic!("filter")
    };
    assert_eq!(field.path[0].key, "app.kubernetes.io/name");
    for bad in [
        "tags->>=eq.1",
        "tags->>a->b=eq.1",
        "->a=eq.1",
        "tags-x=eq.1",
    ] {
        assert_eq!(fails(bad).status, 400, "{bad}");
    }
}

#[test]
fn select_items() {
    let q = parse(
        "select=id,label:name,*,tags->>env,team:teams!team_id(id,members:team_members(*)),created_by(name),checks!inner()",
    );
    let select = q.select.expect("select");
    assert_eq!(
        select[0],
        SelectItem::Field {
            alias: None,
            field: field("id")
        }
    );
    assert_eq!(
        select[1],
        SelectItem::Field {
            alias: Some("label".into()),
            field: field("name")
        }
    );
    assert_eq!(select[2], SelectItem::Star);
    let SelectItem::Field { field: f, .. } = &select[3] else {
        panic!("field")
    };
    assert_eq!(f.default_key(), "env");
    assert_eq!(
        select[4],
        SelectItem::Embed {
            alias: Some("team".into()),
            name: "teams".into(),
            hints: vec!["team_id".into()],
            select: vec![
                SelectItem::Field {
                    alias: None,
                    field: field("id")
                },
                SelectItem::Embed {
                    alias: Some("members".into()),
                    name: "team_members".into(),
                    hints: vec![],
                    select: vec![SelectItem::Star],
                },
            ],
        }
    );
    assert_eq!(
        select[6],
        SelectItem::Embed {
            alias: None,
            name: "checks".into(),
            hints: vec!["inner".into()],
            select: vec![SelectItem::Star],
        }
    );
    assert_eq!(parse("select=id, name").select.map(|s| s.len()), Some(2));
}

#[test]
fn select_rejects_bad_syntax() {
    for bad in [
        "select=",
        "select=id,,name",
        "select=name::text",
        "select=...team(name)",
        "select=team(name",
        "select=name)",
        "select=a:b:c",
        "select=a b:name",
        "select=:name",
        "select=t!(name)",
        "select=t!a!b!c(name)",
        "select=na\"me",
        "select=(name)",
    ] {
        assert_eq!(fails(bad).status, 400, "{bad}");
    }
    let mut deep = "name".to_owned();
    for _ in 0..=MAX_EMBED_DEPTH {
        deep = format!("e({deep})");
    }
    assert_eq!(fails(&format!("select={deep}")).status, 400);
    let many = vec!["id"; MAX_SELECT_ITEMS + 1].join(",");
    assert_eq!(fails(&format!("select={many}")).status, 400);
}

#[test]
fn order_terms() {
    let q = parse(
        "order=name,created_at.desc,health.asc.nullsfirst,tags->>team.desc.nullslast,x.nullslast",
    );
    let terms: Vec<(String, bool, Option<Nulls>)> = q
        .order
        .iter()
        .map(|t| (t.field.default_key().to_owned(), t.desc, t.nulls))
        .collect();
    assert_eq!(
        terms,
        [
            ("name".into(), false, None),
            ("created_at".into(), true, None),
            ("health".into(), false, Some(Nulls::First)),
            ("team".into(), true, Some(Nulls::Last)),
            ("x".into(), false, Some(Nulls::Last)),
        ]
    );
    for bad in [
        "order=name.sideways",
        "order=name.nullslast.desc",
        "order=random()",
        "order=",
        "order=name,",
        "order=name desc",
    ] {
        assert_eq!(fails(bad).status, 400, "{bad}");
    }
}

#[test]
fn limits_offsets_and_duplicates() {
    let q = parse("limit=10&offset=20");
    assert_eq!((q.limit, q.offset), (Some(10), Some(20)));
    for bad in [
        "limit=-1",
        "limit=x",
        "limit=",
        "limit=1.5",
        "offset=99999999999999999999999",
        "limit=1&limit=2",
        "select=id&select=name",
    ] {
        assert_eq!(fails(bad).status, 400, "{bad}");
    }
}

#[test]
fn unknown_keys_become_filters_and_bad_ones_fail() {
    assert_eq!(fails("name").status, 400);
    assert_eq!(fails("name=zz.1").message, "unknown operator 'zz'");
    assert!(fails("team.name=eq.x").message.contains("embedded"));
    assert_eq!(fails("columns=a,b").status, 400);
    assert_eq!(fails("on_conflict=id").status, 400);
    assert_eq!(parse("").filters, []);
    assert_eq!(parse("&&").filters, []);
}

#[test]
fn encoding_tricks() {
    for bad in [
        "x=eq.%", "x=eq.%4", "x=eq.%ZZ", "x=eq.%FF", "x=eq.%00", "x%=eq.1",
    ] {
        assert_eq!(fails(bad).status, 400, "{bad}");
    }
    // An encoded '&' or '=' stays inside the value.
    assert_eq!(
        parse("x=eq.a%26b%3Dc").filters,
        [filter("x", false, Op::Eq, scalar("a&b=c"))]
    );
    let long = format!("x=eq.{}", "a".repeat(MAX_QUERY_LENGTH));
    assert_eq!(fails(&long).status, 414);
}

#[test]
fn prefer_and_range_headers() {
    assert_eq!(parse_prefer(""), Prefer::default());
    assert_eq!(
        parse_prefer("return=representation, count=exact"),
        Prefer {
            representation: true,
            count: true
        }
    );
    assert_eq!(
        parse_prefer("return=minimal,count=none,handling=lenient,tx=rollback"),
        Prefer::default()
    );
    assert_eq!(
        parse_range("0-49"),
        Ok(Range {
            first: 0,
            last: Some(49)
        })
    );
    assert_eq!(
        parse_range("items=10-"),
        Ok(Range {
            first: 10,
            last: None
        })
    );
    for bad in ["", "abc", "5-2", "-5", "1-2-3", "a-b", "0x1-2"] {
        assert_eq!(parse_range(bad).map_err(|e| e.status), Err(416), "{bad}");
    }
}
