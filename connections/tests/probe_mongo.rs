//! The mongo connection test against FerretDB (a MongoDB wire-protocol
//! server with SCRAM-SHA-256) that hack/lib/servers/mongo.sh starts.

mod common;

use common::{connection, server_var, try_it};
use quarterdeck_connections::probe::ProbeError;

fn refused(result: Result<quarterdeck_connections::probe::Tried, ProbeError>) -> String {
    match result {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn mongo() -> quarterdeck_connections::Resolved {
    let mut c = connection("mongo", &server_var("QD_TEST_MONGO_URL"));
    c.username = Some(server_var("QD_TEST_MONGO_USERNAME"));
    c.password = Some(server_var("QD_TEST_MONGO_PASSWORD"));
    c
}

#[tokio::test]
async fn mongo_signs_in_with_scram_and_answers_its_version() {
    let tried = try_it(&mongo()).await.unwrap();
    assert!(
        tried.message.contains("signed in as quarterdeck"),
        "{tried:?}"
    );
    assert!(tried.message.contains("version "), "{tried:?}");
}

#[tokio::test]
async fn mongo_wrong_password_is_refused_with_the_servers_words() {
    let mut c = mongo();
    c.password = Some("not-the-password".into());
    let message = refused(try_it(&c).await);
    assert!(message.contains("Authentication failed"), "{message}");
    assert!(!message.contains("not-the-password"), "{message}");
}
