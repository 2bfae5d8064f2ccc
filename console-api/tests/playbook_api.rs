//! The playbook calls over real HTTP and PostgreSQL: which playbooks run on
//! a target (selectors, CEL filters, access scopes), parameters with
//! templated defaults, runs (rights on one playbook, parameter rules, the
//! spec snapshot), approvals (any, all, through a team, a non-approver),
//! cancel, a guest's scopes, and the server's check of console playbooks.

mod common;

use common::*;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PW: &str = "pw";

async fn scalar(pool: &PgPool, sql: &str, binds: &[Uuid]) -> Uuid {
    let mut q = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()));
    for b in binds {
        q = q.bind(*b);
    }
    q.fetch_one(pool).await.unwrap()
}

async fn item(pool: &PgPool, name: &str, team: &str) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, status, health, tags, config) \
         VALUES ('Deployment', 'Kubernetes::Deployment', $1, 'Running', 'healthy', $2, '{\"replicas\": 3}') \
         RETURNING id",
    )
    .bind(name)
    .bind(json!({"team": team, "namespace": "shop"}))
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn playbook(pool: &PgPool, name: &str, spec: Value, labels: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO playbooks (name, title, category, spec, labels) VALUES ($1, $1, 'ops', $2, $3) RETURNING id",
    )
    .bind(name)
    .bind(spec)
    .bind(labels)
    .fetch_one(pool)
    .await
    .unwrap()
}

fn spec(extra: Value) -> Value {
    let mut spec = json!({
        "configs": [{"types": ["Kubernetes::Deployment"]}],
        "actions": [{"name": "call", "http": {"url": "http://127.0.0.1:1/"}}],
    });
    if let (Some(spec), Some(extra)) = (spec.as_object_mut(), extra.as_object()) {
        spec.extend(extra.clone());
    }
    spec
}

fn names(rows: &Value) -> Vec<&str> {
    rows.as_array()
        .unwrap_or_else(|| panic!("not a list: {rows}"))
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect()
}

async fn run(api: &Api, who: &Client, body: Value) -> (StatusCode, Value) {
    api.call(who, Method::POST, "/api/playbook/run", Some(body))
        .await
}

