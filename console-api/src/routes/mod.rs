use axum::Router;

use crate::AppState;

mod about;
mod auth;

pub fn router() -> Router<AppState> {
    Router::new().merge(about::router()).merge(auth::router())
}
