//! The smb connection test against a live Samba (hack/lib/servers/samba.sh,
//! started by hack/test.sh or hack/with-servers.sh).

mod common;

use common::{connection, server_var, try_it};
use quarterdeck_connections::Resolved;
use quarterdeck_connections::probe::ProbeError;

fn samba(password: &str, share: &str) -> Resolved {
    let mut c = connection("smb", &server_var("QD_TEST_SAMBA_HOST"));
    c.username = Some(server_var("QD_TEST_SAMBA_USER"));
    c.password = Some(password.to_owned());
    c.properties
        .insert("port".into(), server_var("QD_TEST_SAMBA_PORT"));
    c.properties.insert("share".into(), share.to_owned());
    c
}

fn refusal(result: Result<quarterdeck_connections::probe::Tried, ProbeError>) -> String {
    match result {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn smb_signs_in_and_connects_to_the_share() {
    let c = samba(
        &server_var("QD_TEST_SAMBA_PASSWORD"),
        &server_var("QD_TEST_SAMBA_SHARE"),
    );
    let tried = try_it(&c).await.unwrap();
    let user = server_var("QD_TEST_SAMBA_USER");
    assert!(
        tried.message.contains("over SMB 2.1 (messages signed)"),
        "{}",
        tried.message
    );
    assert!(
        tried.message.contains(&format!("as {user}")),
        "{}",
        tried.message
    );
    assert!(
        tried
            .message
            .contains("connected to share \\\\127.0.0.1\\qd (disk)"),
        "{}",
        tried.message
    );
}

#[tokio::test]
async fn smb_accepts_a_domain_and_an_smb_url() {
    let mut c = samba(&server_var("QD_TEST_SAMBA_PASSWORD"), "");
    c.properties.remove("share");
    c.url = Some(format!(
        "smb://{}:{}/{}",
        server_var("QD_TEST_SAMBA_HOST"),
        server_var("QD_TEST_SAMBA_PORT"),
        server_var("QD_TEST_SAMBA_SHARE")
    ));
    c.properties.remove("port");
    c.username = Some(format!("QUARTERDECK\\{}", server_var("QD_TEST_SAMBA_USER")));
    let tried = try_it(&c).await.unwrap();
    assert!(
        tried.message.contains("as QUARTERDECK\\qd-smb"),
        "{}",
        tried.message
    );
}

#[tokio::test]
async fn smb_wrong_password_is_status_logon_failure_and_never_shown() {
    let message = refusal(try_it(&samba("not-the-password-1234", "qd")).await);
    assert!(message.contains("STATUS_LOGON_FAILURE"), "{message}");
    assert!(message.contains("signing in to 127.0.0.1:"), "{message}");
    assert!(!message.contains("not-the-password-1234"), "{message}");
}

#[tokio::test]
async fn smb_unknown_share_is_status_bad_network_name() {
    let c = samba(&server_var("QD_TEST_SAMBA_PASSWORD"), "no-such-share");
    let message = refusal(try_it(&c).await);
    assert!(message.contains("STATUS_BAD_NETWORK_NAME"), "{message}");
    assert!(
        message.contains("\\\\127.0.0.1\\no-such-share"),
        "{message}"
    );
}

#[tokio::test]
async fn smb_closed_port_names_the_connect_step() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut c = connection("smb", &format!("127.0.0.1:{port}"));
    c.username = Some("someone".into());
    c.password = Some("secret-value-5678".into());
    c.properties.insert("share".into(), "qd".into());
    let message = refusal(try_it(&c).await);
    assert!(
        message.starts_with(&format!("connecting to 127.0.0.1:{port}: ")),
        "{message}"
    );
    assert!(!message.contains("secret-value-5678"), "{message}");
}
