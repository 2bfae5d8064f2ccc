//! The MCP server (`/mcp`) against a real client: the official Python SDK
//! (`mcp` on PyPI, tests/mcp/client.py) over Streamable HTTP, on the real
//! API over a seeded world. An admin's token finds every id of the world
//! (the control); a guest's token, whose access scope covers only the `in`
//! rows, sees none of the others through any tool or resource (a sweep like
//! the data API's: every tool the server lists is called). A token whose
//! scope lacks `mcp` is refused; a playbook's tool needs `playbook:run`.
//! The transport's own rules (sessions, DELETE, batches, notifications, SSE)
//! are checked with plain HTTP.
//!
//! The SDK's Python is `QD_MCP_PYTHON`, else the venv hack/lib/mcp-sdk.sh
//! installs (hack/test.sh does before the tests); without it the test fails
//! saying how to install it.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Stdio;

use common::{Api, insert};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::io::AsyncWriteExt;
use uuid::Uuid;

/// The SDK version hack/lib/mcp-sdk.sh installs (`MCP_SDK_VERSION`).
const SDK_VERSION: &str = "2.3.0";

fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("QD_MCP_PYTHON") {
        return PathBuf::from(python);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("HOME or XDG_CACHE_HOME");
    cache
        .join("quarterdeck")
        .join(format!("mcp-{SDK_VERSION}"))
        .join("bin")
        .join("python")
}

