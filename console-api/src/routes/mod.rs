//! The console API's routes. Each module's router registers its handlers
//! with `routes!`, so a route and its entry in the OpenAPI document are one
//! list.

use axum::Router;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::openapi::{self, Info};

pub(crate) mod about;
pub(crate) mod auth;
pub(crate) mod canary;
pub(crate) mod catalog;
pub(crate) mod connections;
pub(crate) mod db;
pub(crate) mod flow;
pub(crate) mod integrations;
pub(crate) mod kubeconfig;
mod kubeproxy;
pub mod login;
pub(crate) mod notifications;
pub(crate) mod people;
pub(crate) mod playbooks;
pub(crate) mod profile;
pub(crate) mod resources;
pub(crate) mod scrapers;
pub(crate) mod second_factor;
pub(crate) mod self_service;
pub(crate) mod settings;
pub(crate) mod sso;
pub(crate) mod topology;
pub(crate) mod webauthn;

/// Every route with its document.
pub(crate) fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(Info::openapi())
        .merge(about::router())
        .merge(auth::router())
        .merge(login::router())
        .merge(people::router())
        .merge(playbooks::router())
        .merge(profile::router())
        .merge(db::router())
        .merge(canary::router())
        .merge(catalog::router())
        .merge(connections::router())
        .merge(integrations::router())
        .merge(kubeconfig::router())
        .merge(kubeproxy::router())
        .merge(notifications::router())
        .merge(resources::router())
        .merge(scrapers::router())
        .merge(second_factor::router())
        .merge(self_service::router())
        .merge(settings::router())
        .merge(sso::router())
        .merge(topology::router())
        .merge(webauthn::router())
        .merge(crate::mcp::router())
        .routes(routes!(openapi::openapi_json))
}

pub fn router() -> Router<AppState> {
    api().split_for_parts().0
}
