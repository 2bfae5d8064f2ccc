//! Who the caller is.

use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::AppState;
use crate::auth::Authenticated;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/auth/whoami", get(whoami))
}

async fn whoami(Authenticated(person): Authenticated) -> Json<Value> {
    let roles = person.roles.clone();
    Json(json!({
        "message": "success",
        "payload": { "user": person, "roles": roles, "permissions": [] }
    }))
}
