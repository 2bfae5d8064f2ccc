//! The incident model's rules over real HTTP and a real PostgreSQL (decision
//! 86): status transitions and their timestamps, the incident history of
//! every event, the hypothesis tree, deleting a hypothesis with what hangs
//! off it.

mod common;

use std::collections::BTreeMap;

use common::Api;
use quarterdeck_store::rbac::Role;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";

struct World {
    api: Api,
    /// Signed in with the commander role.
    commander: Client,
    commander_id: Uuid,
}

impl World {
    async fn start(pool: PgPool) -> Self {
        let api = Api::start(pool).await;
        let commander_id = api
            .person("commander@example.com", &["commander"], PASSWORD)
            .await;
        let commander = api.signed_in("commander@example.com", PASSWORD).await;
        Self {
            api,
            commander,
            commander_id,
        }
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        self.api.call(&self.commander, method, path, body).await
    }

    /// POSTs one row as the commander; the written row.
    async fn create(&self, relation: &str, body: Value) -> Value {
        let (status, reply) = self
            .call(Method::POST, &format!("/api/db/{relation}"), Some(body))
            .await;
        assert_eq!(status, StatusCode::CREATED, "POST {relation}: {reply}");
        reply[0].clone()
    }

    async fn patch(&self, relation: &str, id: &Value, body: Value) -> (StatusCode, Value) {
        let path = format!("/api/db/{relation}?id=eq.{}", id.as_str().unwrap());
        self.call(Method::PATCH, &path, Some(body)).await
    }

    async fn get(&self, path: &str) -> Value {
        let (status, reply) = self.call(Method::GET, path, None).await;
        assert_eq!(status, StatusCode::OK, "GET {path}: {reply}");
        reply
    }