async fn run_status(pool: &PgPool, run: &Value) -> String {
    let id: Uuid = run["run_id"].as_str().unwrap().parse().unwrap();
    sqlx::query_scalar("SELECT status FROM playbook_runs WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn runnable_playbooks_by_selectors_filters_and_scopes(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let w = api.admin_and_guest().await;
    let web = item(&pool, "web", "web").await;
    let data = item(&pool, "db", "data").await;
    let canary = scalar(&pool, "INSERT INTO canaries (name, spec, labels) VALUES ('probes', '{}', '{\"team\": \"web\"}') RETURNING id", &[]).await;
    let check = scalar(&pool, "INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'home', 'unhealthy') RETURNING id", &[canary]).await;
    let component = scalar(&pool, "INSERT INTO components (name, type, external_id, status, labels) VALUES ('api', 'Service', 'api', 'healthy', '{\"team\": \"web\"}') RETURNING id", &[]).await;
    let web_labels = json!({"team": "web"});
    playbook(&pool, "scale", spec(json!({})), web_labels.clone()).await;
    playbook(
        &pool,
        "scale-big",
        spec(json!({"filters": ["config.config.replicas > 5"]})),
        web_labels.clone(),
    )
    .await;
    playbook(
        &pool,
        "scale-web",
        spec(json!({"filters": ["config.tags.team == 'web'", "playbook.name == 'scale-web'"]})),
        web_labels.clone(),
    )
    .await;
    playbook(
        &pool,
        "broken-filter",
        spec(json!({"filters": ["config.nope.x +"]})),
        web_labels.clone(),
    )
    .await;
    playbook(&pool, "data-only", spec(json!({})), json!({"team": "data"})).await;
    playbook(
        &pool,
        "rerun",
        spec(json!({"configs": null, "checks": [{"statuses": ["unhealthy"]}]})),
        web_labels.clone(),
    )
    .await;
    playbook(&pool, "restart-service", spec(json!({"configs": null, "components": [{"types": ["Service"]}], "filters": ["component.status == 'healthy'"]})), web_labels.clone()).await;
    playbook(
        &pool,
        "standalone",
        spec(json!({"configs": null})),
        web_labels.clone(),
    )
    .await;
    api.access_scope(
        "web",
        Subject::Person(w.guest_id),
        &["*"],
        json!([{"tags": {"team": "web"}}]),
    )
    .await;

    let list = |query: String| format!("/api/playbook/list?{query}");
    let (status, rows) = api
        .call(
            &w.admin,
            Method::GET,
            &list(format!("config_id={web}")),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    assert_eq!(names(&rows), ["data-only", "scale", "scale-web"]);
    let (_, rows) = api
        .call(
            &w.admin,
            Method::GET,
            &list(format!("check_id={check}")),
            None,
        )
        .await;
    assert_eq!(names(&rows), ["rerun"]);
    let (_, rows) = api
        .call(
            &w.admin,
            Method::GET,
            &list(format!("component_id={component}")),
            None,
        )
        .await;
    assert_eq!(names(&rows), ["restart-service"]);

    // The guest: web playbooks on web targets only.
    let (_, rows) = api
        .call(
            &w.guest,
            Method::GET,
            &list(format!("config_id={web}")),
            None,
        )
        .await;
    assert_eq!(names(&rows), ["scale", "scale-web"]);
    let (_, rows) = api
        .call(
            &w.guest,
            Method::GET,
            &list(format!("check_id={check}")),
            None,
        )
        .await;
    assert_eq!(names(&rows), ["rerun"]);
    let status = api
        .status(
            &w.guest,
            Method::GET,
            &list(format!("config_id={data}")),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // With no target: the playbooks that run without one.
    let (status, rows) = api
        .call(&w.admin, Method::GET, "/api/playbook/list", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    assert_eq!(names(&rows), ["standalone"]);
    let (status, body) = api
        .call(&w.admin, Method::GET, &list("config_id=nope".into()), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    // Several targets: the playbooks that run on every one of them.
    let mut each = Vec::new();
    for query in [format!("config_id={web}"), format!("check_id={check}")] {
        let (status, rows) = api.call(&w.admin, Method::GET, &list(query), None).await;
        assert_eq!(status, StatusCode::OK, "{rows}");
        each.push(
            names(&rows)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        );
    }
    let (status, rows) = api
        .call(
            &w.admin,
            Method::GET,
            &list(format!("config_id={web}&check_id={check}")),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    let both: Vec<_> = each[0]
        .iter()
        .filter(|n| each[1].contains(n))
        .cloned()
        .collect();
    assert_eq!(names(&rows), both);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn parameters_with_defaults_templated_for_the_target(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let w = api.admin_and_guest().await;
    let web = item(&pool, "web", "web").await;
    let id = playbook(
        &pool,
        "scale",
        spec(json!({"parameters": [
            {"name": "name", "default": "{{.config.name}}-{{.config.tags.namespace}}"},
            {"name": "replicas", "label": "Replicas", "default": "{{.config.config.replicas}}"},
            {"name": "values", "type": "code", "properties": {"language": "yaml"}, "default": {"image": "{{.config.name}}:1"}},
            {"name": "by", "default": "{{.user.email}}"},
            {"name": "plain"}
        ]})),
        json!({}),
    )
    .await;
    let path = format!("/api/playbook/{id}/params");
    let (status, body) = api
        .call(
            &w.admin,
            Method::POST,
            &path,
            Some(json!({"config_id": web})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let defaults: Vec<&Value> = body["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["default"])
        .collect();
    assert_eq!(
        defaults,
        [
            &json!("web-shop"),
            &json!("3"),
            &json!("image: web:1\n"),
            &json!("admin@example.com"),
            &Value::Null
        ]
    );
    assert_eq!(body["params"][1]["label"], "Replicas");
    // Without a target the defaults render over what there is.
    let (status, body) = api
        .call(&w.admin, Method::POST, &path, Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["params"][3]["default"], "admin@example.com");
    let status = api
        .status(
            &w.admin,
            Method::POST,
            &format!("/api/playbook/{}/params", Uuid::new_v4()),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The guest sees no playbook.
    let status = api
        .status(&w.guest, Method::POST, &path, Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn running_needs_playbook_run_on_that_playbook_and_valid_parameters(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], PW).await;
    let viewer_id = api.person("viewer@example.com", &["viewer"], PW).await;
    let editor = api.signed_in("editor@example.com", PW).await;
    let viewer = api.signed_in("viewer@example.com", PW).await;
    let web = item(&pool, "web", "web").await;
    let params = json!({"parameters": [
        {"name": "replicas", "required": true, "properties": {"format": "number", "min": 1, "max": 10}},
        {"name": "memory", "type": "bytes", "default": "512Mi", "properties": {"max": "4Gi"}},
        {"name": "cpu", "type": "millicores"},
        {"name": "release", "properties": {"format": "dns1123"}},
        {"name": "token", "type": "secret"}
    ]});
    let scale = playbook(&pool, "scale", spec(params.clone()), json!({})).await;
    let other = playbook(&pool, "other", spec(params), json!({})).await;
    let body = |id: Uuid, params: Value| json!({"id": id, "config_id": web, "params": params});

    // An editor runs it: 201 with the run's id and start (RFC 3339).
    let (status, created) = run(
        &api,
        &editor,
        body(scale, json!({"replicas": "3", "token": "s3cret"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let starts_at = created["starts_at"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(starts_at).is_ok(),
        "{starts_at}"
    );
    assert_eq!(run_status(&pool, &created).await, "scheduled");
    let run_id = created["run_id"].as_str().unwrap();
    let (stored_spec, parameters, created_by): (Value, Value, Uuid) = sqlx::query_as(
        "SELECT spec, parameters, created_by FROM playbook_runs WHERE id = $1::uuid",
    )
    .bind(run_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        stored_spec["actions"][0]["name"], "call",
        "the spec snapshot"
    );
    assert_eq!(
        parameters,
        json!({"replicas": "3", "memory": "512Mi", "token": "s3cret"})
    );
    let editor_id: Uuid =
        sqlx::query_scalar("SELECT id FROM people WHERE email = 'editor@example.com'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(created_by, editor_id);

    // The run as read back: the playbook, the target, secrets masked.
    let (status, detail) = api
        .call(
            &editor,
            Method::GET,
            &format!("/api/playbook/run/{run_id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    assert_eq!(detail["playbook"]["name"], "scale");
    assert_eq!(detail["config"], json!({"id": web, "name": "web"}));
    assert_eq!(detail["created_by_person"]["name"], "editor");
    assert_eq!(detail["parameters"]["token"], "********");
    assert_eq!(detail["status"], "scheduled");
    assert_eq!(detail["can_cancel"], true);
    assert_eq!(detail["can_approve"], false);
    let (status, state) = api
        .call(
            &editor,
            Method::GET,
            &format!("/api/playbook/run/{run_id}/status"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{state}");
    assert_eq!(state["status"], "scheduled");
    let (status, actions) = api
        .call(
            &editor,
            Method::GET,
            &format!("/api/db/rpc/get_playbook_run_actions?run_id={run_id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{actions}");
    assert!(actions.is_array());

    // Parameters that break their rules: 400 naming the parameter.
    for (params, field, message) in [
        (
            json!({}),
            "params.replicas",
            "params.replicas: This field is required",
        ),
        (
            json!({"replicas": "x"}),
            "params.replicas",
            "params.replicas: This field must be a number",
        ),
        (
            json!({"replicas": "11"}),
            "params.replicas",
            "params.replicas: Must be at most 10",
        ),
        (
            json!({"replicas": "1", "memory": "8Gi"}),
            "params.memory",
            "params.memory: Must be at most 4Gi",
        ),
        (
            json!({"replicas": "1", "memory": "1G"}),
            "params.memory",
            "params.memory: Must be a number with unit Mi, Gi or Ti, e.g. 512Mi",
        ),
        (
            json!({"replicas": "1", "cpu": "500"}),
            "params.cpu",
            "params.cpu: Must be a number of millicores with suffix m, e.g. 500m",
        ),
        (
            json!({"replicas": "1", "release": "Web_1"}),
            "params.release",
            "params.release: Must consist of lowercase alphanumerics, '-' or '.', each label starting and ending with an alphanumeric",
        ),
        (
            json!({"replicas": "1", "nope": "1"}),
            "params.nope",
            "params.nope: Not a parameter of this playbook",
        ),
    ] {
        let (status, error) = run(&api, &editor, body(scale, params.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{params}: {error}");
        assert_eq!(error["field"], field, "{params}: {error}");
        assert_eq!(error["message"], message, "{params}: {error}");
    }

    // A viewer may not run playbooks...
    let (status, error) = run(&api, &viewer, body(scale, json!({"replicas": "1"}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{error}");
    assert_eq!(error["action"], "playbook:run");
    // ... unless a rule allows that one playbook.
    sqlx::query("INSERT INTO permissions (subject_type, person_id, action, playbook_id) VALUES ('person', $1, 'playbook:run', $2)")
        .bind(viewer_id)
        .bind(scale)
        .execute(&pool)
        .await
        .unwrap();
    let (status, created) = run(&api, &viewer, body(scale, json!({"replicas": "1"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (status, _) = run(&api, &viewer, body(other, json!({"replicas": "1"}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // A deny on that playbook wins over the editor role.
    sqlx::query("INSERT INTO permissions (subject_type, person_id, action, playbook_id, deny) SELECT 'person', id, 'playbook:*', $1, true FROM people WHERE email = 'editor@example.com'")
        .bind(other)
        .execute(&pool)
        .await
        .unwrap();
    let (status, _) = run(&api, &editor, body(other, json!({"replicas": "1"}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = run(&api, &editor, body(scale, json!({"replicas": "1"}))).await;
    assert_eq!(status, StatusCode::CREATED);

    // Targets the playbook does not run on, or none when it needs one.
    let check_canary = scalar(
        &pool,
        "INSERT INTO canaries (name, spec) VALUES ('c', '{}') RETURNING id",
        &[],
    )
    .await;
    let check = scalar(
        &pool,
        "INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'home') RETURNING id",
        &[check_canary],
    )
    .await;
    let (status, error) = run(
        &api,
        &editor,
        json!({"id": scale, "check_id": check, "params": {"replicas": "1"}}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(error["field"], "check_id");
    let (status, error) = run(
        &api,
        &editor,
        json!({"id": scale, "params": {"replicas": "1"}}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let (status, _) = run(&api, &editor, json!({"id": Uuid::new_v4()})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = run(
        &api,
        &editor,
        json!({"id": scale, "config_id": Uuid::new_v4()}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn approvals_any_and_all_through_people_and_teams(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let ann = api.person("ann@example.com", &["editor"], PW).await;
    let bob = api.person("bob@example.com", &["editor"], PW).await;
    api.person("eve@example.com", &["editor"], PW).await;
    let vic = api.person("vic@example.com", &["viewer"], PW).await;
    api.team("sre", &[bob, vic]).await;
    let _ = ann;
    let [ann, bob, eve, vic] = [
        api.signed_in("ann@example.com", PW).await,
        api.signed_in("bob@example.com", PW).await,
        api.signed_in("eve@example.com", PW).await,
        api.signed_in("vic@example.com", PW).await,
    ];
    let web = item(&pool, "web", "web").await;
    let approvers = json!({"people": ["Ann@example.com"], "teams": ["sre"]});
    let any = playbook(
        &pool,
        "any",
        spec(json!({"approval": {"type": "any", "approvers": approvers}})),
        json!({}),
    )
    .await;
    let all = playbook(
        &pool,
        "all",
        spec(json!({"approval": {"type": "all", "approvers": approvers}})),
        json!({}),
    )
    .await;
    let approve = |run: &Value| {
        format!(
            "/api/playbook/run/approve/{}",
            run["run_id"].as_str().unwrap()
        )
    };

    // any: the first approver schedules it; a non-approver is refused.
    let (status, created) = run(&api, &eve, json!({"id": any, "config_id": web})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(run_status(&pool, &created).await, "pending_approval");
    let (status, error) = api.call(&eve, Method::POST, &approve(&created), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{error}");
    assert_eq!(
        error["message"],
        "you are not an approver of this playbook run"
    );
    // A team member without playbook:approve (a viewer) is refused too.
    let (status, _) = api.call(&vic, Method::POST, &approve(&created), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, detail) = api
        .call(
            &bob,
            Method::GET,
            &format!("/api/playbook/run/{}", created["run_id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(detail["can_approve"], true, "{detail}");
    let (status, done) = api.call(&bob, Method::POST, &approve(&created), None).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done, json!({"message": "playbook run approved"}));
    assert_eq!(run_status(&pool, &created).await, "scheduled");
    let (status, _) = api.call(&ann, Method::POST, &approve(&created), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "no longer pending");

    // all: Ann (by email) and the sre team (through Bob) must both approve.
    let (_, created) = run(&api, &eve, json!({"id": all, "config_id": web})).await;
    let (status, _) = api.call(&ann, Method::POST, &approve(&created), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(run_status(&pool, &created).await, "pending_approval");
    let (status, _) = api.call(&bob, Method::POST, &approve(&created), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(run_status(&pool, &created).await, "scheduled");
    let (_, detail) = api
        .call(
            &ann,
            Method::GET,
            &format!("/api/playbook/run/{}", created["run_id"].as_str().unwrap()),
            None,
        )
        .await;
    let approvals: Vec<(&str, &str)> = detail["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["person_email"].as_str().unwrap(),
                a["team_name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        approvals,
        [("ann@example.com", ""), ("bob@example.com", "sre")]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn cancel_once_then_400(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], PW).await;
    api.person("viewer@example.com", &["viewer"], PW).await;
    let editor = api.signed_in("editor@example.com", PW).await;
    let viewer = api.signed_in("viewer@example.com", PW).await;
    let web = item(&pool, "web", "web").await;
    let id = playbook(&pool, "scale", spec(json!({})), json!({})).await;
    let (_, created) = run(&api, &editor, json!({"id": id, "config_id": web})).await;
    let cancel = format!(
        "/api/playbook/run/cancel/{}",
        created["run_id"].as_str().unwrap()
    );
    let (status, _) = api.call(&viewer, Method::POST, &cancel, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, done) = api.call(&editor, Method::POST, &cancel, None).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done, json!({"message": "playbook run cancelled"}));
    assert_eq!(run_status(&pool, &created).await, "cancelled");
    let (status, error) = api.call(&editor, Method::POST, &cancel, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(error["message"], "the playbook run is already cancelled");
    let status = api
        .status(
            &editor,
            Method::POST,
            &format!("/api/playbook/run/cancel/{}", Uuid::new_v4()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_guest_runs_and_reads_within_their_scopes(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let w = api.admin_and_guest().await;
    let web = item(&pool, "web", "web").await;
    let data = item(&pool, "db", "data").await;
    let pb_web = playbook(&pool, "web-scale", spec(json!({})), json!({"team": "web"})).await;
    let pb_data = playbook(
        &pool,
        "data-scale",
        spec(json!({})),
        json!({"team": "data"}),
    )
    .await;
    api.access_scope(
        "web",
        Subject::Person(w.guest_id),
        &["config", "playbook"],
        json!([{"tags": {"team": "web"}}]),
    )
    .await;
    // Guests run only what a rule lets them.
    sqlx::query("INSERT INTO permissions (subject_type, person_id, action, object) VALUES ('person', $1, 'playbook:run', 'playbooks')")
        .bind(w.guest_id)
        .execute(&pool)
        .await
        .unwrap();
    let (status, created) = run(&api, &w.guest, json!({"id": pb_web, "config_id": web})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    for body in [
        json!({"id": pb_web, "config_id": data}),
        json!({"id": pb_data, "config_id": web}),
    ] {
        let (status, error) = run(&api, &w.guest, body.clone()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}: {error}");
    }
    // Runs the admin started on what the guest does not see stay hidden.
    let (_, hidden_target) = run(&api, &w.admin, json!({"id": pb_web, "config_id": data})).await;
    let (_, hidden_playbook) = run(&api, &w.admin, json!({"id": pb_data, "config_id": web})).await;
    let read = |run: &Value| format!("/api/playbook/run/{}", run["run_id"].as_str().unwrap());
    assert_eq!(
        api.status(&w.guest, Method::GET, &read(&created), None)
            .await,
        StatusCode::OK
    );
    for hidden in [&hidden_target, &hidden_playbook] {
        assert_eq!(
            api.status(&w.guest, Method::GET, &read(hidden), None).await,
            StatusCode::NOT_FOUND
        );
        let status = api
            .status(
                &w.guest,
                Method::GET,
                &format!("{}/status", read(hidden)),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
    // The data API agrees.
    let (status, rows) = api
        .call(
            &w.guest,
            Method::GET,
            "/api/db/playbook_runs?select=id",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    assert_eq!(rows, json!([{"id": created["run_id"]}]));
    let (_, rows) = api
        .call(
            &w.guest,
            Method::GET,
            "/api/db/playbook_names?select=name",
            None,
        )
        .await;
    assert_eq!(rows, json!([{"name": "web-scale"}]));
    let (_, rows) = api
        .call(
            &w.admin,
            Method::GET,
            "/api/db/playbook_names?select=name&order=name",
            None,
        )
        .await;
    assert_eq!(rows, json!([{"name": "data-scale"}, {"name": "web-scale"}]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn console_playbooks_are_checked_on_write(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], PW).await;
    let editor = api.signed_in("editor@example.com", PW).await;
    let post = |spec: Value| json!({"name": "new", "title": "New", "spec": spec});
    for (spec, message) in [
        (
            json!({"actions": []}),
            "spec.actions: A playbook needs at least one action",
        ),
        (
            json!({"actions": [{"name": "a"}]}),
            "spec.actions[0]: An action needs exactly one of exec, http, sql, pod, prometheus, gitops, github, azureDevopsPipeline, notification, logs, catalog, report, ai",
        ),
        (
            json!({"actions": [{"name": "a", "exec": {"script": "true"}}], "parameters": [{"name": "p", "type": "list"}]}),
            "spec.parameters[0].properties.options: A list parameter needs options",
        ),
        (
            json!({"actions": [{"name": "a", "exec": {"script": "true"}}], "approval": {"type": "most"}}),
            "spec.approval.type: Must be any or all",
        ),
    ] {
        let (status, error) = api
            .call(
                &editor,
                Method::POST,
                "/api/db/playbooks",
                Some(post(spec.clone())),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{spec}: {error}");
        assert_eq!(error["message"], message, "{error}");
    }
    let good = json!({"actions": [{"name": "a", "exec": {"script": "true"}}]});
    let (status, rows) = api
        .call(&editor, Method::POST, "/api/db/playbooks", Some(post(good)))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{rows}");
    let id = rows[0]["id"].as_str().unwrap();
    let (status, error) = api
        .call(
            &editor,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{id}"),
            Some(json!({"spec": {"actions": [{"name": "a", "http": {}, "sql": {"query": "x"}}]}})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(error["details"][0]["field"], "spec.actions[0]");
    let (status, _) = api
        .call(
            &editor,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{id}"),
            Some(json!({"title": "Renamed"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
}
