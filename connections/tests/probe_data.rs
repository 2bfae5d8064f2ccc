//! Connection tests against live servers: PostgreSQL (DATABASE_URL), and
//! MariaDB, Redis, Prometheus and git daemon started by
//! hack/lib/servers/ (run through hack/test.sh or hack/with-servers.sh).

mod common;

use common::{connection, server_var, try_it};
use quarterdeck_connections::probe::ProbeError;
use url::Url;

/// `url` without its credentials, and the credentials as fields.
fn split_credentials(kind: &str, raw: &str) -> quarterdeck_connections::Resolved {
    let mut url = Url::parse(raw).unwrap();
    let username = url.username().to_owned();
    let password = url.password().map(str::to_owned);
    url.set_username("").unwrap();
    url.set_password(None).unwrap();
    let mut c = connection(kind, url.as_str());
    c.username = Some(username).filter(|u| !u.is_empty());
    c.password = password;
    c
}

fn refused(result: Result<quarterdeck_connections::probe::Tried, ProbeError>) -> String {
    match result {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn postgres_signs_in_and_answers_its_version() {
    let c = split_credentials("postgres", &server_var("DATABASE_URL"));
    let tried = try_it(&c).await.unwrap();
    assert!(tried.message.starts_with("PostgreSQL "), "{tried:?}");
    assert!(tried.message.contains("signed in as postgres"), "{tried:?}");
}

#[tokio::test]
async fn postgres_refusal_is_the_servers_own_error() {
    let mut url = Url::parse(&server_var("DATABASE_URL")).unwrap();
    url.set_path("/no_such_database");
    let c = split_credentials("postgres", url.as_str());
    let message = refused(try_it(&c).await);
    assert!(
        message.contains("database \"no_such_database\" does not exist"),
        "{message}"
    );
}

#[tokio::test]
async fn mysql_signs_in_to_mariadb_and_answers_its_version() {
    let c = split_credentials("mysql", &server_var("QD_TEST_MARIADB_URL"));
    let tried = try_it(&c).await.unwrap();
    assert!(tried.message.contains("MariaDB"), "{tried:?}");
    assert!(
        tried.message.contains("signed in as quarterdeck@"),
        "{tried:?}"
    );
}

#[tokio::test]
async fn mysql_wrong_password_is_refused_with_the_servers_words() {
    let mut c = split_credentials("mysql", &server_var("QD_TEST_MARIADB_URL"));
    c.password = Some("not-the-password".into());
    let message = refused(try_it(&c).await);
    assert!(message.contains("Access denied for user"), "{message}");
    assert!(!message.contains("not-the-password"), "{message}");
}

fn redis() -> quarterdeck_connections::Resolved {
    let mut c = connection("redis", &server_var("QD_TEST_REDIS_URL"));
    c.username = Some(server_var("QD_TEST_REDIS_USERNAME"));
    c.password = Some(server_var("QD_TEST_REDIS_PASSWORD"));
    c.properties.insert("db".into(), "3".into());
    c
}

#[tokio::test]
async fn redis_signs_in_selects_the_db_and_answers_its_version() {
    let tried = try_it(&redis()).await.unwrap();
    assert!(tried.message.starts_with("PONG from Redis "), "{tried:?}");
    assert!(
        tried.message.contains(", db 3; signed in as quarterdeck"),
        "{tried:?}"
    );
}

#[tokio::test]
async fn redis_wrong_password_is_refused_with_the_servers_words() {
    let mut c = redis();
    c.password = Some("not-the-password".into());
    let message = refused(try_it(&c).await);
    assert!(message.starts_with("redis AUTH: WRONGPASS"), "{message}");
    assert!(!message.contains("not-the-password"), "{message}");
}

fn prometheus() -> quarterdeck_connections::Resolved {
    let mut c = connection("prometheus", &server_var("QD_TEST_PROMETHEUS_URL"));
    c.username = Some(server_var("QD_TEST_PROMETHEUS_USERNAME"));
    c.password = Some(server_var("QD_TEST_PROMETHEUS_PASSWORD"));
    c
}

#[tokio::test]
async fn prometheus_answers_its_build_version() {
    let tried = try_it(&prometheus()).await.unwrap();
    assert!(tried.message.starts_with("Prometheus 2."), "{tried:?}");
}

#[tokio::test]
async fn prometheus_wrong_password_is_refused_with_the_status() {
    let mut c = prometheus();
    c.password = Some("not-the-password".into());
    let message = refused(try_it(&c).await);
    assert!(message.starts_with("HTTP 401 Unauthorized"), "{message}");
}

#[tokio::test]
async fn git_lists_the_refs_and_finds_main() {
    let c = connection("git", &server_var("QD_TEST_GIT_URL"));
    let tried = try_it(&c).await.unwrap();
    // HEAD, refs/heads/main and refs/tags/v1.
    assert!(
        tried.message.starts_with("3 refs; refs/heads/main is at "),
        "{tried:?}"
    );
}

#[tokio::test]
async fn git_finds_a_tag_and_refuses_a_missing_ref_by_name() {
    let mut c = connection("git", &server_var("QD_TEST_GIT_URL"));
    c.properties.insert("ref".into(), "v1".into());
    let tried = try_it(&c).await.unwrap();
    assert!(tried.message.contains("refs/tags/v1 is at"), "{tried:?}");
    c.properties.insert("ref".into(), "release".into());
    let message = refused(try_it(&c).await);
    assert_eq!(
        message,
        "ref release not found among the repository's 3 refs"
    );
}

#[tokio::test]
async fn git_missing_repository_is_refused_with_gits_words() {
    let url = server_var("QD_TEST_GIT_URL").replace("repo.git", "nothing.git");
    let message = refused(try_it(&connection("git", &url)).await);
    assert!(message.contains("fatal:"), "{message}");
}
