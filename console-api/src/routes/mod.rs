use axum::Router;

use crate::AppState;

pub(crate) mod about;
pub(crate) mod auth;
pub mod login;
pub(crate) mod people;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(about::router())
        .merge(auth::router())
        .merge(login::router())
        .merge(people::router())
        .route(
            "/api/openapi.json",
            axum::routing::get(crate::openapi::openapi_json),
        )
}
