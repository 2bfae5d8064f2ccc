//! The scope-leak sweep: a world with, for every scoped kind and every
//! relation pointing at one, a row in a caller's access scopes and a row
//! outside them; every relation of the data API's registry (so a relation
//! added later is swept too) and each of its embeds read over real HTTP by
//! callers access scopes restrict; no id of a row outside the scopes, nor of
//! a row that only exists because of one ("tainted"), may appear in any
//! answer, and counts must count only what is shown. An admin sweeps the
//! same world first, to show the world puts every tainted id within reach.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

mod common;

use std::collections::BTreeMap;

use common::{Api, exec, insert};
use quarterdeck_dataapi::Schema;
use quarterdeck_store::rbac::{Action, Authorizer};
use reqwest::{Client, StatusCode};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";
/// The names of the in-scope row of each scoped kind (the guest scoped by names).
const IN_SCOPE_NAMES: &str =
    r#"[{"names": ["in-config", "in-component", "in-playbook", "in-canary"]}]"#;
/// Every in-scope row of a scoped kind is tagged `zone=in`, every other `zone=out`.
const IN_SCOPE_TAGS: &str = r#"[{"tags": {"zone": "in"}}]"#;

/// Ids of rows the restricted callers must see (somewhere) and must not see (anywhere).
#[derive(Default)]
struct World {
    clean: Vec<(&'static str, Uuid)>,
    tainted: Vec<(&'static str, Uuid)>,
    check_in: Uuid,
    check_out: Uuid,
}

impl World {
    fn clean(&mut self, what: &'static str, id: Uuid) -> Uuid {
        self.clean.push((what, id));
        id
    }

    fn taint(&mut self, what: &'static str, id: Uuid) -> Uuid {
        self.tainted.push((what, id));
        id
    }
}

async fn seed(pool: &PgPool, admin: Uuid) -> World {
    let mut w = World::default();

    // Canaries, checks, statuses and hourly rollups.
    let can_in = w.clean("canary", insert(pool, r#"INSERT INTO canaries (name, spec, labels) VALUES ('in-canary', '{}', '{"zone":"in"}') RETURNING id"#, &[]).await);
    let can_out = w.taint("canary", insert(pool, r#"INSERT INTO canaries (name, spec, labels) VALUES ('out-canary', '{}', '{"zone":"out"}') RETURNING id"#, &[]).await);
    const CHECK: &str =
        "INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'web') RETURNING id";
    w.check_in = w.clean("check", insert(pool, CHECK, &[can_in]).await);
    w.check_out = w.taint("check", insert(pool, CHECK, &[can_out]).await);
    let (chk_in, chk_out) = (w.check_in, w.check_out);
    let status_marker = w.taint("check status message", Uuid::new_v4());
    exec(pool, "INSERT INTO check_statuses (check_id, time, status, message) VALUES ($1, now(), true, 'fine'), ($2, now(), false, ($3::uuid)::text)", &[chk_in, chk_out, status_marker]).await;
    exec(pool, "INSERT INTO check_statuses_1h (check_id, created_at, total, passed, failed, latency) SELECT id, date_trunc('hour', now()), 1, 1, 0, '{5}' FROM unnest(ARRAY[$1, $2]::uuid[]) id", &[chk_in, chk_out]).await;

    // Config items, changes and analyses.
    let cfg_in = w.clean("config", insert(pool, r#"INSERT INTO config_items (name, type, config_class, tags) VALUES ('in-config', 'T', 'C', '{"zone":"in"}') RETURNING id"#, &[]).await);
    let cfg_out = w.taint("config", insert(pool, r#"INSERT INTO config_items (name, type, config_class, tags) VALUES ('out-config', 'T', 'C', '{"zone":"out"}') RETURNING id"#, &[]).await);
    const CHANGE: &str =
        "INSERT INTO config_changes (config_id, change_type) VALUES ($1, 'diff') RETURNING id";
    let chg_in = w.clean("change", insert(pool, CHANGE, &[cfg_in]).await);
    let chg_out = w.taint("change", insert(pool, CHANGE, &[cfg_out]).await);
    const ANALYSIS: &str =
        "INSERT INTO config_analysis (config_id, analyzer) VALUES ($1, 'lint') RETURNING id";
    w.clean("analysis", insert(pool, ANALYSIS, &[cfg_in]).await);
    let ana_out = w.taint("analysis", insert(pool, ANALYSIS, &[cfg_out]).await);

    // Topologies and components: the in-scope topology also holds an
    // out-of-scope component, which its embed must leave out.
    let topo_in = w.clean(
        "topology",
        insert(
            pool,
            "INSERT INTO topologies (name) VALUES ('in-topology') RETURNING id",
            &[],
        )
        .await,
    );
    let topo_out = w.taint(
        "topology",
        insert(
            pool,
            "INSERT INTO topologies (name) VALUES ('out-topology') RETURNING id",
            &[],
        )
        .await,
    );
    let comp_in = w.clean("component", insert(pool, r#"INSERT INTO components (name, labels, topology_id, config_id) VALUES ('in-component', '{"zone":"in"}', $1, $2) RETURNING id"#, &[topo_in, cfg_in]).await);
    let comp_out = w.taint("component", insert(pool, r#"INSERT INTO components (name, labels, topology_id, config_id) VALUES ('out-component', '{"zone":"out"}', $1, $2) RETURNING id"#, &[topo_out, cfg_out]).await);
    w.taint("stray component", insert(pool, r#"INSERT INTO components (name, labels, topology_id) VALUES ('out-stray', '{"zone":"out"}', $1) RETURNING id"#, &[topo_in]).await);

    // Relationships, including mixed pairs (one side in scope).
    exec(pool, "INSERT INTO check_component_relationships (component_id, check_id, canary_id) VALUES ($1, $2, $3), ($1, $4, $5), ($6, $2, $3)", &[comp_in, chk_in, can_in, chk_out, can_out, comp_out]).await;
    exec(pool, "INSERT INTO check_config_relationships (config_id, check_id, canary_id) VALUES ($1, $2, $3), ($1, $4, $5), ($6, $2, $3)", &[cfg_in, chk_in, can_in, chk_out, can_out, cfg_out]).await;
    exec(pool, "INSERT INTO config_component_relationships (component_id, config_id) VALUES ($1, $2), ($1, $3), ($4, $2)", &[comp_in, cfg_in, cfg_out, comp_out]).await;

    // Playbooks, runs (of the in-scope playbook on out-of-scope targets too) and their actions.
    let pb_in = w.clean("playbook", insert(pool, r#"INSERT INTO playbooks (name, title, spec, labels) VALUES ('in-playbook', 'In', '{}', '{"zone":"in"}') RETURNING id"#, &[]).await);
    let pb_out = w.taint("playbook", insert(pool, r#"INSERT INTO playbooks (name, title, spec, labels) VALUES ('out-playbook', 'Out', '{}', '{"zone":"out"}') RETURNING id"#, &[]).await);
    const RUN: &str = "INSERT INTO playbook_runs (playbook_id, check_id, config_id, component_id) VALUES ($1, $2, $3, $4) RETURNING id";
    let run_in = w.clean(
        "run",
        insert(pool, RUN, &[pb_in, chk_in, cfg_in, comp_in]).await,
    );
    let run_out = w.taint(
        "run",
        insert(pool, RUN, &[pb_out, chk_in, cfg_in, comp_in]).await,
    );
    let tainted_runs = [
        w.taint(
            "run on an out-of-scope check",
            insert(pool, RUN, &[pb_in, chk_out, cfg_in, comp_in]).await,
        ),
        w.taint(
            "run on an out-of-scope config",
            insert(pool, RUN, &[pb_in, chk_in, cfg_out, comp_in]).await,
        ),
        w.taint(
            "run on an out-of-scope component",
            insert(pool, RUN, &[pb_in, chk_in, cfg_in, comp_out]).await,
        ),
    ];
    const ACTION: &str =
        "INSERT INTO playbook_run_actions (playbook_run_id, name) VALUES ($1, 'step') RETURNING id";
    w.clean("action", insert(pool, ACTION, &[run_in]).await);
    for run in [run_out].iter().chain(&tainted_runs) {
        w.taint("action", insert(pool, ACTION, &[*run]).await);
    }

    // Incidents: evidences pointing at each scoped relation, and their history.
    let incident = insert(
        pool,
        "INSERT INTO incidents (title, created_by) VALUES ('down', $1) RETURNING id",
        &[admin],
    )
    .await;
    let hypothesis = insert(
        pool,
        "INSERT INTO hypotheses (incident_id, type, title) VALUES ($1, 'root', 'why') RETURNING id",
        &[incident],
    )
    .await;
    let ev_in = w.clean("evidence", insert(pool, "INSERT INTO evidences (hypothesis_id, type, config_id, config_change_id, check_id) VALUES ($1, 'config', $2, $3, $4) RETURNING id", &[hypothesis, cfg_in, chg_in, chk_in]).await);
    w.taint("evidence of a config", insert(pool, "INSERT INTO evidences (hypothesis_id, type, config_id) VALUES ($1, 'config', $2) RETURNING id", &[hypothesis, cfg_out]).await);
    w.taint("evidence of a change", insert(pool, "INSERT INTO evidences (hypothesis_id, type, config_change_id) VALUES ($1, 'config_change', $2) RETURNING id", &[hypothesis, chg_out]).await);
    w.taint("evidence of an analysis", insert(pool, "INSERT INTO evidences (hypothesis_id, type, config_analysis_id) VALUES ($1, 'config_analysis', $2) RETURNING id", &[hypothesis, ana_out]).await);
    w.taint("evidence of a component", insert(pool, "INSERT INTO evidences (hypothesis_id, type, component_id) VALUES ($1, 'topology', $2) RETURNING id", &[hypothesis, comp_out]).await);
    let ev_chk_out = w.taint("evidence of a check", insert(pool, "INSERT INTO evidences (hypothesis_id, type, check_id) VALUES ($1, 'check', $2) RETURNING id", &[hypothesis, chk_out]).await);
    w.clean("incident history", insert(pool, "INSERT INTO incident_histories (incident_id, type, hypothesis_id, evidence_id) VALUES ($1, 'evidence.created', $2, $3) RETURNING id", &[incident, hypothesis, ev_in]).await);
    w.taint("incident history", insert(pool, "INSERT INTO incident_histories (incident_id, type, hypothesis_id, evidence_id) VALUES ($1, 'evidence.created', $2, $3) RETURNING id", &[incident, hypothesis, ev_chk_out]).await);

    // Notifications (one runs the out-of-scope playbook, one falls back to
    // it), silences and send history.
    let notif_in = w.clean("notification", insert(pool, "INSERT INTO notifications (name, events, person_id, playbook_id) VALUES ('in', '{check.failed}', $1, $2) RETURNING id", &[admin, pb_in]).await);
    let notif_out = w.taint("notification running a playbook", insert(pool, "INSERT INTO notifications (name, events, playbook_id) VALUES ('out', '{check.failed}', $1) RETURNING id", &[pb_out]).await);
    w.taint("notification falling back to a playbook", insert(pool, "INSERT INTO notifications (name, events, person_id, fallback_playbook_id) VALUES ('fallback', '{check.failed}', $1, $2) RETURNING id", &[admin, pb_out]).await);
    w.clean("silence", insert(pool, "INSERT INTO notification_silences (name, config_id, check_id, canary_id, component_id) VALUES ('in', $1, $2, $3, $4) RETURNING id", &[cfg_in, chk_in, can_in, comp_in]).await);
    w.taint(
        "silence of a config",
        insert(
            pool,
            "INSERT INTO notification_silences (name, config_id) VALUES ('out-config', $1) RETURNING id",
            &[cfg_out],
        )
        .await,
    );
    w.taint(
        "silence of a canary",
        insert(
            pool,
            "INSERT INTO notification_silences (name, canary_id) VALUES ('out-canary', $1) RETURNING id",
            &[can_out],
        )
        .await,
    );
    w.taint("silence of a component", insert(pool, "INSERT INTO notification_silences (name, component_id) VALUES ('out-component', $1) RETURNING id", &[comp_out]).await);
    let sil_chk_out = w.taint(
        "silence of a check",
        insert(
            pool,
            "INSERT INTO notification_silences (name, check_id) VALUES ('out-check', $1) RETURNING id",
            &[chk_out],
        )
        .await,
    );
    w.clean("sent", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id, playbook_run_id) VALUES ($1, 'check.failed', $2, $3) RETURNING id", &[notif_in, chk_in, run_in]).await);
    w.taint("sent about a check", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id) VALUES ($1, 'check.failed', $2) RETURNING id", &[notif_in, chk_out]).await);
    w.taint("sent about a canary", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id) VALUES ($1, 'canary.failed', $2) RETURNING id", &[notif_in, can_out]).await);
    w.taint("sent about a component", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id) VALUES ($1, 'component.unhealthy', $2) RETURNING id", &[notif_in, comp_out]).await);
    w.taint("sent about a config", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id) VALUES ($1, 'config.updated', $2) RETURNING id", &[notif_in, cfg_out]).await);
    w.taint("sent, running an out-of-scope run", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id, playbook_run_id) VALUES ($1, 'check.failed', $2, $3) RETURNING id", &[notif_in, chk_in, run_out]).await);
    w.taint("sent, silenced by an out-of-scope silence", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id, silenced_by) VALUES ($1, 'check.failed', $2, $3) RETURNING id", &[notif_in, chk_in, sil_chk_out]).await);
    w.taint("sent by a tainted notification", insert(pool, "INSERT INTO notification_send_history (notification_id, source_event, resource_id) VALUES ($1, 'check.failed', $2) RETURNING id", &[notif_out, chk_in]).await);

    // Permissions about one resource (subject: a group nobody is in).
    const PERMISSION: &str = "INSERT INTO permissions (subject_type, subject, action, config_id, component_id, canary_id, playbook_id) VALUES ('group', 'nobody', 'read', $1, $2, $3, $4) RETURNING id";
    w.clean(
        "permission",
        insert(pool, PERMISSION, &[cfg_in, comp_in, can_in, pb_in]).await,
    );
    w.taint("permission on a config", insert(pool, "INSERT INTO permissions (subject_type, subject, action, config_id) VALUES ('group', 'nobody', 'read', $1) RETURNING id", &[cfg_out]).await);
    w.taint("permission on a component", insert(pool, "INSERT INTO permissions (subject_type, subject, action, component_id) VALUES ('group', 'nobody', 'read', $1) RETURNING id", &[comp_out]).await);
    w.taint("permission on a canary", insert(pool, "INSERT INTO permissions (subject_type, subject, action, canary_id) VALUES ('group', 'nobody', 'read', $1) RETURNING id", &[can_out]).await);
    w.taint("permission on a playbook", insert(pool, "INSERT INTO permissions (subject_type, subject, action, playbook_id) VALUES ('group', 'nobody', 'read', $1) RETURNING id", &[pb_out]).await);
    w.taint("permission for a tainted notification", insert(pool, "INSERT INTO permissions (subject_type, notification_id, action, object) VALUES ('notification', $1, 'read', 'canaries') RETURNING id", &[notif_out]).await);

    // Job history naming each kind, and a check engine run naming a check in its details.
    w.clean("job", insert(pool, "INSERT INTO job_history (name, resource_type, resource_id, status) VALUES ('Sync', 'canary', $1::text, 'SUCCESS') RETURNING id", &[can_in]).await);
    w.clean("job", insert(pool, "INSERT INTO job_history (name, resource_type, resource_id, status) VALUES ('Sync', 'topology', $1::text, 'SUCCESS') RETURNING id", &[topo_in]).await);
    for (kind, id) in [
        ("canary", can_out),
        ("check", chk_out),
        ("topology", topo_out),
        ("component", comp_out),
        ("config", cfg_out),
        ("playbook", pb_out),
    ] {
        let job: Uuid = sqlx::query_scalar("INSERT INTO job_history (name, resource_type, resource_id, status) VALUES ('Sync', $1, $2::text, 'SUCCESS') RETURNING id")
            .bind(kind)
            .bind(id)
            .fetch_one(pool)
            .await
            .expect("job");
        w.taint("job", job);
    }
    w.taint("check engine run", insert(pool, "INSERT INTO job_history (name, details, status) VALUES ('HealthCheckEngine', jsonb_build_object('failing', jsonb_build_array($1::text)), 'FAILED') RETURNING id", &[chk_out]).await);

    // The event queue (its payloads name anything).
    w.taint("event", insert(pool, "INSERT INTO event_queue (name, properties) VALUES ('check.failed', jsonb_build_object('id', $1::text)) RETURNING id", &[chk_out]).await);
    w
}

/// What one caller's sweep saw.
struct Sweep {
    /// Every id of the world, clean and tainted.
    ids: Vec<Uuid>,
    relations: usize,
    requests: usize,
    /// Ids of the world found in some answer, with the first request that answered it.
    seen: BTreeMap<Uuid, String>,
    /// Each way an answer was wrong (all of them, so one run names every leak).
    failures: Vec<String>,
}

struct Answer {
    status: StatusCode,
    content_range: Option<String>,
    text: String,
}

impl Sweep {
    fn new(world: &World) -> Self {
        Self {
            ids: world
                .clean
                .iter()
                .chain(&world.tainted)
                .map(|(_, id)| *id)
                .collect(),
            relations: 0,
            requests: 0,
            seen: BTreeMap::new(),
            failures: Vec::new(),
        }
    }

    /// A GET, with every id of the world looked for in its body.
    async fn get(&mut self, api: &Api, client: &Client, path: &str, count: bool) -> Answer {
        let mut request = client.get(api.at(path));
        if count {
            request = request.header("Prefer", "count=exact");
        }
        let res = request.send().await.expect("request");
        self.requests += 1;
        let status = res.status();
        let content_range = res
            .headers()
            .get("content-range")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = res.text().await.expect("body");
        self.look(&format!("GET {path}"), status, &text);
        Answer {
            status,
            content_range,
            text,
        }
    }

    fn expect_status(&mut self, what: &str, answer: &Answer, expected: StatusCode) -> bool {
        let ok = answer.status == expected;
        if !ok {
            self.failures.push(format!(
                "{what}: {} (expected {expected}): {}",
                answer.status, answer.text
            ));
        }
        ok
    }

    /// Every relation of the registry, alone and with each of its embeds,
    /// with and without a count: refused (403) exactly when the role may not
    /// read a resource involved, else 200 with a count equal to the rows shown.
    async fn relations(&mut self, api: &Api, client: &Client, roles: &[&str]) {
        let rights = Authorizer {
            roles: roles.iter().map(|r| (*r).to_owned()).collect(),
            ..Authorizer::default()
        };
        let schema = Schema::console();
        for relation in schema.relations() {
            self.relations += 1;
            let mut selects = vec![("*".to_owned(), vec![relation.resource])];
            for embed in relation.embeds {
                let target = schema.relation(embed.target).expect("embed target");
                selects.push((
                    format!("*,{}(*)", embed.name),
                    vec![relation.resource, target.resource],
                ));
            }
            for (select, resources) in selects {
                let readable = resources.iter().all(|&r| rights.allows(r, Action::Read));
                let path = format!("/api/db/{}?select={select}", relation.name);
                for count in [false, true] {
                    let what = format!("GET {path} (count: {count})");
                    let answer = self.get(api, client, &path, count).await;
                    let expected = if readable {
                        StatusCode::OK
                    } else {
                        StatusCode::FORBIDDEN
                    };
                    if !self.expect_status(&what, &answer, expected) || !readable || !count {
                        continue;
                    }
                    let rows = serde_json::from_str::<serde_json::Value>(&answer.text)
                        .ok()
                        .and_then(|v| v.as_array().map(Vec::len));
                    let total = answer
                        .content_range
                        .as_deref()
                        .and_then(|r| r.rsplit('/').next())
                        .and_then(|t| t.parse::<usize>().ok());
                    if rows.is_none() || total != rows {
                        self.failures.push(format!(
                            "{what}: Content-Range {:?} but {rows:?} rows",
                            answer.content_range
                        ));
                    }
                }
            }
        }
    }

    /// The health endpoints: the summary lists only visible checks, and a
    /// check outside the scopes is not found.
    async fn health(&mut self, api: &Api, client: &Client, world: &World, restricted: bool) {
        let (check_in, check_out) = (world.check_in, world.check_out);
        let hidden = if restricted {
            StatusCode::NOT_FOUND
        } else {
            StatusCode::OK
        };
        let paths = [
            ("/api/canary/api/summary".to_owned(), StatusCode::OK),
            (
                format!("/api/canary/api/summary?check_id={check_out}"),
                StatusCode::OK,
            ),
            (format!("/api/canary/api?check={check_in}"), StatusCode::OK),
            (format!("/api/canary/api?check={check_out}"), hidden),
            (
                format!("/api/canary/api/graph?check={check_in}"),
                StatusCode::OK,
            ),
            (format!("/api/canary/api/graph?check={check_out}"), hidden),
        ];
        for (path, expected) in paths {
            let answer = self.get(api, client, &path, false).await;
            self.expect_status(&format!("GET {path}"), &answer, expected);
        }
        let res = client
            .post(api.at("/api/canary/api/summary"))
            .json(&serde_json::json!({}))
            .send()
            .await
            .expect("summary");
        self.requests += 1;
        let status = res.status();
        let text = res.text().await.expect("summary body");
        self.look("POST /api/canary/api/summary", status, &text);

        // The notification calls read the send history's view as /api/db does.
        let res = client
            .post(api.at("/api/notification/summary"))
            .json(&serde_json::json!({"pageSize": 1000, "includeDeletedResources": true}))
            .send()
            .await
            .expect("notification summary");
        self.requests += 1;
        let status = res.status();
        let text = res.text().await.expect("notification summary body");
        self.look("POST /api/notification/summary", status, &text);
        for query in [
            "filter=true".to_owned(),
            format!("id={check_in}"),
            format!("id={check_out}"),
        ] {
            let path = format!("/api/notification/silence_preview?{query}");
            self.get(api, client, &path, false).await;
        }
    }

    /// Notes the ids of the world that an answer to `request` holds (but
    /// not one the request named that a "not found" echoes).
    fn look(&mut self, request: &str, status: StatusCode, text: &str) {
        for id in &self.ids {
            let id_text = id.to_string();
            let echo = status == StatusCode::NOT_FOUND && request.contains(&id_text);
            if text.contains(&id_text) && !echo {
                self.seen.entry(*id).or_insert_with(|| request.to_owned());
            }
        }
    }
}

async fn sweep(
    api: &Api,
    client: &Client,
    roles: &[&str],
    world: &World,
    restricted: bool,
) -> Sweep {
    let mut sweep = Sweep::new(world);
    sweep.relations(api, client, roles).await;
    sweep.health(api, client, world, restricted).await;
    sweep
}

/// The ids of the world a sweep saw (`seen`) or did not, and where.
fn describe(ids: &[(&'static str, Uuid)], sweep: &Sweep, seen: bool) -> Vec<String> {
    ids.iter()
        .filter(|(_, id)| sweep.seen.contains_key(id) == seen)
        .map(|(what, id)| match sweep.seen.get(id) {
            Some(request) => format!("{what} {id}, in {request}"),
            None => format!("{what} {id}"),
        })
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn no_relation_embed_or_health_answer_leaks_rows_outside_the_scopes(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let admin = api.person("root@example.com", &["admin"], PASSWORD).await;
    let world = seed(&pool, admin).await;

    let by_tags = api.person("tags@example.com", &["guest"], PASSWORD).await;
    let by_names = api.person("names@example.com", &["guest"], PASSWORD).await;
    let editor = api
        .person("editor@example.com", &["editor"], PASSWORD)
        .await;
    for (name, person, scopes) in [
        ("by-tags", by_tags, IN_SCOPE_TAGS),
        ("by-names", by_names, IN_SCOPE_NAMES),
    ] {
        sqlx::query("INSERT INTO access_scopes (name, person_id, resources, scopes) VALUES ($3, $1, '{*}', $2::text::jsonb)")
            .bind(person)
            .bind(scopes)
            .bind(name)
            .execute(&pool)
            .await
            .expect("personal scope");
    }
    let team: Uuid = sqlx::query_scalar("INSERT INTO teams (name) VALUES ('scoped') RETURNING id")
        .fetch_one(&pool)
        .await
        .expect("team");
    sqlx::query("INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)")
        .bind(team)
        .bind(editor)
        .execute(&pool)
        .await
        .expect("member");
    sqlx::query("INSERT INTO access_scopes (name, team_id, resources, scopes) VALUES ('team', $1, '{*}', $2::text::jsonb)")
        .bind(team)
        .bind(IN_SCOPE_TAGS)
        .execute(&pool)
        .await
        .expect("team scope");

    // The control: an admin's sweep finds every id of the world, so the
    // restricted sweeps below would find any of them that leaked.
    let client = api.signed_in("root@example.com", PASSWORD).await;
    let control = sweep(&api, &client, &["admin"], &world, false).await;
    assert!(
        control.failures.is_empty(),
        "admin: {:#?}",
        control.failures
    );
    let unseen = describe(&world.tainted, &control, false);
    assert!(unseen.is_empty(), "the world does not reach: {unseen:#?}");

    let mut requests = control.requests;
    let mut relations = 0;
    // The three sweeps side by side: each waits on one request at a time.
    let callers = [
        ("tags@example.com", ["guest"]),
        ("names@example.com", ["guest"]),
        ("editor@example.com", ["editor"]),
    ];
    let results = futures::future::join_all(callers.iter().map(|(email, roles)| {
        let (api, world) = (&api, &world);
        async move {
            let client = api.signed_in(email, PASSWORD).await;
            sweep(api, &client, roles, world, true).await
        }
    }))
    .await;
    for ((email, _), result) in callers.iter().zip(results) {
        let leaked = describe(&world.tainted, &result, true);
        let missing = describe(&world.clean, &result, false);
        assert!(
            result.failures.is_empty(),
            "{email}: {:#?}",
            result.failures
        );
        assert!(
            leaked.is_empty(),
            "{email} sees rows outside their scopes: {leaked:#?}"
        );
        assert!(
            missing.is_empty(),
            "{email} misses rows in their scopes: {missing:#?}"
        );
        requests += result.requests;
        relations = result.relations;
    }
    println!(
        "scope-leak sweep: {relations} relations, {requests} requests, {} tainted ids checked ({} clean ids expected), 3 restricted callers and an admin",
        world.tainted.len(),
        world.clean.len()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_scoped_editor_cannot_point_a_notification_at_a_playbook_outside_their_scopes(
    pool: PgPool,
) {
    let api = Api::start(pool.clone()).await;
    let editor = api
        .person("editor@example.com", &["editor"], PASSWORD)
        .await;
    let team = insert(
        &pool,
        "INSERT INTO teams (name) VALUES ('scoped') RETURNING id",
        &[],
    )
    .await;
    exec(
        &pool,
        "INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)",
        &[team, editor],
    )
    .await;
    exec(&pool, r#"INSERT INTO access_scopes (name, team_id, resources, scopes) VALUES ('team', $1, '{playbook}', '[{"tags": {"zone": "in"}}]')"#, &[team]).await;
    let pb_in = insert(&pool, r#"INSERT INTO playbooks (name, title, spec, labels) VALUES ('in-playbook', 'In', '{}', '{"zone":"in"}') RETURNING id"#, &[]).await;
    let pb_out = insert(&pool, r#"INSERT INTO playbooks (name, title, spec, labels) VALUES ('out-playbook', 'Out', '{}', '{"zone":"out"}') RETURNING id"#, &[]).await;
    let client = api.signed_in("editor@example.com", PASSWORD).await;
    let post = |name: &str, playbook: Uuid| {
        client
            .post(api.at("/api/db/notifications"))
            .json(&serde_json::json!({"name": name, "events": ["check.failed"], "playbook_id": playbook}))
            .send()
    };

    let res = post("outside", pb_out).await.expect("post");
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body: serde_json::Value = res.json().await.expect("error body");
    assert_eq!(body["code"], "42501", "{body}");
    let res = post("inside", pb_in).await.expect("post");
    assert_eq!(res.status(), StatusCode::CREATED);
    let names: Vec<String> = sqlx::query_scalar("SELECT name FROM notifications")
        .fetch_all(&pool)
        .await
        .expect("names");
    assert_eq!(names, ["inside"]);
}
