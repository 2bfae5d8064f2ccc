//! No path lets a caller grant rights it does not hold (Kubernetes RBAC's
//! `escalate` rule): permission rules, role assignments, access scopes and
//! team membership, each tried as a hostile editor would, over real HTTP
//! against a real database. A refused write changes nothing.

mod common;

use common::{Api, Subject};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";

struct World {
    api: Api,
    admin: Client,
    admin_id: Uuid,
    editor: Client,
    editor_id: Uuid,
}

async fn world(pool: PgPool) -> World {
    let api = Api::start(pool).await;
    let admin_id = api.person("admin@example.com", &["admin"], PASSWORD).await;
    let editor_id = api
        .person("editor@example.com", &["editor"], PASSWORD)
        .await;
    let admin = api.signed_in("admin@example.com", PASSWORD).await;
    let editor = api.signed_in("editor@example.com", PASSWORD).await;
    World {
        api,
        admin,
        admin_id,
        editor,
        editor_id,
    }
}

impl World {
    async fn call(
        &self,
        client: &Client,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = client.request(method, self.api.at(path));
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn count(&self, sql: &'static str) -> i64 {
        sqlx::query_scalar(sql)
            .fetch_one(&self.api.pool)
            .await
            .unwrap()
    }

    /// A team access scope over canaries labelled env=prod.
    async fn team_scope(&self, team: Uuid, resources: &[&str]) -> Uuid {
        let prod = json!([{"tags": {"env": "prod"}}]);
        self.api
            .access_scope("prod only", Subject::Team(team), resources, prod)
            .await
    }

    /// A token of the admin with this scope.
    async fn admin_token(&self, scope: Value) -> String {
        let (status, body) = self
            .call(
                &self.admin,
                Method::POST,
                "/api/auth/create_token",
                Some(json!({"name": scope.to_string(), "scope": scope})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["payload"]["token"].as_str().unwrap().to_owned()
    }
}

fn assert_refused(status: StatusCode, body: &Value, what: &str) {
    assert_eq!(status, StatusCode::FORBIDDEN, "{what}: {body}");
    assert!(
        body.to_string().contains("rights you do not hold")
            || body.to_string().contains("access scopes"),
        "{what}: {body}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_editor_cannot_make_itself_admin(pool: PgPool) {
    let w = world(pool).await;
    // The reported path: a rule on people for itself, then a role change.
    let rule = json!({"subject_type": "person", "person_id": w.editor_id, "object": "people", "action": "*"});
    let (status, body) = w
        .call(&w.editor, Method::POST, "/api/db/permissions", Some(rule))
        .await;
    assert_refused(status, &body, "rule on people");
    assert_eq!(
        w.count("SELECT count(*) FROM permissions").await,
        0,
        "nothing written"
    );

    // Even a rule an admin wrote cannot open an admin-only resource.
    w.api
        .permission(Subject::Person(w.editor_id), "people", "*", false)
        .await;
    let (status, _) = w
        .call(
            &w.editor,
            Method::POST,
            "/api/people/update",
            Some(json!({"id": w.editor_id, "roles": ["admin"]})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let roles: Vec<String> = sqlx::query_scalar("SELECT roles FROM people WHERE id = $1")
        .bind(w.editor_id)
        .fetch_one(&w.api.pool)
        .await
        .unwrap();
    assert_eq!(roles, vec!["editor".to_owned()]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_editor_cannot_write_rules_naming_rights_it_lacks(pool: PgPool) {
    let w = world(pool).await;
    for (object, action) in [
        ("*", "read"),
        ("rbac", "update"),
        ("connection", "read"),
        ("people", "read"),
        ("roles", "*"),
        ("connection-detail", "read"),
        ("canaries", "approve-everything"),
    ] {
        let rule = json!({"subject_type": "group", "subject": "guest", "object": object, "action": action});
        let (status, body) = w
            .call(&w.editor, Method::POST, "/api/db/permissions", Some(rule))
            .await;
        assert_refused(status, &body, &format!("{object} {action}"));
    }
    // A rule about one connection names the connection kind, which is admin-only.
    let connection: Uuid = sqlx::query_scalar(
        "INSERT INTO connections (name, type) VALUES ('db', 'postgres') RETURNING id",
    )
    .fetch_one(&w.api.pool)
    .await
    .unwrap();
    let rule = json!({"subject_type": "person", "person_id": w.editor_id, "connection_id": connection, "action": "read"});
    let (status, body) = w
        .call(&w.editor, Method::POST, "/api/db/permissions", Some(rule))
        .await;
    assert_refused(status, &body, "one connection");
    assert_eq!(w.count("SELECT count(*) FROM permissions").await, 0);

    // What the editor holds, it may hand on; the admin may hand on anything.
    let rule = json!({"subject_type": "group", "subject": "viewer", "object": "canaries", "action": "create,update"});
    let (status, body) = w
        .call(&w.editor, Method::POST, "/api/db/permissions", Some(rule))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let rule = json!({"subject_type": "group", "subject": "viewer", "object": "connection", "action": "read"});
    let (status, body) = w
        .call(&w.admin, Method::POST, "/api/db/permissions", Some(rule))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Editing the admin's rule, or deleting it, names the same rights.
    let (status, body) = w
        .call(
            &w.editor,
            Method::PATCH,
            "/api/db/permissions?object=eq.connection",
            Some(json!({"description": "mine now"})),
        )
        .await;
    assert_refused(status, &body, "patch of a rule on connections");
    let (status, body) = w
        .call(
            &w.editor,
            Method::DELETE,
            "/api/db/permissions?object=eq.connection",
            None,
        )
        .await;
    assert_refused(status, &body, "delete of a rule on connections");
    // Turning a rule it may write into one it may not, in one PATCH.
    let (status, body) = w
        .call(
            &w.editor,
            Method::PATCH,
            "/api/db/permissions?object=eq.canaries",
            Some(json!({"object": "rbac"})),
        )
        .await;
    assert_refused(status, &body, "patch to rbac");
    assert_eq!(
        w.count(
            "SELECT count(*) FROM permissions WHERE object = 'canaries' AND description IS NULL"
        )
        .await,
        1
    );
    assert_eq!(
        w.count(
            "SELECT count(*) FROM permissions WHERE object = 'connection' AND deleted_at IS NULL"
        )
        .await,
        1
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_deny_rule_cannot_lock_out_the_last_admin(pool: PgPool) {
    let w = world(pool).await;
    let lockout = json!({"subject_type": "group", "subject": "admin", "object": "*", "action": "*", "deny": true});
    let (status, body) = w
        .call(
            &w.editor,
            Method::POST,
            "/api/db/permissions",
            Some(lockout.clone()),
        )
        .await;
    assert_refused(status, &body, "editor's deny on everything");
    let (status, body) = w
        .call(&w.admin, Method::POST, "/api/db/permissions", Some(lockout))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "ELASTADMIN");
    let personal = json!({"subject_type": "person", "person_id": w.admin_id, "object": "rbac", "action": "update", "deny": true});
    let (status, body) = w
        .call(
            &w.admin,
            Method::POST,
            "/api/db/permissions",
            Some(personal.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(w.count("SELECT count(*) FROM permissions").await, 0);

    // With a second admin, one may be restricted; the other then cannot be demoted or removed.
    let second = w
        .api
        .person("second@example.com", &["admin"], PASSWORD)
        .await;
    let (status, body) = w
        .call(
            &w.admin,
            Method::POST,
            "/api/db/permissions",
            Some(personal),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = w
        .call(
            &w.admin,
            Method::POST,
            "/api/people/update",
            Some(json!({"id": second, "roles": ["viewer"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, _) = w
        .call(
            &w.admin,
            Method::DELETE,
            &format!("/api/people/{second}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        w.count("SELECT count(*) FROM people WHERE 'admin' = ANY(roles) AND deleted_at IS NULL")
            .await,
        2
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn roles_are_assigned_only_by_those_who_hold_them(pool: PgPool) {
    let w = world(pool).await;
    let viewer = w
        .api
        .person("viewer@example.com", &["viewer"], PASSWORD)
        .await;
    // An admin with a deny rule no longer holds everything an editor may do.
    w.api
        .person("second@example.com", &["admin"], PASSWORD)
        .await;
    w.api
        .permission(Subject::Person(w.admin_id), "canaries", "delete", true)
        .await;
    let (status, body) = w
        .call(
            &w.admin,
            Method::POST,
            "/api/people/update",
            Some(json!({"id": viewer, "roles": ["editor"]})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let invite = json!({"firstName": "New", "lastName": "Editor", "email": "new@example.com", "role": "editor"});
    let (status, _) = w
        .call(
            &w.admin,
            Method::POST,
            "/api/auth/invite_user",
            Some(invite),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = w
        .call(
            &w.admin,
            Method::POST,
            "/api/people/update",
            Some(json!({"id": viewer, "roles": ["responder"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn access_scopes_are_changed_only_by_those_they_do_not_restrict(pool: PgPool) {
    let w = world(pool).await;
    let guest = w
        .api
        .person("guest@example.com", &["guest"], PASSWORD)
        .await;
    let team = w.api.team("prod", &[w.editor_id]).await;
    let own = w.team_scope(team, &["canary"]).await;

    // Restricted on canaries: it cannot widen a guest's view of them...
    let widen = json!({"name": "all canaries", "person_id": guest, "resources": ["canary"], "scopes": [{"names": ["*"]}]});
    let (status, body) = w
        .call(
            &w.editor,
            Method::POST,
            "/api/db/access_scopes",
            Some(widen.clone()),
        )
        .await;
    assert_refused(status, &body, "widen a guest's scope");
    let all = json!({"name": "everything", "person_id": guest, "resources": ["*"], "scopes": [{"names": ["*"]}]});
    let (status, body) = w
        .call(&w.editor, Method::POST, "/api/db/access_scopes", Some(all))
        .await;
    assert_refused(status, &body, "a scope over every kind");
    // ...nor remove or loosen the scope that restricts it.
    let (status, body) = w
        .call(
            &w.editor,
            Method::PATCH,
            &format!("/api/db/access_scopes?id=eq.{own}"),
            Some(json!({"deleted_at": "2026-01-01T00:00:00Z"})),
        )
        .await;
    assert_refused(status, &body, "soft-delete its own team's scope");
    let (status, body) = w
        .call(
            &w.editor,
            Method::DELETE,
            &format!("/api/db/access_scopes?id=eq.{own}"),
            None,
        )
        .await;
    assert_refused(status, &body, "delete its own team's scope");
    let (status, body) = w
        .call(
            &w.editor,
            Method::PATCH,
            &format!("/api/db/access_scopes?id=eq.{own}"),
            Some(json!({"resources": ["config"]})),
        )
        .await;
    assert_refused(status, &body, "move its own team's scope to another kind");
    assert_eq!(
        w.count(
            "SELECT count(*) FROM access_scopes WHERE deleted_at IS NULL AND resources = '{canary}'"
        )
        .await,
        1
    );
    assert_eq!(w.count("SELECT count(*) FROM access_scopes").await, 1);

    // A kind it is not restricted on is its to share; an unrestricted caller may share anything.
    let configs = json!({"name": "prod configs", "person_id": guest, "resources": ["config"], "scopes": [{"tags": {"env": "prod"}}]});
    let (status, body) = w
        .call(
            &w.editor,
            Method::POST,
            "/api/db/access_scopes",
            Some(configs),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = w
        .call(&w.admin, Method::POST, "/api/db/access_scopes", Some(widen))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn team_membership_is_held_to_the_teams_rights(pool: PgPool) {
    let w = world(pool).await;
    // A team whose rule names something editors lack (a rule an admin wrote).
    let operators = w.api.team("operators", &[]).await;
    w.api
        .permission(Subject::Team(operators), "connection", "read", false)
        .await;
    let join = json!({"team_id": operators, "person_id": w.editor_id});
    let (status, body) = w
        .call(
            &w.editor,
            Method::POST,
            "/api/db/team_members",
            Some(join.clone()),
        )
        .await;
    assert_refused(status, &body, "join a team with rights it lacks");
    assert_eq!(w.count("SELECT count(*) FROM team_members").await, 0);
    let (status, body) = w
        .call(&w.admin, Method::POST, "/api/db/team_members", Some(join))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Leaving a team sheds its scopes: a member it restricts cannot leave it or delete it.
    let prod = w.api.team("prod", &[w.editor_id]).await;
    w.team_scope(prod, &["canary"]).await;
    let (status, body) = w
        .call(
            &w.editor,
            Method::DELETE,
            &format!(
                "/api/db/team_members?team_id=eq.{prod}&person_id=eq.{}",
                w.editor_id
            ),
            None,
        )
        .await;
    assert_refused(status, &body, "leave the team that restricts it");
    let (status, body) = w
        .call(
            &w.editor,
            Method::PATCH,
            &format!("/api/db/teams?id=eq.{prod}"),
            Some(json!({"deleted_at": "2026-01-01T00:00:00Z"})),
        )
        .await;
    assert_refused(status, &body, "delete the team that restricts it");
    let (status, body) = w
        .call(
            &w.editor,
            Method::PATCH,
            &format!("/api/db/teams?id=eq.{prod}"),
            Some(json!({"name": "production"})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::NO_CONTENT,
        "renaming changes no rights: {body}"
    );
    assert_eq!(w.count("SELECT count(*) FROM team_members").await, 2);
    assert_eq!(
        w.count("SELECT count(*) FROM teams WHERE deleted_at IS NULL")
            .await,
        2
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn run_now_honours_the_token_scope_and_deny_rules(pool: PgPool) {
    let w = world(pool).await;
    let missing = Uuid::new_v4();
    let path = format!("/api/canary/run/check/{missing}");
    // Allowed callers get as far as looking the check up.
    let (status, _) = w.call(&w.admin, Method::POST, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let read_only = w
        .admin_token(json!([{"object": "canaries", "action": "read"}]))
        .await;
    let client = Client::new();
    let status = client
        .post(w.api.at(&path))
        .bearer_auth(&read_only)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a read-only token cannot run checks"
    );
    let write = w
        .admin_token(json!([{"object": "canaries", "action": "read,create"}]))
        .await;
    let status = client
        .post(w.api.at(&path))
        .bearer_auth(&write)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::NOT_FOUND, "the Write preset may");

    w.api
        .permission(Subject::Person(w.editor_id), "canaries", "run", true)
        .await;
    let (status, _) = w.call(&w.editor, Method::POST, &path, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a deny rule binds Run Now");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_scoped_writer_stays_inside_its_scope(pool: PgPool) {
    let w = world(pool).await;
    let team = w.api.team("prod", &[w.editor_id]).await;
    w.team_scope(team, &["canary"]).await;
    let canary = |name: &str, env: &str| json!({"name": name, "namespace": "default", "labels": {"env": env}, "spec": {"http": [{"name": name, "url": "http://127.0.0.1:9/"}]}});

    let (status, body) = w
        .call(
            &w.editor,
            Method::POST,
            "/api/db/canaries",
            Some(canary("outside", "dev")),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "42501");
    assert_eq!(w.count("SELECT count(*) FROM canaries").await, 0);
    assert_eq!(
        w.count("SELECT count(*) FROM checks").await,
        0,
        "no derived rows either"
    );

    let (status, body) = w
        .call(
            &w.editor,
            Method::POST,
            "/api/db/canaries",
            Some(canary("inside", "prod")),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = w
        .call(
            &w.editor,
            Method::PATCH,
            "/api/db/canaries?name=eq.inside",
            Some(json!({"labels": {"env": "dev"}})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "relabel out of scope: {body}"
    );
    assert_eq!(
        w.count("SELECT count(*) FROM canaries WHERE labels->>'env' = 'prod'")
            .await,
        1
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn whoami_tells_the_console_every_right(pool: PgPool) {
    let w = world(pool).await;
    let rights = |body: &Value, resource: &str| -> Vec<String> {
        body["payload"]["rights"][resource]
            .as_array()
            .unwrap_or_else(|| panic!("{resource}: {body}"))
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect()
    };
    let (_, editor) = w
        .call(&w.editor, Method::GET, "/api/auth/whoami", None)
        .await;
    assert_eq!(
        rights(&editor, "canaries"),
        ["read", "create", "update", "delete", "run"]
    );
    assert!(rights(&editor, "connections").is_empty());
    assert_eq!(
        rights(&editor, "kubernetes-proxy"),
        ["read", "create", "update", "delete"]
    );

    w.api
        .person("guest@example.com", &["guest"], PASSWORD)
        .await;
    w.api
        .person("viewer@example.com", &["viewer"], PASSWORD)
        .await;
    let guest = w.api.signed_in("guest@example.com", PASSWORD).await;
    let (_, guest) = w.call(&guest, Method::GET, "/api/auth/whoami", None).await;
    assert!(rights(&guest, "kubernetes-proxy").is_empty());
    assert_eq!(rights(&guest, "canaries"), ["read"]);
    let viewer = w.api.signed_in("viewer@example.com", PASSWORD).await;
    let (_, viewer) = w.call(&viewer, Method::GET, "/api/auth/whoami", None).await;
    assert_eq!(rights(&viewer, "kubernetes-proxy"), ["read"]);

    let token = w
        .admin_token(json!([{"object": "canaries", "action": "read"}]))
        .await;
    let body: Value = Client::new()
        .get(w.api.at("/api/auth/whoami"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(rights(&body, "canaries"), ["read"]);
    assert!(rights(&body, "permissions").is_empty());
}
