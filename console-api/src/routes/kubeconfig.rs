use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use quarterdeck_store::tokens;
use serde_json::json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{Caller, Via};
use crate::error::ErrorBody;
use crate::kube_proxy::RESOURCE;
use crate::rbac::Action;
use crate::{ApiError, AppState};

/// The name the kubeconfig is saved under; the console's instructions use it.
pub const FILE_NAME: &str = "quarterdeck-kubeconfig.yaml";

pub fn router() -> OpenApiRouter<AppState> {
    // Every other method is refused with a 405 naming POST; the refusal is not an operation of
    // the document.
    OpenApiRouter::new().routes(routes!(kubeconfig)).route(
        "/api/kubeconfig",
        axum::routing::MethodRouter::new().fallback(refuse_other),
    )
}

/// Issuing a kubeconfig creates an access token, which a plain GET (a link,
/// an image, a prefetch) must not do.
#[tracing::instrument]
pub(crate) async fn refuse_other() -> ApiError {
    ApiError::MethodNotAllowed {
        message: "use POST /api/kubeconfig: a kubeconfig carries a new access token".into(),
        allow: "POST",
    }
}

/// A kubeconfig for the cluster behind `/kubeproxy`, carrying a fresh access
/// token of the caller that expires after `--kubeconfig-token-lifetime`.
#[utoipa::path(post, path = "/api/kubeconfig", tag = "auth",
    responses(
        (status = 200, description = "kubeconfig YAML, as an attachment", content_type = "application/yaml", body = String),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn kubeconfig(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<impl IntoResponse, ApiError> {
    caller.require(RESOURCE, Action::Create)?;
    // A token cannot mint tokens: it could outlive its own revocation.
    if caller.via == Via::Token {
        return Err(ApiError::forbidden(
            "access tokens cannot download a kubeconfig",
        ));
    }
    let name = format!(
        "kubeconfig {}",
        chrono::Utc::now().format("%Y-%m-%d %H:%M:%S%.3f")
    );
    let lifetime = Some(state.auth.kubeconfig_token_lifetime);
    let token = tokens::create(&state.db, caller.person.id, &name, lifetime, false, None).await?;
    let yaml = render(&state.auth.public_url, &token.token)
        .map_err(|e| ApiError::Internal(format!("kubeconfig: {e}")))?;
    tracing::info!(person = %caller.person.id, token = %token.id, "kubeconfig issued");
    Ok((
        [
            (header::CONTENT_TYPE, "application/yaml".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{FILE_NAME}\""),
            ),
            (header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        yaml,
    ))
}

fn render(public_url: &str, token: &str) -> Result<String, quarterdeck_crds::yaml::Error> {
    let server = format!("{}/kubeproxy", public_url.trim_end_matches('/'));
    quarterdeck_crds::yaml::to_string(&json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "quarterdeck", "cluster": {"server": server}}],
        "users": [{"name": "quarterdeck", "user": {"token": token}}],
        "contexts": [{"name": "quarterdeck", "context": {"cluster": "quarterdeck", "user": "quarterdeck"}}],
        "current-context": "quarterdeck",
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn points_at_the_proxy_with_the_token() {
        let yaml = super::render("https://qd.example.com/", "qdt_abc").expect("render");
        let config: kube::config::Kubeconfig = yaml_serde::from_str(&yaml).expect("parse");
        assert_eq!(config.current_context.as_deref(), Some("quarterdeck"));
        let cluster = config.clusters[0].cluster.as_ref().expect("cluster");
        assert_eq!(
            cluster.server.as_deref(),
            Some("https://qd.example.com/kubeproxy")
        );
        let raw: serde_json::Value = yaml_serde::from_str(&yaml).expect("parse");
        assert_eq!(raw["users"][0]["user"]["token"], "qdt_abc");
    }

    #[test]
    fn reads_alike_under_yaml11() {
        let files: Vec<_> = [
            ("https://on:443/", "yes"),
            ("http://127.0.0.1:8080", "0777"),
        ]
        .iter()
        .enumerate()
        .map(|(i, (url, token))| {
            let yaml = super::render(url, token).expect("render");
            let raw: serde_json::Value = yaml_serde::from_str(&yaml).expect("parse");
            assert_eq!(raw["users"][0]["user"]["token"], *token, "{yaml}");
            (format!("kubeconfig-{i}"), yaml)
        })
        .collect();
        crate::yaml11_check::assert_reads_alike(&files);
    }
}