    /// The incident's history, oldest first: (type, description, created_by).
    async fn history(&self, incident: &Value) -> Vec<(String, String, Value)> {
        let rows = self
            .get(&format!(
                "/api/db/incident_histories?incident_id=eq.{}&order=created_at,id",
                incident.as_str().unwrap()
            ))
            .await;
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["type"].as_str().unwrap().to_owned(),
                    r["description"].as_str().unwrap_or_default().to_owned(),
                    r["created_by"].clone(),
                )
            })
            .collect()
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn status_moves_only_along_the_allowed_transitions_and_the_timestamps_follow(pool: PgPool) {
    let w = World::start(pool).await;
    let incident = w
        .create("incidents", json!({"title": "checkout down"}))
        .await;
    assert_eq!(
        incident["status"], "open",
        "a new incident defaults to open"
    );
    assert_eq!(incident["type"], "availability");
    assert!(incident["incident_id"].as_str().unwrap().starts_with("INC"));
    for stamp in ["acknowledged", "resolved", "closed"] {
        assert_eq!(incident[stamp], Value::Null, "{stamp} of an open incident");
    }
    let id = &incident["id"];

    // Nothing goes back to new.
    let (status, reply) = w.patch("incidents", id, json!({"status": "new"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert_eq!(reply["code"], "23514");
    assert_eq!(
        reply["message"],
        "status: an incident cannot go from open to new"
    );
    assert_eq!(
        reply["details"],
        "from open it may go to investigating, mitigated, resolved, closed"
    );

    // The timestamps are the server's: a client cannot set them.
    let (status, reply) = w
        .patch(
            "incidents",
            id,
            json!({"acknowledged": "2020-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert_eq!(reply["code"], "PGRST204");

    let (status, reply) = w
        .patch("incidents", id, json!({"status": "investigating"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let acknowledged = reply[0]["acknowledged"].clone();
    assert!(
        acknowledged.is_string(),
        "investigating acknowledges: {reply}"
    );
    assert_eq!(reply[0]["resolved"], Value::Null);

    let (status, reply) = w
        .patch("incidents", id, json!({"status": "resolved"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply[0]["acknowledged"], acknowledged, "acknowledged once");
    assert!(reply[0]["resolved"].is_string(), "{reply}");
    assert_eq!(reply[0]["closed"], Value::Null);

    // Reopening clears resolved.
    let (status, reply) = w.patch("incidents", id, json!({"status": "open"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply[0]["resolved"], Value::Null, "{reply}");
    assert_eq!(reply[0]["acknowledged"], acknowledged);

    // Setting the same status again is no transition and no error.
    let (status, reply) = w.patch("incidents", id, json!({"status": "open"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");

    let (status, reply) = w.patch("incidents", id, json!({"status": "closed"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert!(
        reply[0]["resolved"].is_string(),
        "closing resolves: {reply}"
    );
    assert!(reply[0]["closed"].is_string(), "{reply}");

    // Closed is final.
    let (status, reply) = w.patch("incidents", id, json!({"status": "open"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert_eq!(
        reply["message"],
        "status: an incident cannot go from closed to open"
    );
    assert_eq!(reply["details"], "a closed incident is final");

    // An incident starts as new, open or investigating.
    let (status, reply) = w
        .call(
            Method::POST,
            "/api/db/incidents",
            Some(json!({"title": "x", "status": "resolved"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert_eq!(
        reply["message"],
        "status: a new incident starts as new, open or investigating, not resolved"
    );
    let created = w
        .create("incidents", json!({"title": "y", "status": "new"}))
        .await;
    assert_eq!(created["status"], "new");
    let (status, reply) = w
        .patch("incidents", &created["id"], json!({"status": "mitigated"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert!(reply[0]["acknowledged"].is_string());

    // A writer outside the data API (the incident rules engine) gets the same rules.
    let error = sqlx::query("UPDATE incidents SET status = 'new' WHERE id = $1")
        .bind(Uuid::parse_str(created["id"].as_str().unwrap()).unwrap())
        .execute(&w.api.pool)
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("an incident cannot go from mitigated to new"),
        "{error}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_event_of_the_spec_is_written_to_the_history_by_whoever_acts(pool: PgPool) {
    let w = World::start(pool).await;
    let me = json!(w.commander_id);
    let responder_id = w
        .api
        .person("rita@example.com", &["responder"], PASSWORD)
        .await;
    sqlx::query("UPDATE people SET name = 'Rita' WHERE id = $1")
        .bind(responder_id)
        .execute(&w.api.pool)
        .await
        .unwrap();

    let incident = w
        .create(
            "incidents",
            json!({"title": "checkout down", "severity": "high"}),
        )
        .await;
    let id = incident["id"].clone();
    let inc = id.as_str().unwrap();
    let responder = w
        .create(
            "responders",
            json!({"incident_id": id, "type": "person", "person_id": responder_id}),
        )
        .await;
    let root = w
        .create(
            "hypotheses",
            json!({"incident_id": id, "title": "the database is full"}),
        )
        .await;
    let evidence = w
        .create(
            "evidences",
            json!({"hypothesis_id": root["id"], "type": "log", "description": "disk at 100%"}),
        )
        .await;
    let (status, reply) = w
        .patch(
            "evidences",
            &evidence["id"],
            json!({"definition_of_done": true}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    // Toggling done is not an event of the spec.
    let (status, _) = w
        .patch("evidences", &evidence["id"], json!({"done": true}))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, reply) = w
        .patch("hypotheses", &root["id"], json!({"status": "proven"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    w.create(
        "comments",
        json!({"incident_id": id, "responder_id": responder["id"], "comment": "on it"}),
    )
    .await;
    let (status, reply) = w
        .patch("incidents", &id, json!({"status": "investigating"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let (status, reply) = w
        .patch(
            "incidents",
            &id,
            json!({"severity": "critical", "commander_id": responder_id}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    // A field outside the header (the description) is no event.
    let (status, _) = w
        .patch("incidents", &id, json!({"description": "more words"}))
        .await;
    assert_eq!(status, StatusCode::OK);

    let number = incident["incident_id"].as_str().unwrap();
    let expected = vec![
        (
            "incident.created",
            format!("Incident {number} created (availability, high severity, open): checkout down"),
        ),
        ("responder.created", "Responder added: Rita".to_owned()),
        (
            "hypothesis.created",
            "Hypothesis added (root, possible): the database is full".to_owned(),
        ),
        (
            "evidence.created",
            "Evidence added to hypothesis \"the database is full\": disk at 100%".to_owned(),
        ),
        (
            "evidence.done_definition_added",
            "Evidence \"disk at 100%\" added to the definition of done".to_owned(),
        ),
        (
            "hypothesis.status_updated",
            "Hypothesis \"the database is full\" changed from possible to proven".to_owned(),
        ),
        (
            "responder.commented",
            "commander commented: on it".to_owned(),
        ),
        (
            "incident.status_updated",
            "Status changed from open to investigating".to_owned(),
        ),
        (
            "incident_status.updated",
            "Severity changed from high to critical; commander set to Rita".to_owned(),
        ),
    ];
    let history = w.history(&id).await;
    let got: Vec<(&str, &str)> = history
        .iter()
        .map(|(t, d, _)| (t.as_str(), d.as_str()))
        .collect();
    let want: Vec<(&str, &str)> = expected.iter().map(|(t, d)| (*t, d.as_str())).collect();
    assert_eq!(got, want);
    for (event, _, by) in &history {
        assert_eq!(by, &me, "{event} names who acted");
    }

    // The links of each history row, for the timeline's links.
    let rows = w
        .get(&format!(
            "/api/db/incident_histories?incident_id=eq.{inc}&type=in.(evidence.created,responder.commented)&order=created_at"
        ))
        .await;
    assert_eq!(rows[0]["evidence_id"], evidence["id"]);
    assert_eq!(rows[0]["hypothesis_id"], root["id"]);
    assert_eq!(rows[1]["responder_id"], responder["id"]);

    // The history is the server's alone.
    let (status, reply) = w
        .call(
            Method::POST,
            "/api/db/incident_histories",
            Some(json!({"incident_id": id, "type": "incident.created"})),
        )
        .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{reply}");

    // A writer outside the data API: the row's creator on inserts, nobody (the
    // system) on updates.
    sqlx::query("INSERT INTO hypotheses (incident_id, parent_id, title, created_by) VALUES ($1, $2, 'replica lag', $3)")
        .bind(Uuid::parse_str(inc).unwrap())
        .bind(Uuid::parse_str(root["id"].as_str().unwrap()).unwrap())
        .bind(responder_id)
        .execute(&w.api.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE incidents SET status = 'resolved' WHERE id = $1")
        .bind(Uuid::parse_str(inc).unwrap())
        .execute(&w.api.pool)
        .await
        .unwrap();
    let history = w.history(&id).await;
    let tail: Vec<(&str, &str, &Value)> = history[history.len() - 2..]
        .iter()
        .map(|(t, d, b)| (t.as_str(), d.as_str(), b))
        .collect();
    assert_eq!(
        tail,
        vec![
            (
                "hypothesis.created",
                "Hypothesis added (factor, possible): replica lag",
                &json!(responder_id)
            ),
            (
                "incident.status_updated",
                "Status changed from investigating to resolved",
                &Value::Null
            ),
        ]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_hypothesis_tree_is_root_then_factor_then_solution(pool: PgPool) {
    let w = World::start(pool).await;
    let incident = w.create("incidents", json!({"title": "slow"})).await;
    let other = w.create("incidents", json!({"title": "other"})).await;
    let id = &incident["id"];

    let root = w
        .create("hypotheses", json!({"incident_id": id, "title": "r"}))
        .await;
    assert_eq!(root["type"], "root");
    assert_eq!(root["status"], "possible");
    let factor = w
        .create(
            "hypotheses",
            json!({"incident_id": id, "parent_id": root["id"], "title": "f"}),
        )
        .await;
    assert_eq!(factor["type"], "factor");
    let solution = w
        .create(
            "hypotheses",
            json!({"incident_id": id, "parent_id": factor["id"], "title": "s"}),
        )
        .await;
    assert_eq!(solution["type"], "solution");

    let refused = [
        (
            json!({"incident_id": id, "title": "x", "type": "factor"}),
            "type: a hypothesis without a parent is a root, not factor",
        ),
        (
            json!({"incident_id": id, "parent_id": root["id"], "title": "x", "type": "solution"}),
            "type: a hypothesis under a root is a factor, not solution",
        ),
        (
            json!({"incident_id": id, "parent_id": solution["id"], "title": "x"}),
            "parent_id: a solution has no child hypotheses",
        ),
        (
            json!({"incident_id": other["id"], "parent_id": root["id"], "title": "x"}),
            "parent_id: the parent hypothesis belongs to another incident",
        ),
    ];
    for (body, message) in refused {
        let (status, reply) = w
            .call(Method::POST, "/api/db/hypotheses", Some(body.clone()))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {reply}");
        assert_eq!(reply["message"], message, "{body}");
    }

    let (status, reply) = w
        .patch("hypotheses", &factor["id"], json!({"parent_id": null}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert_eq!(
        reply["message"],
        "type: a hypothesis without a parent is a root, not factor"
    );
    let (status, reply) = w
        .patch(
            "hypotheses",
            &root["id"],
            json!({"incident_id": other["id"]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
    assert_eq!(
        reply["message"],
        "incident_id: a hypothesis cannot move to another incident"
    );

    // Any status may follow any other: it is the responders' current judgement.
    for next in [
        "likely",
        "disproven",
        "improbable",
        "unlikely",
        "proven",
        "possible",
    ] {
        let (status, reply) = w
            .patch("hypotheses", &factor["id"], json!({"status": next}))
            .await;
        assert_eq!(status, StatusCode::OK, "{next}: {reply}");
    }
    let (status, reply) = w
        .patch("hypotheses", &factor["id"], json!({"status": "certain"}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{reply}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn deleting_a_hypothesis_removes_its_subtree_comments_and_evidences_and_keeps_the_history(
    pool: PgPool,
) {
    let w = World::start(pool).await;
    let incident = w.create("incidents", json!({"title": "slow"})).await;
    let id = &incident["id"];
    let root = w
        .create("hypotheses", json!({"incident_id": id, "title": "r"}))
        .await;
    let factor = w
        .create(
            "hypotheses",
            json!({"incident_id": id, "parent_id": root["id"], "title": "f"}),
        )
        .await;
    let kept = w
        .create("hypotheses", json!({"incident_id": id, "title": "kept"}))
        .await;
    for h in [&root, &factor, &kept] {
        w.create(
            "evidences",
            json!({"hypothesis_id": h["id"], "type": "log", "description": "e"}),
        )
        .await;
        w.create(
            "comments",
            json!({"incident_id": id, "hypothesis_id": h["id"], "comment": "c"}),
        )
        .await;
    }
    let before = w.history(id).await.len();

    let path = format!("/api/db/hypotheses?id=eq.{}", root["id"].as_str().unwrap());
    let (status, reply) = w.call(Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply.as_array().unwrap().len(), 1, "{reply}");

    let inc = id.as_str().unwrap();
    let hypotheses = w
        .get(&format!(
            "/api/db/hypotheses?incident_id=eq.{inc}&select=title"
        ))
        .await;
    assert_eq!(hypotheses, json!([{"title": "kept"}]));
    let evidences = w
        .get(&format!(
            "/api/db/evidences?select=hypothesis_id&hypothesis_id=in.({},{},{})",
            root["id"].as_str().unwrap(),
            factor["id"].as_str().unwrap(),
            kept["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(evidences, json!([{"hypothesis_id": kept["id"]}]));
    let comments = w
        .get(&format!(
            "/api/db/comments?incident_id=eq.{inc}&select=hypothesis_id"
        ))
        .await;
    assert_eq!(comments, json!([{"hypothesis_id": kept["id"]}]));

    // The history outlives what it mentions; its links are cleared.
    let history = w
        .get(&format!(
            "/api/db/incident_histories?incident_id=eq.{inc}&type=eq.hypothesis.created&select=description,hypothesis_id&order=created_at"
        ))
        .await;
    assert_eq!(history.as_array().unwrap().len(), 3, "{history}");
    assert_eq!(history[0]["hypothesis_id"], Value::Null);
    assert_eq!(history[1]["hypothesis_id"], Value::Null);
    assert_eq!(history[2]["hypothesis_id"], kept["id"]);
    assert_eq!(
        w.history(id).await.len(),
        before,
        "deleting writes no event"
    );
}

/// Every incident relation, per role: reads for all, writes (create, update,
/// delete) for admin, editor, commander and responder (spec part 2 section 6).
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn each_role_reads_and_writes_the_incident_relations_as_the_matrix_says(pool: PgPool) {
    let w = World::start(pool).await;
    let writers = ["admin", "editor", "commander", "responder"];
    for role in Role::ALL.iter().map(|r| r.as_str()) {
        let email = format!("{role}-r@example.com");
        let person = w.api.person(&email, &[role], PASSWORD).await;
        let client = w.api.signed_in(&email, PASSWORD).await;
        // Something to update and delete, made by the commander of the World.
        let incident = w.create("incidents", json!({"title": role})).await;
        let hypothesis = w
            .create(
                "hypotheses",
                json!({"incident_id": incident["id"], "title": "h"}),
            )
            .await;
        let rows: Vec<(&str, Value, Value)> = vec![
            (
                "incidents",
                json!({"title": "t", "severity": "medium"}),
                incident.clone(),
            ),
            (
                "hypotheses",
                json!({"incident_id": incident["id"], "title": "t"}),
                hypothesis.clone(),
            ),
            (
                "evidences",
                json!({"hypothesis_id": hypothesis["id"], "type": "log"}),
                w.create(
                    "evidences",
                    json!({"hypothesis_id": hypothesis["id"], "type": "log"}),
                )
                .await,
            ),
            (
                "comments",
                json!({"incident_id": incident["id"], "comment": "c"}),
                w.create(
                    "comments",
                    json!({"incident_id": incident["id"], "comment": "c"}),
                )
                .await,
            ),
            (
                "responders",
                json!({"incident_id": incident["id"], "type": "person", "person_id": person}),
                w.create(
                    "responders",
                    json!({"incident_id": incident["id"], "type": "email", "external_id": "x@example.com"}),
                )
                .await,
            ),
        ];
        let may_write = writers.contains(&role);
        for (relation, body, existing) in &rows {
            let path = format!("/api/db/{relation}");
            let (status, reply) = w.api.call(&client, Method::GET, &path, None).await;
            assert_eq!(status, StatusCode::OK, "{role} GET {relation}: {reply}");
            let (status, reply) = w
                .api
                .call(&client, Method::POST, &path, Some(body.clone()))
                .await;
            let want = if may_write {
                StatusCode::CREATED
            } else {
                StatusCode::FORBIDDEN
            };
            assert_eq!(status, want, "{role} POST {relation}: {reply}");
            let one = format!("{path}?id=eq.{}", existing["id"].as_str().unwrap());
            let patch = match *relation {
                "evidences" => json!({"done": true}),
                "comments" => json!({"comment": "edited"}),
                "responders" => json!({"external_id": "y@example.com"}),
                _ => json!({"title": "edited"}),
            };
            let (status, reply) = w.api.call(&client, Method::PATCH, &one, Some(patch)).await;
            let want = if may_write {
                StatusCode::OK
            } else {
                StatusCode::FORBIDDEN
            };
            assert_eq!(status, want, "{role} PATCH {relation}: {reply}");
        }
        // Deleting, children first so the incident goes last.
        for (relation, _, existing) in rows.iter().rev() {
            let one = format!(
                "/api/db/{relation}?id=eq.{}",
                existing["id"].as_str().unwrap()
            );
            let (status, reply) = w.api.call(&client, Method::DELETE, &one, None).await;
            let want = if may_write {
                StatusCode::OK
            } else {
                StatusCode::FORBIDDEN
            };
            assert_eq!(status, want, "{role} DELETE {relation}: {reply}");
        }
        for relation in [
            "incident_histories",
            "incident_summary",
            "incidents_by_component",
            "incidents_by_config",
            "incident_resources",
        ] {
            let path = format!("/api/db/{relation}");
            let (status, reply) = w.api.call(&client, Method::GET, &path, None).await;
            assert_eq!(status, StatusCode::OK, "{role} GET {relation}: {reply}");
            let (status, _) = w
                .api
                .call(
                    &client,
                    Method::POST,
                    &path,
                    Some(json!({"incident_id": incident["id"]})),
                )
                .await;
            assert!(
                [StatusCode::FORBIDDEN, StatusCode::METHOD_NOT_ALLOWED].contains(&status),
                "{role} POST {relation}: {status}"
            );
        }
    }
}

/// Linked resources of the guest test: (name, tag env).
async fn linked_world(w: &World) -> (Value, Value, Value) {
    let api = &w.api;
    let mut ids = Vec::new();
    for (name, env) in [("prod-db", "prod"), ("dev-db", "dev")] {
        let id: Uuid = sqlx::query_scalar(
            "INSERT INTO config_items (config_class, type, name, tags) VALUES ('Database', 'Postgres', $1, jsonb_build_object('env', $2)) RETURNING id",
        )
        .bind(name)
        .bind(env)
        .fetch_one(&api.pool)
        .await
        .unwrap();
        ids.push(id);
    }
    let component: Uuid = sqlx::query_scalar(
        "INSERT INTO components (name, type, labels) VALUES ('prod-api', 'Service', '{\"env\":\"prod\"}') RETURNING id",
    )
    .fetch_one(&api.pool)
    .await
    .unwrap();
    (json!(ids[0]), json!(ids[1]), json!(component))
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_guest_sees_only_incidents_whose_linked_resources_its_scopes_cover(pool: PgPool) {
    let w = World::start(pool).await;
    let (prod_db, dev_db, prod_api) = linked_world(&w).await;
    let guest_id = w
        .api
        .person("guest@example.com", &["guest"], PASSWORD)
        .await;
    w.api
        .access_scope(
            "prod",
            common::Subject::Person(guest_id),
            &["config", "component"],
            json!([{"tags": {"env": "prod"}}]),
        )
        .await;
    let guest = w.api.signed_in("guest@example.com", PASSWORD).await;
    w.api
        .person("viewer@example.com", &["viewer"], PASSWORD)
        .await;
    let viewer = w.api.signed_in("viewer@example.com", PASSWORD).await;

    // seen: evidence on prod-db and on dev-db; hidden: only dev-db; bare: no linked resource.
    let mut incidents = BTreeMap::new();
    for (title, links) in [
        (
            "seen",
            vec![
                json!({"type": "config", "config_id": prod_db}),
                json!({"type": "config", "config_id": dev_db}),
                json!({"type": "topology", "component_id": prod_api}),
            ],
        ),
        (
            "hidden",
            vec![json!({"type": "config", "config_id": dev_db})],
        ),
        (
            "bare",
            vec![json!({"type": "log", "description": "a log line"})],
        ),
    ] {
        let incident = w.create("incidents", json!({"title": title})).await;
        let hypothesis = w
            .create(
                "hypotheses",
                json!({"incident_id": incident["id"], "title": format!("{title} h")}),
            )
            .await;
        for mut link in links {
            link["hypothesis_id"] = hypothesis["id"].clone();
            w.create("evidences", link).await;
        }
        w.create(
            "comments",
            json!({"incident_id": incident["id"], "comment": format!("{title} c")}),
        )
        .await;
        w.create(
            "responders",
            json!({"incident_id": incident["id"], "type": "person", "person_id": w.commander_id}),
        )
        .await;
        incidents.insert(title, incident);
    }

    let titles = |client: &Client, path: &'static str, key: &'static str| {
        let api = &w.api;
        let client = client.clone();
        async move {
            let (status, reply) = api.call(&client, Method::GET, path, None).await;
            assert_eq!(status, StatusCode::OK, "{path}: {reply}");
            let mut got: Vec<String> = reply
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r[key].as_str().unwrap().to_owned())
                .collect();
            got.sort();
            got.dedup();
            got
        }
    };
    // Every read path of the guest: the incident's own rows and what hangs off it.
    assert_eq!(titles(&guest, "/api/db/incidents", "title").await, ["seen"]);
    assert_eq!(
        titles(&guest, "/api/db/incident_summary", "title").await,
        ["seen"]
    );
    assert_eq!(
        titles(&guest, "/api/db/hypotheses", "title").await,
        ["seen h"]
    );
    assert_eq!(
        titles(&guest, "/api/db/comments", "comment").await,
        ["seen c"]
    );
    assert_eq!(
        titles(&guest, "/api/db/incidents_by_config", "title").await,
        ["seen"]
    );
    assert_eq!(
        titles(&guest, "/api/db/incidents_by_component", "title").await,
        ["seen"]
    );
    let seen = incidents["seen"]["id"].as_str().unwrap();
    for path in [
        "/api/db/responders",
        "/api/db/incident_histories?type=eq.incident.created",
    ] {
        let (_, reply) = w.api.call(&guest, Method::GET, path, None).await;
        let ids: Vec<&str> = reply
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["incident_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [seen], "{path}");
    }
    // Of the seen incident, the guest sees the evidences of what it may see.
    let (_, evidences) = w
        .api
        .call(
            &guest,
            Method::GET,
            "/api/db/evidences?select=type,config_id",
            None,
        )
        .await;
    assert_eq!(evidences.as_array().unwrap().len(), 2, "{evidences}");
    assert!(
        evidences
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["config_id"] != dev_db)
    );
    // Embeds, counts and totals follow the same rows.
    let (status, reply) = w
        .api
        .call(
            &guest,
            Method::GET,
            "/api/db/incidents?select=title,hypotheses(title),comments(comment),incident_histories(type)",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply.as_array().unwrap().len(), 1);
    let hidden = incidents["hidden"]["id"].as_str().unwrap();
    for path in [
        format!("/api/db/incidents?id=eq.{hidden}"),
        format!("/api/db/hypotheses?incident_id=eq.{hidden}"),
        format!("/api/db/comments?incident_id=eq.{hidden}"),
        format!("/api/db/responders?incident_id=eq.{hidden}"),
        format!("/api/db/incident_histories?incident_id=eq.{hidden}"),
        format!("/api/db/incident_summary?id=eq.{hidden}"),
    ] {
        let (status, reply) = w.api.call(&guest, Method::GET, &path, None).await;
        assert_eq!((status, reply), (StatusCode::OK, json!([])), "{path}");
    }
    let summary = w
        .get(&format!("/api/db/incident_summary?id=eq.{seen}"))
        .await;
    assert_eq!(summary[0]["evidences"], 3, "the commander sees every count");
    let (_, summary) = w
        .api
        .call(
            &guest,
            Method::GET,
            &format!("/api/db/incident_summary?id=eq.{seen}"),
            None,
        )
        .await;
    assert_eq!(
        summary[0]["evidences"],
        Value::Null,
        "no count of unseen evidences"
    );
    assert_eq!(summary[0]["hypotheses"], 1);

    // Roles other than guest see every incident.
    for client in [&viewer, &w.commander] {
        assert_eq!(
            titles(client, "/api/db/incidents", "title").await,
            ["bare", "hidden", "seen"]
        );
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_summary_and_per_resource_views(pool: PgPool) {
    let w = World::start(pool).await;
    let (prod_db, _, prod_api) = linked_world(&w).await;
    let incident = w
        .create(
            "incidents",
            json!({"title": "t", "commander_id": w.commander_id}),
        )
        .await;
    let id = incident["id"].as_str().unwrap();
    let root = w
        .create("hypotheses", json!({"incident_id": id, "title": "r"}))
        .await;
    w.create(
        "hypotheses",
        json!({"incident_id": id, "parent_id": root["id"], "title": "f"}),
    )
    .await;
    for link in [
        json!({"type": "config", "config_id": prod_db}),
        json!({"type": "config", "config_id": prod_db, "description": "again"}),
        json!({"type": "topology", "component_id": prod_api}),
    ] {
        let mut link = link;
        link["hypothesis_id"] = root["id"].clone();
        w.create("evidences", link).await;
    }
    w.create("comments", json!({"incident_id": id, "comment": "c"}))
        .await;
    let summary = w
        .get(&format!(
            "/api/db/incident_summary?id=eq.{id}&select=hypotheses,evidences,responders,comments,commander,communicator,age_seconds"
        ))
        .await;
    assert_eq!(
        summary[0],
        json!({"hypotheses": 2, "evidences": 3, "responders": 0, "comments": 1,
               "commander": "commander", "communicator": null, "age_seconds": summary[0]["age_seconds"]})
    );
    assert!(summary[0]["age_seconds"].as_i64().unwrap() >= 0);

    let by_config = w
        .get(&format!(
            "/api/db/incidents_by_config?config_id=eq.{}&select=id,title,status",
            prod_db.as_str().unwrap()
        ))
        .await;
    assert_eq!(
        by_config,
        json!([{"id": id, "title": "t", "status": "open"}]),
        "once per item"
    );
    let by_component = w
        .get(&format!(
            "/api/db/incidents_by_component?component_id=eq.{}&select=id",
            prod_api.as_str().unwrap()
        ))
        .await;
    assert_eq!(by_component, json!([{"id": id}]));
    // Only incidents not resolved or closed.
    let (status, _) = w
        .patch("incidents", &incident["id"], json!({"status": "resolved"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(w.get("/api/db/incidents_by_config").await, json!([]));
    assert_eq!(w.get("/api/db/incidents_by_component").await, json!([]));
}

/// Spec part 2 section 7: incidents by text, hypotheses by text, through the
/// data API's filters, as the console calls them.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn incidents_and_hypotheses_are_found_by_text(pool: PgPool) {
    let w = World::start(pool).await;
    let a = w
        .create(
            "incidents",
            json!({"title": "Checkout latency", "description": "p99 over 2s"}),
        )
        .await;
    let b = w
        .create(
            "incidents",
            json!({"title": "Disk full", "description": "the checkout database volume"}),
        )
        .await;
    w.create("incidents", json!({"title": "Cert expiry"})).await;
    for (incident, title) in [
        (&a, "Slow queries"),
        (&a, "Cache misses"),
        (&b, "slow disk"),
    ] {
        w.create(
            "hypotheses",
            json!({"incident_id": incident["id"], "title": title}),
        )
        .await;
    }
    let titles = |reply: Value| -> Vec<String> {
        reply
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["title"].as_str().unwrap().to_owned())
            .collect()
    };
    // Title, number or description, case-insensitive.
    let search = |text: &str| {
        format!(
            "/api/db/incidents?select=id,incident_id,title&or=(title.ilike.*{text}*,incident_id.ilike.*{text}*,description.ilike.*{text}*)&order=title"
        )
    };
    assert_eq!(
        titles(w.get(&search("checkout")).await),
        ["Checkout latency", "Disk full"]
    );
    let number = a["incident_id"].as_str().unwrap();
    assert_eq!(titles(w.get(&search(number)).await), ["Checkout latency"]);
    assert_eq!(
        titles(w.get(&search("nothing")).await),
        Vec::<String>::new()
    );
    // Hypotheses of one incident by text.
    let hypotheses = w
        .get(&format!(
            "/api/db/hypotheses?select=id,title,type,status&incident_id=eq.{}&title=ilike.*slow*",
            a["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(titles(hypotheses), ["Slow queries"]);
}
