//! Access tokens: life cycle, both ways of presenting them, scopes, revocation.

mod common;

use common::Api;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";

async fn create(api: &Api, client: &reqwest::Client, body: Value) -> (StatusCode, Value) {
    let res = client
        .post(api.at("/api/auth/create_token"))
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status(), res.json().await.unwrap())
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn token_life_cycle(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("ada@example.com", &["admin"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;

    let (status, body) = create(&api, &client, json!({"name": "  ", "expiry": "30d"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (body["message"].as_str(), body["field"].as_str()),
        (Some("Name is required"), Some("name"))
    );

    let (status, body) = create(
        &api,
        &client,
        json!({"name": "ci", "expiry": "30d", "autoRenew": false}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let token = body["payload"]["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("qdt_"));
    let (status, _) = create(&api, &client, json!({"name": "ci"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "names are unique per person");

    // Listed without its value; stored only as a digest.
    let list: Value = client
        .get(api.at("/api/auth/tokens"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert!(!list.to_string().contains(&token));
    let stored: String = sqlx::query_scalar("SELECT value FROM access_tokens")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_ne!(stored, token);

    // Bearer and Basic with user `token` both work.
    assert_eq!(api.whoami_bearer(&token).await, StatusCode::OK);
    let basic = reqwest::Client::new()
        .get(api.at("/api/auth/whoami"))
        .basic_auth("token", Some(&token))
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status(), StatusCode::OK);
    // A token cannot mint tokens.
    let res = reqwest::Client::new()
        .post(api.at("/api/auth/create_token"))
        .bearer_auth(&token)
        .json(&json!({"name": "child"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    // Revocation takes effect at once.
    let id = list[0]["id"].as_str().unwrap();
    assert_eq!(
        api.status(
            &client,
            Method::DELETE,
            &format!("/api/auth/token/{id}"),
            None
        )
        .await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(api.whoami_bearer(&token).await, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_scope_limits_a_token_to_what_it_lists(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["admin"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    let (_, body) = create(&api, &client, json!({"name": "read-canaries", "scope": [{"subject": "ada@example.com", "object": "canaries", "action": "read"}]})).await;
    let token = body["payload"]["token"].as_str().unwrap().to_owned();
    assert_eq!(api.whoami_bearer(&token).await, StatusCode::OK);
    let res = reqwest::Client::new()
        .get(api.at("/api/people_roles"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::FORBIDDEN,
        "the admin's token is not an admin"
    );
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        (body["resource"].as_str(), body["action"].as_str()),
        (Some("identities"), Some("read"))
    );

    let (status, _) = create(
        &api,
        &client,
        json!({"name": "bad", "scope": [{"object": "everything", "action": "read"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_token_never_does_more_than_its_creator(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let viewer = api.person("vic@example.com", &["viewer"], PASSWORD).await;
    let client = api.signed_in("vic@example.com", PASSWORD).await;
    let (_, body) = create(
        &api,
        &client,
        json!({"name": "all", "scope": [{"object": "catalog", "action": "*"}]}),
    )
    .await;
    let token = body["payload"]["token"].as_str().unwrap().to_owned();
    let res = reqwest::Client::new()
        .post(api.at("/api/auth/invite_user"))
        .bearer_auth(&token)
        .json(
            &json!({"firstName": "E", "lastName": "V", "email": "e@example.com", "role": "admin"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    // A creator who loses access takes their tokens' access with them.
    sqlx::query("UPDATE people SET deleted_at = now() WHERE id = $1")
        .bind(viewer)
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(api.whoami_bearer(&token).await, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn expiry_and_auto_renew(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    let (_, body) = create(
        &api,
        &client,
        json!({"name": "renews", "expiry": "1h", "autoRenew": true}),
    )
    .await;
    let renews = body["payload"]["token"].as_str().unwrap().to_owned();
    let (_, body) = create(&api, &client, json!({"name": "expires", "expiry": "1h"})).await;
    let expires = body["payload"]["token"].as_str().unwrap().to_owned();

    // Ten minutes before expiry and unused for a while: use renews the one, not the other.
    sqlx::query("UPDATE access_tokens SET expires_at = now() + interval '10 minutes', last_used_at = now() - interval '1 hour'")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(api.whoami_bearer(&renews).await, StatusCode::OK);
    assert_eq!(api.whoami_bearer(&expires).await, StatusCode::OK);
    let left: Vec<(String, f64)> = sqlx::query_as(
        "SELECT name, extract(epoch FROM expires_at - now())::float8 FROM access_tokens ORDER BY name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(left[0].1 < 700.0, "expires: {left:?}");
    assert!(left[1].1 > 3000.0, "renews: {left:?}");

    // Shortened by another writer: the announcement reaches the cache.
    sqlx::query(
        "UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE name = 'expires'",
    )
    .execute(&pool)
    .await
    .unwrap();
    refused_once_announced(&api, &expires).await;
}

/// Waits (at most 10 s) until the token is refused: a change made outside
/// this API process reaches it through the database's announcement.
async fn refused_once_announced(api: &Api, token: &str) {
    for _ in 0..200 {
        if api.whoami_bearer(token).await == StatusCode::UNAUTHORIZED {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the token is still accepted 10 s after the change");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_remembered_token_is_refused_once_revoked_anywhere(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    let ada = api.signed_in("ada@example.com", PASSWORD).await;
    let mut tokens = Vec::new();
    for name in ["api", "elsewhere", "person", "rule"] {
        let (_, body) = create(&api, &ada, json!({"name": name})).await;
        tokens.push((
            body["payload"]["id"].as_str().unwrap().to_owned(),
            body["payload"]["token"].as_str().unwrap().to_owned(),
        ));
    }
    // Used twice each: the second answer comes from the cache once it listens.
    for _ in 0..2 {
        for (_, token) in &tokens {
            assert_eq!(api.whoami_bearer(token).await, StatusCode::OK);
        }
    }

    // Revoked through the API: refused by the very next request.
    assert_eq!(
        api.status(
            &ada,
            Method::DELETE,
            &format!("/api/auth/token/{}", tokens[0].0),
            None
        )
        .await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        api.whoami_bearer(&tokens[0].1).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(api.whoami_bearer(&tokens[1].1).await, StatusCode::OK);

    // Revoked by another replica or by hand in the database.
    sqlx::query("UPDATE access_tokens SET revoked_at = now() WHERE name = 'elsewhere'")
        .execute(&pool)
        .await
        .unwrap();
    refused_once_announced(&api, &tokens[1].1).await;

    // A rule that ends: the cached answer holds only until it does.
    let rights = |token: String| {
        let api = &api;
        async move {
            let (_, body) = api.whoami_bearer_body(&token).await;
            body["payload"]["rights"]["canaries"]
                .as_array()
                .unwrap()
                .contains(&json!("read"))
        }
    };
    assert!(rights(tokens[3].1.clone()).await);
    sqlx::query(
        "INSERT INTO permissions (subject_type, person_id, object, action, deny, until) \
         SELECT 'person', id, 'canaries', 'read', true, now() + interval '2 seconds' FROM people WHERE email = 'ada@example.com'",
    )
    .execute(&pool)
    .await
    .unwrap();
    let mut denied = false;
    for _ in 0..200 {
        if !rights(tokens[3].1.clone()).await {
            denied = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(denied, "the new rule reached the cache");
    let mut lapsed = false;
    for _ in 0..200 {
        if rights(tokens[3].1.clone()).await {
            lapsed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(lapsed, "the rule's end reached the cache");

    // The person goes: every token of theirs goes with them.
    sqlx::query("UPDATE people SET deleted_at = now() WHERE email = 'ada@example.com'")
        .execute(&pool)
        .await
        .unwrap();
    refused_once_announced(&api, &tokens[2].1).await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn only_the_creator_or_an_admin_revokes(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    api.person("bob@example.com", &["editor"], PASSWORD).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    let ada = api.signed_in("ada@example.com", PASSWORD).await;
    let bob = api.signed_in("bob@example.com", PASSWORD).await;
    let root = api.signed_in("root@example.com", PASSWORD).await;
    let (_, body) = create(&api, &ada, json!({"name": "mine"})).await;
    let id = body["payload"]["id"].as_str().unwrap().to_owned();
    let bobs: Value = bob
        .get(api.at("/api/auth/tokens"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(bobs, json!([]), "others' tokens are not listed");
    assert_eq!(
        api.status(&bob, Method::DELETE, &format!("/api/auth/token/{id}"), None)
            .await,
        StatusCode::NOT_FOUND
    );
    let all: Value = root
        .get(api.at("/api/auth/tokens"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(all.as_array().unwrap().len(), 1);
    assert_eq!(
        api.status(
            &root,
            Method::DELETE,
            &format!("/api/auth/token/{id}"),
            None
        )
        .await,
        StatusCode::NO_CONTENT
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn basic_passwords_can_be_switched_off(pool: PgPool) {
    let settings = quarterdeck_api::AuthSettings {
        basic_auth_passwords: false,
        ..Default::default()
    };
    let api = Api::start_with(pool, settings).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    let res = reqwest::Client::new()
        .get(api.at("/api/auth/whoami"))
        .basic_auth("ada@example.com", Some(PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    assert_eq!(
        api.status(&client, Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::OK
    );
}