/// Runs the SDK client once: per `(token, plan)`, a session of the token's
/// caller running the plan; its answers, in order (one process: the SDK
/// takes seconds to load).
async fn client(api: &Api, sessions: &[(&str, &Value)]) -> Vec<Value> {
    let input: Vec<Value> = sessions
        .iter()
        .map(|(token, plan)| json!({"token": token, "plan": plan}))
        .collect();
    let python = python();
    assert!(
        python.exists(),
        "the MCP Python SDK is not installed at {} (run `bash -c 'source hack/lib/common.sh; source hack/lib/mcp-sdk.sh; ensure_mcp_sdk'`, or set QD_MCP_PYTHON to a python with `mcp=={SDK_VERSION}`)",
        python.display()
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp/client.py");
    let mut child = tokio::process::Command::new(&python)
        .arg(&script)
        .arg(api.at("/mcp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the MCP client");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(Value::Array(input).to_string().as_bytes())
        .await
        .expect("plan");
    drop(stdin);
    let out = child.wait_with_output().await.expect("MCP client");
    assert!(
        out.status.success(),
        "the MCP client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the MCP client's answers")
}

async fn token(pool: &PgPool, person: Uuid, name: &str, scope: Option<Value>) -> String {
    quarterdeck_store::tokens::create(pool, person, name, None, false, scope.as_ref())
        .await
        .unwrap()
        .token
}

/// Ids the guest must see somewhere, and must see nowhere.
struct World {
    clean: Vec<(&'static str, Uuid)>,
    tainted: Vec<(&'static str, Uuid)>,
    config_in: Uuid,
    config_out: Uuid,
    check_in: Uuid,
    check_out: Uuid,
    playbook_out: Uuid,
    run_out: Uuid,
    incident: Uuid,
}

const PLAYBOOK_SPEC: &str = r#"{
  "description": "Restarts a deployment",
  "parameters": [
    {"name": "reason", "label": "Reason", "type": "text", "required": true},
    {"name": "mode", "type": "list", "default": "soft",
     "properties": {"options": [{"label": "Soft", "value": "soft"}, {"label": "Hard", "value": "hard"}]}}
  ],
  "actions": [{"name": "say", "exec": {"script": "echo hi"}}],
  "mcp": {"title": "Restart it", "destructiveHint": true, "idempotentHint": false}
}"#;

async fn seed(pool: &PgPool, admin: Uuid) -> World {
    let config_in = insert(pool, r#"INSERT INTO config_items (name, type, config_class, tags, health) VALUES ('in-config', 'Kubernetes::Pod', 'Pod', '{"zone":"in"}', 'unhealthy') RETURNING id"#, &[]).await;
    let config_out = insert(pool, r#"INSERT INTO config_items (name, type, config_class, tags, health) VALUES ('out-config', 'Kubernetes::Secret', 'Secret', '{"zone":"out"}', 'unhealthy') RETURNING id"#, &[]).await;
    sqlx::query("INSERT INTO config_relationships (config_id, related_id, relation) VALUES ($1, $2, 'Uses')")
        .bind(config_in)
        .bind(config_out)
        .execute(pool)
        .await
        .expect("relationship");
    const CHANGE: &str = "INSERT INTO config_changes (config_id, change_type, severity) VALUES ($1, 'diff', 'high') RETURNING id";
    let change_in = insert(pool, CHANGE, &[config_in]).await;
    let change_out = insert(pool, CHANGE, &[config_out]).await;
    let canary_in = insert(pool, r#"INSERT INTO canaries (name, spec, labels) VALUES ('in-canary', '{}', '{"zone":"in"}') RETURNING id"#, &[]).await;
    let canary_out = insert(pool, r#"INSERT INTO canaries (name, spec, labels) VALUES ('out-canary', '{}', '{"zone":"out"}') RETURNING id"#, &[]).await;
    const CHECK: &str = "INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'web', 'unhealthy') RETURNING id";
    let check_in = insert(pool, CHECK, &[canary_in]).await;
    let check_out = insert(pool, CHECK, &[canary_out]).await;
    sqlx::query("INSERT INTO check_statuses (check_id, time, status, message) VALUES ($1, now(), true, 'fine'), ($2, now(), false, 'down')")
        .bind(check_in)
        .bind(check_out)
        .execute(pool)
        .await
        .expect("statuses");
    const PLAYBOOK: &str = "INSERT INTO playbooks (name, namespace, title, category, spec, labels) VALUES ($1, 'default', $2, 'ops', $3::text::jsonb, $4::text::jsonb) RETURNING id";
    let playbook = |name: &'static str, zone: &'static str| {
        sqlx::query_scalar::<_, Uuid>(PLAYBOOK)
            .bind(name)
            .bind(name.to_uppercase())
            .bind(PLAYBOOK_SPEC)
            .bind(format!(r#"{{"zone":"{zone}"}}"#))
            .fetch_one(pool)
    };
    let playbook_in = playbook("in-playbook", "in").await.expect("playbook");
    let playbook_out = playbook("out-playbook", "out").await.expect("playbook");
    const RUN: &str = "INSERT INTO playbook_runs (playbook_id, status, config_id) VALUES ($1, 'failed', $2) RETURNING id";
    let run_in = insert(pool, RUN, &[playbook_in, config_in]).await;
    let run_out = insert(pool, RUN, &[playbook_out, config_in]).await;
    let incident = insert(
        pool,
        "INSERT INTO incidents (title, created_by) VALUES ('the web is down', $1) RETURNING id",
        &[admin],
    )
    .await;
    let notification = insert(pool, "INSERT INTO notifications (name, events, person_id) VALUES ('on-call', '{check.failed}', $1) RETURNING id", &[admin]).await;
    const SENT: &str = "INSERT INTO notification_send_history (notification_id, source_event, resource_id) VALUES ($1, 'check.failed', $2) RETURNING id";
    let sent_in = insert(pool, SENT, &[notification, check_in]).await;
    let sent_out = insert(pool, SENT, &[notification, check_out]).await;
    World {
        clean: vec![
            ("config", config_in),
            ("change", change_in),
            ("check", check_in),
            ("playbook", playbook_in),
            ("run", run_in),
            ("send", sent_in),
        ],
        tainted: vec![
            ("config", config_out),
            ("change", change_out),
            ("canary", canary_out),
            ("check", check_out),
            ("playbook", playbook_out),
            ("run", run_out),
            ("send", sent_out),
        ],
        config_in,
        config_out,
        check_in,
        check_out,
        playbook_out,
        run_out,
        incident,
    }
}

/// A step calling a tool.
fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": name, "arguments": arguments})
}

/// Every tool of the server's own (playbooks' tools aside), called as
/// widely as the world allows, every resource template and prompt read.
fn sweep_plan(w: &World) -> Vec<Value> {
    vec![
        call("search_catalog", json!({"limit": 100})),
        call("search_catalog", json!({"query": "zone=out"})),
        call(
            "search_catalog",
            json!({"query": "health=unhealthy", "limit": 1}),
        ),
        call("describe_catalog", json!({"id": w.config_in})),
        call("describe_catalog", json!({"id": w.config_out})),
        call("search_catalog_changes", json!({"limit": 100})),
        call("search_catalog_changes", json!({"config_id": w.config_out})),
        call(
            "get_related_configs",
            json!({"id": w.config_in, "direction": "all"}),
        ),
        call(
            "get_related_configs",
            json!({"id": w.config_out, "direction": "all"}),
        ),
        call("list_catalog_types", json!({})),
        call("list_connections", json!({})),
        call("search_health_checks", json!({"limit": 100})),
        call("get_check_status", json!({"id": w.check_in})),
        call("get_check_status", json!({"id": w.check_out})),
        call("list_playbooks", json!({})),
        call("get_playbook_run_steps", json!({"run_id": w.run_out})),
        call("get_playbook_recent_runs", json!({"limit": 100})),
        call("get_playbook_failed_runs", json!({"limit": 100})),
        call("search_incidents", json!({})),
        call("get_incident", json!({"id": w.incident})),
        call(
            "get_notifications_for_resource",
            json!({"resource_id": w.check_in}),
        ),
        call(
            "get_notifications_for_resource",
            json!({"resource_id": w.check_out}),
        ),
        json!({"op": "templates"}),
        json!({"op": "read", "uri": "playbook://in-playbook"}),
        json!({"op": "read", "uri": "playbook://out-playbook"}),
        json!({"op": "read", "uri": format!("playbook://{}", w.playbook_out)}),
        json!({"op": "read", "uri": "connection://default/nope"}),
        json!({"op": "prompts"}),
        json!({"op": "prompt", "name": "troubleshoot_kubernetes_resource", "arguments": {"kind": "Pod", "name": "in-config"}}),
        json!({"op": "prompt", "name": "unhealthy_catalog_items"}),
    ]
}

/// The ids of `ids` an answer shows, leaving out those its step named.
fn shown(ids: &[(&'static str, Uuid)], step: &Value, answer: &Value) -> Vec<String> {
    let asked = step.to_string();
    let text = answer.to_string();
    ids.iter()
        .filter(|(_, id)| {
            let id = id.to_string();
            text.contains(&id) && !asked.contains(&id)
        })
        .map(|(what, id)| format!("{what} {id}"))
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn agents_see_and_do_only_what_the_token_s_person_may(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let admin = api.person("admin@example.com", &["admin"], "pw").await;
    let guest = api.person("guest@example.com", &["guest"], "pw").await;
    let editor = api.person("editor@example.com", &["editor"], "pw").await;
    sqlx::query(r#"INSERT INTO access_scopes (name, person_id, resources, scopes) VALUES ('in', $1, '{*}', '[{"tags": {"zone": "in"}}]')"#)
        .bind(guest)
        .execute(&pool)
        .await
        .expect("scope");
    let w = seed(&pool, admin).await;
    let plan = sweep_plan(&w);
    let mut tools_plan = vec![json!({"op": "tools"})];
    tools_plan.extend(plan.iter().cloned());
    let plan = Value::Array(tools_plan);

    let admin_token = token(&pool, admin, "mcp", None).await;
    let guest_token = token(&pool, guest, "mcp", None).await;
    let guest_plan = {
        let mut plan = plan.as_array().unwrap().clone();
        plan.push(call("run_health_check", json!({"id": w.check_in})));
        plan.push(call("in-playbook_default_ops", json!({"reason": "test"})));
        plan.push(call("no_such_tool", json!({})));
        plan.push(call("describe_catalog", json!({"id": "not-an-id"})));
        plan.push(call("search_catalog", json!({"query": "name=\"open"})));
        Value::Array(plan)
    };
    // Tokens of an editor with mcp, one without playbook:run and one with it.
    let read_only = token(
        &pool,
        editor,
        "read",
        Some(json!([{"object": "mcp", "action": "*"}, {"object": "playbooks", "action": "read"}])),
    )
    .await;
    let runner = token(&pool, editor, "run", Some(json!([{"object": "mcp", "action": "*"}, {"object": "playbooks", "action": "read,playbook:run"}]))).await;
    let run = json!([call(
        "in-playbook_default_ops",
        json!({"reason": "test", "mode": "hard"})
    )]);
    let mut sessions = client(
        &api,
        &[
            (&admin_token, &plan),
            (&guest_token, &guest_plan),
            (&read_only, &run),
            (&runner, &run),
        ],
    )
    .await
    .into_iter();
    let mut next = || sessions.next().unwrap();
    let (control, seen, refused, ran) = (next(), next(), next(), next());

    // The control: the admin's sweep shows every tainted id.
    assert_eq!(control["protocolVersion"], "2025-11-25");
    assert_eq!(control["server"], "quarterdeck");
    let answers = control["answers"].as_array().unwrap();
    let steps = plan.as_array().unwrap();
    let mut reached = BTreeSet::new();
    for (step, answer) in steps.iter().zip(answers) {
        reached.extend(shown(&w.tainted, step, answer));
    }
    let unreached: Vec<_> = w
        .tainted
        .iter()
        .map(|(what, id)| format!("{what} {id}"))
        .filter(|t| !reached.contains(t))
        .collect();
    assert!(
        unreached.is_empty(),
        "the sweep does not reach {unreached:?}"
    );
    // Every tool the server has of its own is in the sweep.
    let listed: BTreeSet<String> = answers[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .filter(|n| !n.ends_with("_default_ops"))
        .collect();
    let swept: BTreeSet<String> = steps
        .iter()
        .filter_map(|s| s["name"].as_str())
        .map(str::to_owned)
        .collect();
    let unswept: Vec<_> = listed
        .difference(&swept)
        .filter(|n| *n != "run_health_check")
        .collect();
    assert!(
        unswept.is_empty(),
        "tools the sweep does not call: {unswept:?}"
    );

    // The guest: only the rows in their scope, through every tool.
    let answers = seen["answers"].as_array().unwrap();
    let mut leaks = Vec::new();
    let mut found = BTreeSet::new();
    for (step, answer) in guest_plan.as_array().unwrap().iter().zip(answers) {
        for leak in shown(&w.tainted, step, answer) {
            leaks.push(format!("{step}: {leak}"));
        }
        found.extend(shown(&w.clean, step, answer));
    }
    assert!(
        leaks.is_empty(),
        "the guest sees rows outside their scope: {leaks:#?}"
    );
    let missing: Vec<_> = w
        .clean
        .iter()
        .map(|(what, id)| format!("{what} {id}"))
        .filter(|c| !found.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "the guest misses rows in their scope: {missing:?}"
    );
    let tools = answers[0]["tools"].as_array().unwrap();
    let playbook_tool = tools
        .iter()
        .find(|t| t["name"] == "in-playbook_default_ops")
        .unwrap_or_else(|| panic!("no tool for in-playbook: {tools:#?}"));
    assert_eq!(playbook_tool["annotations"]["title"], "Restart it");
    assert_eq!(playbook_tool["annotations"]["destructiveHint"], true);
    assert_eq!(playbook_tool["inputSchema"]["required"], json!(["reason"]));
    assert_eq!(
        playbook_tool["inputSchema"]["properties"]["mode"]["enum"],
        json!(["soft", "hard"])
    );
    assert!(
        !tools
            .iter()
            .any(|t| t["name"] == "out-playbook_default_ops")
    );
    let n = answers.len();
    let last = |i: usize| &answers[n - i];
    assert_eq!(last(5)["isError"], true, "Run Now: {}", last(5));
    assert!(
        last(5)["text"].as_str().unwrap().contains("run"),
        "{}",
        last(5)
    );
    assert_eq!(last(4)["isError"], true, "playbook run: {}", last(4));
    assert!(
        last(4)["text"].as_str().unwrap().contains("playbook:run"),
        "{}",
        last(4)
    );
    assert_eq!(
        last(3)["error"]["code"],
        -32602,
        "unknown tool: {}",
        last(3)
    );
    assert_eq!(last(2)["isError"], true);
    assert!(
        last(2)["text"].as_str().unwrap().starts_with("id: "),
        "{}",
        last(2)
    );
    assert_eq!(last(1)["isError"], true);
    assert!(
        last(1)["text"].as_str().unwrap().starts_with("query: "),
        "{}",
        last(1)
    );
    // Connections are for admins; a page of one says where the next starts.
    let list_connections = guest_plan
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["name"] == "list_connections")
        .unwrap();
    assert_eq!(answers[list_connections]["isError"], true);
    let one_page = guest_plan
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["arguments"]["query"] == "health=unhealthy")
        .unwrap();
    let page: Value = serde_json::from_str(answers[one_page]["text"].as_str().unwrap()).unwrap();
    assert_eq!(page["items"].as_array().unwrap().len(), 1, "{page}");
    assert!(
        page.get("nextCursor").is_none(),
        "the guest sees one unhealthy item: {page}"
    );

    // A token whose scope lacks mcp is refused; one with mcp but without
    // playbook:run may not run a playbook; with playbook:run it may.
    let catalog_only = token(
        &pool,
        guest,
        "catalog",
        Some(json!([{"object": "catalog", "action": "read"}])),
    )
    .await;
    let res = Client::new()
        .post(api.at("/mcp"))
        .bearer_auth(&catalog_only)
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "EFORBIDDEN", "{body}");
    assert_eq!(refused["answers"][0]["isError"], true, "{refused}");
    assert!(
        refused["answers"][0]["text"]
            .as_str()
            .unwrap()
            .contains("playbook:run")
    );
    assert_eq!(ran["answers"][0]["isError"], false, "{ran}");
    let created: Value = serde_json::from_str(ran["answers"][0]["text"].as_str().unwrap()).unwrap();
    let run_id: Uuid = created["run_id"].as_str().unwrap().parse().unwrap();
    let (params, by): (Value, Option<Uuid>) =
        sqlx::query_as("SELECT parameters, created_by FROM playbook_runs WHERE id = $1")
            .bind(run_id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(params, json!({"reason": "test", "mode": "hard"}));
    assert_eq!(by, Some(editor));
    let _ = (w.check_out, w.run_out);
    println!(
        "mcp sweep: {} steps, {} tainted ids checked, {} clean ids found",
        guest_plan.as_array().unwrap().len(),
        w.tainted.len(),
        w.clean.len()
    );

    transport(&api, &admin_token).await;
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

/// The transport's rules, with plain HTTP.
async fn transport(api: &Api, token: &str) {
    let http = Client::new();
    let post = |body: Value, session: Option<&str>, accept: &str| {
        let mut req = http
            .post(api.at("/mcp"))
            .bearer_auth(token)
            .header("accept", accept)
            .json(&body);
        if let Some(session) = session {
            req = req.header("mcp-session-id", session);
        }
        req.send()
    };
    const BOTH: &str = "application/json, text/event-stream";
    let res = post(initialize(), None, BOTH).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let session = res.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["result"]["protocolVersion"], "2025-06-18", "{body}");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});

    let res = post(list.clone(), None, BOTH).await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "no session");
    let res = post(list.clone(), Some(&Uuid::new_v4().to_string()), BOTH)
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "unknown session");
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let res = post(notification.clone(), Some(&session), BOTH)
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    assert!(res.bytes().await.unwrap().is_empty());
    let batch = json!([
        {"jsonrpc": "2.0", "id": "a", "method": "ping"},
        notification,
        {"jsonrpc": "2.0", "id": "b", "method": "no/such"},
    ]);
    let res = post(batch, Some(&session), BOTH).await.unwrap();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body[0], json!({"jsonrpc": "2.0", "id": "a", "result": {}}));
    assert_eq!(body[1]["id"], "b");
    assert_eq!(body[1]["error"]["code"], -32601);
    assert_eq!(body.as_array().unwrap().len(), 2);
    let res = post(list.clone(), Some(&session), "text/event-stream")
        .await
        .unwrap();
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let text = res.text().await.unwrap();
    let data = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or_else(|| panic!("an event: {text}"));
    let body: Value = serde_json::from_str(data).unwrap();
    assert!(body["result"]["tools"].as_array().unwrap().len() > 10);
    let res = http
        .get(api.at("/mcp"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    let delete = |session: String| {
        http.delete(api.at("/mcp"))
            .bearer_auth(token)
            .header("mcp-session-id", session)
            .send()
    };
    assert_eq!(
        delete(session.clone()).await.unwrap().status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        delete(session.clone()).await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    let res = post(list, Some(&session), BOTH).await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "an ended session");
    let res = http
        .post(api.at("/mcp"))
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}
