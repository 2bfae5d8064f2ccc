use quarterdeck_crds::{AccessScope, Canary, Permission, Playbook, ScrapeConfig, Topology};
use quarterdeck_store::crd::{Table, Value};
use serde_json::json;
use uuid::Uuid;

use super::{Invalid, Reconciled};

fn parse<K: Reconciled>(yaml: &str) -> K {
    yaml_serde::from_str(yaml).unwrap()
}

fn column<'a>(row: &'a quarterdeck_store::crd::Row, name: &str) -> &'a Value {
    &row.columns
        .iter()
        .find(|(c, _)| *c == name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .1
}

const CANARY: &str = r#"
apiVersion: quarterdeck.dev/v1
kind: Canary
metadata: {name: web, namespace: prod, labels: {team: web}}
spec:
  schedule: "@every 30s"
  severity: high
  http:
    - name: home
      url: https://example.com
      responseCodes: [200]
  elasticsearch:
    - url: http://es:9200
      index: logs
  tcp:
    - name: db
      endpoint: db:5432
"#;

#[test]
fn canary_becomes_a_row_with_one_check_per_item() {
    let canary: Canary = parse(CANARY);
    let id = Uuid::new_v4();
    let row = canary.row(id).unwrap();
    assert_eq!(
        (row.table, row.name.as_str(), row.namespace.as_str()),
        (Table::Canaries, "web", "prod")
    );
    assert_eq!(column(&row, "labels"), &Value::Json(json!({"team": "web"})));
    let names: Vec<(&str, &str)> = row
        .checks
        .iter()
        .map(|c| (c.check_type.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("elasticsearch", "http://es:9200"),
            ("http", "home"),
            ("tcp", "db")
        ]
    );
    let home = &row.checks[1];
    assert_eq!(home.endpoint.as_deref(), Some("https://example.com"));
    assert_eq!(
        home.severity.as_deref(),
        Some("high"),
        "inherits the canary's severity"
    );
    assert_eq!(home.namespace.as_deref(), Some("prod"));
    assert_eq!(home.spec["responseCodes"], json!([200]));
    assert_eq!(
        canary.row(id).unwrap().checks[1].id,
        home.id,
        "check ids are stable"
    );
    assert_eq!(
        Canary::extra_status(&row)["checks"]["db"],
        json!(row.checks[2].id.to_string())
    );
}

#[test]
fn status_checks_key_a_shared_name_by_type() {
    let canary: Canary = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Canary\nmetadata: {name: c}\nspec:\n  tcp:\n    - {name: db, endpoint: 'db:5432'}\n    - {name: cache, endpoint: 'cache:6379'}\n  icmp:\n    - {name: db, endpoint: db}\n",
    );
    let row = canary.row(Uuid::new_v4()).unwrap();
    let id = |t: &str, n: &str| {
        let check = row.checks.iter().find(|c| c.check_type == t && c.name == n);
        json!(check.unwrap().id.to_string())
    };
    assert_eq!(
        Canary::extra_status(&row),
        json!({"checks": {
            "cache": id("tcp", "cache"),
            "icmp/db": id("icmp", "db"),
            "tcp/db": id("tcp", "db"),
        }})
    );
}

#[test]
fn duplicate_check_names_are_invalid() {
    let canary: Canary = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Canary\nmetadata: {name: c}\nspec:\n  tcp:\n    - {name: a, endpoint: 'x:1'}\n    - {name: a, endpoint: 'y:1'}\n",
    );
    let Invalid(message) = canary.row(Uuid::new_v4()).unwrap_err();
    assert!(message.contains("two checks are named \"a\""), "{message}");
}

#[test]
fn namespace_defaults_to_default() {
    let canary: Canary =
        parse("apiVersion: quarterdeck.dev/v1\nkind: Canary\nmetadata: {name: c}\nspec: {}\n");
    assert_eq!(canary.row(Uuid::new_v4()).unwrap().namespace, "default");
}

#[test]
fn topology_gets_its_default_schedule() {
    let t: Topology = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Topology\nmetadata: {name: t}\nspec: {type: App}\n",
    );
    let row = t.row(Uuid::new_v4()).unwrap();
    assert_eq!(
        column(&row, "schedule"),
        &Value::Text(Some("@every 10m".into()))
    );
}

#[test]
fn scrape_config_keeps_its_spec() {
    let s: ScrapeConfig = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: ScrapeConfig\nmetadata: {name: k8s}\nspec:\n  schedule: '@every 15m'\n  kubernetes:\n    - clusterName: local\n",
    );
    let row = s.row(Uuid::new_v4()).unwrap();
    let Value::Json(spec) = column(&row, "spec") else {
        panic!()
    };
    assert_eq!(spec["kubernetes"][0]["clusterName"], "local");
}

#[test]
fn playbook_title_falls_back_to_the_name_and_needs_actions() {
    let p: Playbook = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Playbook\nmetadata: {name: restart}\nspec:\n  category: ops\n  actions:\n    - name: run\n      exec: {script: echo hi}\n",
    );
    let row = p.row(Uuid::new_v4()).unwrap();
    assert_eq!(column(&row, "title"), &Value::Text(Some("restart".into())));
    assert_eq!(column(&row, "category"), &Value::Text(Some("ops".into())));

    let empty: Playbook = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Playbook\nmetadata: {name: p}\nspec:\n  actions: []\n",
    );
    assert!(
        empty
            .row(Uuid::new_v4())
            .unwrap_err()
            .0
            .contains("spec.actions")
    );
}

