use axum::Router;

use crate::AppState;

pub(crate) mod about;
pub(crate) mod auth;
pub(crate) mod canary;
pub(crate) mod db;
pub(crate) mod integrations;
pub(crate) mod kubeconfig;
mod kubeproxy;
pub mod login;
pub(crate) mod people;
pub(crate) mod settings;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(about::router())
        .merge(auth::router())
        .merge(login::router())
        .merge(people::router())
        .merge(db::router())
        .merge(canary::router())
        .merge(integrations::router())
        .merge(kubeconfig::router())
        .merge(kubeproxy::router())
        .merge(settings::router())
        .route(
            "/api/openapi.json",
            axum::routing::get(crate::openapi::openapi_json),
        )
}
