use axum::Router;

use crate::AppState;

mod about;
mod auth;
pub mod login;
mod people;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(about::router())
        .merge(auth::router())
        .merge(login::router())
        .merge(people::router())
}
