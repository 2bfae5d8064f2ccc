//! "Scrape now": asks the operator's scrape engine to run a ScrapeConfig at once.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use quarterdeck_store::{catalog, scheduled};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::Path;
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(scrape_now))
}

/// A scrape was asked for.
#[derive(Debug, Serialize, ToSchema)]
pub struct Queued {
    queued: bool,
}

/// Runs a scraper now: the engine claims it within a second; its job history
/// row tells how it went.
#[utoipa::path(post, path = "/api/scrapers/{id}/run", tag = "catalog",
    params(("id" = Uuid, Path, description = "The scraper id")),
    responses(
        (status = 202, body = Queued),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 503, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, scraper = %id))]
pub(crate) async fn scrape_now(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<(StatusCode, Json<Queued>), ApiError> {
    caller.require(Resource::ConfigScrapers, Action::Update)?;
    if !scheduled::request_run(&state.db, catalog::SCHEDULED, id).await? {
        return Err(ApiError::NotFound(format!("no scraper {id}")));
    }
    Ok((StatusCode::ACCEPTED, Json(Queued { queued: true })))
}
