//! Permission rules with selectors (the `spec.object` of Permission
//! resources) are enforced by the data API, over real HTTP against a real
//! database: an allow grants its actions on the rows it selects only, a
//! deny takes exactly those rows away on every read path (lists, single
//! reads, embeds, counts) and refuses writes to them, `whoami` says which
//! rights hold on some rows only, and nobody writes a selector rule for
//! rights they do not hold on every row it could select.

mod common;

use common::Api;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";

struct World {
    api: Api,
    prod_config: Uuid,
    dev_config: Uuid,
    restart: Uuid,
    cleanup: Uuid,
}

async fn id(pool: &PgPool, sql: &'static str) -> Uuid {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

/// Two config items (env prod and dev) with a change and a component each,
/// and two console playbooks (team a and b).
async fn world(pool: PgPool) -> World {
    let api = Api::start(pool.clone()).await;
    let prod_config = id(&pool, r#"INSERT INTO config_items (config_class, type, name, tags) VALUES ('Pod', 'Kubernetes::Pod', 'prod-pod', '{"env":"prod","namespace":"shop"}') RETURNING id"#).await;
    let dev_config = id(&pool, r#"INSERT INTO config_items (config_class, type, name, tags) VALUES ('Pod', 'Kubernetes::Pod', 'dev-pod', '{"env":"dev"}') RETURNING id"#).await;
    for (config, name) in [
        (prod_config, "prod-component"),
        (dev_config, "dev-component"),
    ] {
        sqlx::query("INSERT INTO config_changes (config_id, change_type) VALUES ($1, 'diff')")
            .bind(config)
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO components (name, type, external_id, config_id) VALUES ($1, 'Service', $1, $2)")
            .bind(name)
            .bind(config)
            .execute(&pool)
            .await
            .unwrap();
    }
    let restart = id(&pool, r#"INSERT INTO playbooks (name, title, spec, labels) VALUES ('restart', 'restart', '{"actions": [{"name": "a", "exec": {"script": "true"}}]}', '{"team":"a"}') RETURNING id"#).await;
    let cleanup = id(&pool, r#"INSERT INTO playbooks (name, title, spec, labels) VALUES ('cleanup', 'cleanup', '{"actions": [{"name": "a", "exec": {"script": "true"}}]}', '{"team":"b"}') RETURNING id"#).await;
    World {
        api,
        prod_config,
        dev_config,
        restart,
        cleanup,
    }
}

impl World {
    /// A person with these roles and these rules with selectors
    /// (`(object_selector, actions, deny)`), signed in.
    async fn person(&self, email: &str, roles: &[&str], rules: &[(Value, &str, bool)]) -> Client {
        let person = self.api.person(email, roles, PASSWORD).await;
        for (selector, action, deny) in rules {
            sqlx::query(
                "INSERT INTO permissions (name, subject_type, subject, person_id, action, deny, object_selector, source) \
                 VALUES (gen_random_uuid()::text, 'person', $1::text, $1, $2, $3, $4, 'KubernetesCRD')",
            )
            .bind(person)
            .bind(action)
            .bind(deny)
            .bind(selector)
            .execute(&self.api.pool)
            .await
            .unwrap();
        }
        self.api.signed_in(email, PASSWORD).await
    }

    async fn get(&self, client: &Client, path: &str) -> (StatusCode, Value, String) {
        let res = client
            .get(self.api.at(path))
            .header("Prefer", "count=exact")
            .send()
            .await
            .unwrap();
        let status = res.status();
        let range = res
            .headers()
            .get("content-range")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        (status, res.json().await.unwrap_or(Value::Null), range)
    }

    /// The `name`s of a read that must succeed.
    async fn names(&self, client: &Client, path: &str) -> Vec<String> {
        let (status, body, _) = self.get(client, path).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        let mut names: Vec<String> = body
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        names.sort();
        names
    }

    async fn playbook_title(&self, id: Uuid) -> String {
        sqlx::query_scalar("SELECT title FROM playbooks WHERE id = $1")
            .bind(id)
            .fetch_one(&self.api.pool)
            .await
            .unwrap()
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_allow_by_selector_grants_the_matching_rows_only(pool: PgPool) {
    let w = world(pool).await;
    let nobody = w
        .person(
            "nobody@example.com",
            &[],
            &[
                (
                    json!({"configs": [{"tagSelector": "env=prod"}]}),
                    "read",
                    false,
                ),
                (json!({"playbooks": [{"name": "*"}]}), "read", false),
                (
                    json!({"playbooks": [{"labelSelector": "team in (a)"}]}),
                    "update",
                    false,
                ),
            ],
        )
        .await;

    assert_eq!(
        w.names(&nobody, "/api/db/config_items?select=name").await,
        ["prod-pod"]
    );
    assert_eq!(
        w.names(&nobody, "/api/db/configs?select=name").await,
        ["prod-pod"]
    );
    let dev = format!("/api/db/config_items?id=eq.{}", w.dev_config);
    assert_eq!(w.names(&nobody, &dev).await, Vec::<String>::new());
    let (_, _, range) = w.get(&nobody, "/api/db/config_items?select=id").await;
    assert_eq!(range, "0-0/1", "counts see the granted rows only");
    assert_eq!(
        w.names(&nobody, "/api/db/playbooks?select=name").await,
        ["cleanup", "restart"]
    );

    // The grant is about those rows: other relations of the same resources
    // stay closed, and so do actions no rule names.
    for path in ["/api/db/people", "/api/db/teams", "/api/db/components"] {
        let (status, body, _) = w.get(&nobody, path).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
    }
    let (status, _) = w
        .api
        .call(
            &nobody,
            Method::DELETE,
            &format!("/api/db/playbooks?id=eq.{}", w.restart),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // Update is granted on team a's playbook, not on team b's.
    let (status, body) = w
        .api
        .call(
            &nobody,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{}", w.restart),
            Some(json!({"title": "Restart"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(w.playbook_title(w.restart).await, "Restart");
    let (status, body) = w
        .api
        .call(
            &nobody,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{}", w.cleanup),
            Some(json!({"title": "Cleanup"})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "42501", "{body}");
    assert_eq!(
        w.playbook_title(w.cleanup).await,
        "cleanup",
        "nothing written"
    );
    // Nor may a row be moved out of the rows the rule selects.
    let (status, body) = w
        .api
        .call(
            &nobody,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{}", w.restart),
            Some(json!({"labels": {"team": "b"}})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_deny_by_tag_hides_the_matching_configs_on_every_read_path(pool: PgPool) {
    let w = world(pool).await;
    let editor = w
        .person(
            "editor@example.com",
            &["editor"],
            &[(
                json!({"configs": [{"tagSelector": "env=prod"}]}),
                "read",
                true,
            )],
        )
        .await;
    let viewer = w.person("viewer@example.com", &["viewer"], &[]).await;

    // Lists and counts.
    assert_eq!(
        w.names(&editor, "/api/db/config_items?select=name").await,
        ["dev-pod"]
    );
    assert_eq!(
        w.names(&viewer, "/api/db/config_items?select=name").await,
        ["dev-pod", "prod-pod"]
    );
    let (_, _, range) = w.get(&editor, "/api/db/configs?select=id&limit=0").await;
    assert_eq!(range, "*/1");
    // Single reads, by id and by a filter on the tag itself.
    let prod = format!("/api/db/config_items?id=eq.{}", w.prod_config);
    assert_eq!(w.names(&editor, &prod).await, Vec::<String>::new());
    assert_eq!(w.names(&viewer, &prod).await, ["prod-pod"]);
    assert_eq!(
        w.names(&editor, "/api/db/config_items?tags->>env=eq.prod")
            .await,
        Vec::<String>::new()
    );
    // What points at a denied item follows it, like access scopes.
    let (_, changes, _) = w
        .get(&editor, "/api/db/config_changes?select=config_id")
        .await;
    assert_eq!(changes, json!([{"config_id": w.dev_config.to_string()}]));
    // Embeds: a to-one embed of a denied item is null, `!inner` drops the
    // parent, and a to-many embed leaves it out.
    let (status, components, _) = w
        .get(
            &editor,
            "/api/db/components?select=name,config(name)&order=name",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{components}");
    assert_eq!(
        components,
        json!([
            {"name": "dev-component", "config": {"name": "dev-pod"}},
            {"name": "prod-component", "config": null},
        ])
    );
    assert_eq!(
        w.names(&editor, "/api/db/components?select=name,config!inner(name)")
            .await,
        ["dev-component"]
    );
    let (_, embedded, _) = w
        .get(
            &editor,
            "/api/db/config_items?select=name,config_changes(change_type)",
        )
        .await;
    assert_eq!(embedded.as_array().unwrap().len(), 1, "{embedded}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_deny_refuses_writes_to_the_matching_rows_even_to_an_editor(pool: PgPool) {
    let w = world(pool).await;
    let editor = w
        .person(
            "editor@example.com",
            &["editor"],
            &[(
                json!({"playbooks": [{"labelSelector": "team=a"}]}),
                "update,delete",
                true,
            )],
        )
        .await;
    let restart = format!("/api/db/playbooks?id=eq.{}", w.restart);
    let (status, body) = w
        .api
        .call(
            &editor,
            Method::PATCH,
            &restart,
            Some(json!({"title": "x"})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "42501");
    let (status, _) = w.api.call(&editor, Method::DELETE, &restart, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(w.playbook_title(w.restart).await, "restart");
    // A filter matching both rows is refused whole.
    let (status, _) = w
        .api
        .call(
            &editor,
            Method::PATCH,
            "/api/db/playbooks?name=neq.none",
            Some(json!({"icon": "x"})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Other rows, and reads, are untouched.
    let (status, body) = w
        .api
        .call(
            &editor,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{}", w.cleanup),
            Some(json!({"title": "Cleanup"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        w.names(&editor, "/api/db/playbooks?select=name").await,
        ["cleanup", "restart"]
    );
    // Creating a row the deny selects is refused too (create is denied here).
    let creator = w
        .person(
            "creator@example.com",
            &["editor"],
            &[(
                json!({"playbooks": [{"labelSelector": "team=a"}]}),
                "create",
                true,
            )],
        )
        .await;
    let (status, body) = w
        .api
        .call(
            &creator,
            Method::POST,
            "/api/db/playbooks",
            Some(json!({"name": "new", "title": "new", "spec": {"actions": [{"name": "a", "exec": {"script": "true"}}]}, "labels": {"team": "a"}})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = w
        .api
        .call(
            &creator,
            Method::POST,
            "/api/db/playbooks",
            Some(json!({"name": "other", "title": "other", "spec": {"actions": [{"name": "a", "exec": {"script": "true"}}]}, "labels": {"team": "b"}})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn whoami_says_which_rights_hold_on_some_rows_only(pool: PgPool) {
    let w = world(pool).await;
    let rights = |client: Client| {
        let api = &w.api;
        async move {
            let (status, body) = api
                .call(&client, Method::GET, "/api/auth/whoami", None)
                .await;
            assert_eq!(status, StatusCode::OK);
            body["payload"].clone()
        }
    };
    let viewer = rights(w.person("viewer@example.com", &["viewer"], &[]).await).await;
    assert_eq!(viewer["limited_rights"], json!({}));
    assert_eq!(viewer["rights"]["playbooks"], json!(["read"]));

    let nobody = rights(
        w.person(
            "nobody@example.com",
            &[],
            &[(
                json!({"playbooks": [{"name": "restart"}]}),
                "read,update",
                false,
            )],
        )
        .await,
    )
    .await;
    assert_eq!(nobody["rights"]["playbooks"], json!(["read", "update"]));
    assert_eq!(
        nobody["limited_rights"],
        json!({"playbooks": ["read", "update"]})
    );
    assert_eq!(nobody["rights"]["database"], json!([]));
    assert_eq!(
        nobody["permissions"][0]["object_selector"],
        json!({"playbooks": [{"name": "restart"}]})
    );

    let editor = rights(
        w.person(
            "editor@example.com",
            &["editor"],
            &[(
                json!({"configs": [{"tagSelector": "env=prod"}]}),
                "read",
                true,
            )],
        )
        .await,
    )
    .await;
    assert_eq!(
        editor["rights"]["database"],
        json!(["read", "create", "update", "delete"])
    );
    assert_eq!(editor["limited_rights"], json!({"database": ["read"]}));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn nobody_writes_a_selector_rule_for_rows_they_cannot_act_on(pool: PgPool) {
    let w = world(pool).await;
    let admin = w.person("admin@example.com", &["admin"], &[]).await;
    let editor = w.person("editor@example.com", &["editor"], &[]).await;
    let narrowed = w
        .person(
            "narrowed@example.com",
            &["editor"],
            &[(
                json!({"configs": [{"tagSelector": "env=prod"}]}),
                "read",
                true,
            )],
        )
        .await;
    let target = w.api.person("target@example.com", &[], PASSWORD).await;
    let rule = |selector: Value, action: &str| {
        json!({"subject_type": "person", "subject": target.to_string(), "person_id": target,
               "action": action, "object_selector": selector})
    };
    let count = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM permissions WHERE person_id = $1")
            .bind(target)
            .fetch_one(&w.api.pool)
            .await
            .unwrap()
    };
    let configs = json!({"configs": [{"tagSelector": "env=prod"}]});
    for (client, selector, action, expected) in [
        // An editor holds read on every config: it may hand out some of them.
        (&editor, configs.clone(), "read", StatusCode::CREATED),
        // Not what it lacks: connections are the admin's alone.
        (
            &editor,
            json!({"connections": [{"type": "postgres"}]}),
            "read",
            StatusCode::FORBIDDEN,
        ),
        // Not actions this model does not know on the rows.
        (&editor, configs.clone(), "mcp:run", StatusCode::FORBIDDEN),
        // Not a selector nobody can enforce.
        (
            &editor,
            json!({"configs": [{"search": "prod"}]}),
            "read",
            StatusCode::FORBIDDEN,
        ),
        // Not while rules with selectors narrow the caller on those rows.
        (&narrowed, configs.clone(), "read", StatusCode::FORBIDDEN),
        (&narrowed, configs.clone(), "update", StatusCode::CREATED),
        (
            &admin,
            json!({"connections": [{"type": "postgres"}]}),
            "read",
            StatusCode::CREATED,
        ),
    ] {
        let before = count().await;
        let (status, body) = w
            .api
            .call(
                client,
                Method::POST,
                "/api/db/permissions",
                Some(rule(selector.clone(), action)),
            )
            .await;
        assert_eq!(status, expected, "{selector} {action}: {body}");
        if status == StatusCode::FORBIDDEN {
            assert_eq!(body["code"], "EESCALATION", "{body}");
            assert_eq!(count().await, before, "a refused write changes nothing");
        }
    }
    // Taking a deny away grants what it denied: the same rule applies (to a
    // rule written in the console; those of resources are read-only here).
    sqlx::query("UPDATE permissions SET source = 'UI' WHERE deny")
        .execute(&w.api.pool)
        .await
        .unwrap();
    let (status, body) = w
        .api
        .call(
            &narrowed,
            Method::DELETE,
            "/api/db/permissions?object_selector->configs->0->>tagSelector=eq.env%3Dprod&deny=is.true",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "EESCALATION", "{body}");
}