#[test]
fn permission_subjects() {
    let person: Permission = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Permission\nmetadata: {name: p}\nspec:\n  actions: [read, playbook:run]\n  subject: {person: a@example.com}\n  object:\n    playbooks: [{name: restart}]\n",
    );
    let row = person.row(Uuid::new_v4()).unwrap();
    assert_eq!(
        column(&row, "subject_type"),
        &Value::Text(Some("person".into()))
    );
    assert_eq!(
        column(&row, "person_id"),
        &Value::Person("a@example.com".into())
    );
    assert_eq!(
        column(&row, "action"),
        &Value::Text(Some("read,playbook:run".into()))
    );
    assert_eq!(column(&row, "deny"), &Value::Bool(false));

    let group: Permission = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Permission\nmetadata: {name: p}\nspec:\n  actions: ['*']\n  deny: true\n  subject: {group: editor}\n  object: {mcp: true}\n",
    );
    let row = group.row(Uuid::new_v4()).unwrap();
    assert_eq!(
        column(&row, "subject_type"),
        &Value::Text(Some("group".into()))
    );
    assert_eq!(column(&row, "object"), &Value::Text(Some("mcp".into())));
    assert_eq!(column(&row, "deny"), &Value::Bool(true));

    let two: Permission = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Permission\nmetadata: {name: p}\nspec:\n  actions: [read]\n  subject: {person: a@x, team: ops}\n  object: {}\n",
    );
    assert!(
        two.row(Uuid::new_v4())
            .unwrap_err()
            .0
            .contains("exactly one")
    );
}

#[test]
fn permission_user_is_a_person_by_id_or_email() {
    for who in ["a@example.com", "0190f1c2-7d3e-7000-8000-000000000001"] {
        let user: Permission = parse(&format!(
            "apiVersion: quarterdeck.dev/v1\nkind: Permission\nmetadata: {{name: p}}\nspec:\n  actions: [read]\n  subject: {{user: '{who}'}}\n  object:\n    configs: [{{name: '*'}}]\n"
        ));
        let row = user.row(Uuid::new_v4()).unwrap();
        assert_eq!(
            column(&row, "subject_type"),
            &Value::Text(Some("person".into()))
        );
        assert_eq!(column(&row, "person_id"), &Value::Person(who.into()));
    }
    let both: Permission = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: Permission\nmetadata: {name: p}\nspec:\n  actions: [read]\n  subject: {user: a@x, person: a@x}\n  object: {mcp: true}\n",
    );
    assert!(both.row(Uuid::new_v4()).is_err());
}

fn permission_object(object: &str) -> Result<quarterdeck_store::crd::Row, Invalid> {
    let permission: Permission = parse(&format!(
        "apiVersion: quarterdeck.dev/v1\nkind: Permission\nmetadata: {{name: p}}\nspec:\n  actions: [read]\n  subject: {{team: ops}}\n  object: {object}\n"
    ));
    permission.row(Uuid::new_v4())
}

#[test]
fn permission_selectors_are_accepted_only_when_enforced() {
    let row = permission_object(
        "{connections: [{type: postgres, namespace: db}], configs: [{tagSelector: 'env=prod', agent: self}], views: [{name: costs}]}",
    )
    .unwrap();
    assert_eq!(
        column(&row, "object_selector"),
        &Value::Json(json!({
            "connections": [{"type": "postgres", "namespace": "db"}],
            "configs": [{"tagSelector": "env=prod", "agent": "self"}],
            "views": [{"name": "costs"}],
        }))
    );
    assert_eq!(column(&row, "object"), &Value::Text(None));
    for (object, field) in [
        (
            "{configs: [{search: prod}]}",
            "spec.object.configs[0].search",
        ),
        (
            "{components: [{name: a}, {health: healthy}]}",
            "spec.object.components[1].health",
        ),
        ("{scopes: [{name: s}]}", "spec.object.scopes"),
        ("{plugins: [{name: p}]}", "spec.object.plugins"),
        (
            "{playbooks: [{tagSelector: 'a in b'}]}",
            "spec.object.playbooks[0].tagSelector",
        ),
        ("{}", "spec.object"),
    ] {
        let Invalid(message) = permission_object(object).unwrap_err();
        assert!(message.starts_with(field), "{object}: {message}");
    }
}

#[test]
fn access_scope_validation_and_subjects() {
    let scope: AccessScope = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: AccessScope\nmetadata: {name: s}\nspec:\n  subject: {team: ops}\n  resources: [config, canary]\n  scopes:\n    - tags: {env: prod}\n",
    );
    let row = scope.row(Uuid::new_v4()).unwrap();
    assert_eq!(column(&row, "team_id"), &Value::TeamByName("ops".into()));
    assert_eq!(
        column(&row, "resources"),
        &Value::TextArray(vec!["config".into(), "canary".into()])
    );

    let bad: AccessScope = parse(
        "apiVersion: quarterdeck.dev/v1\nkind: AccessScope\nmetadata: {name: s}\nspec:\n  subject: {}\n  resources: []\n  scopes: [{names: ['*', a]}]\n",
    );
    let Invalid(message) = bad.row(Uuid::new_v4()).unwrap_err();
    for expected in [
        "Either a Guest or Team must be selected",
        "At least one resource type is required",
        "Wildcard '*' must be the only name when used",
    ] {
        assert!(
            message.contains(expected),
            "{expected} missing from {message}"
        );
    }
}
