//! `kubernetes`: asks the API server for its version, through the kubeconfig
//! in `certificate` or, without one, this process's own cluster.

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let (client, server) = match c.certificate.as_deref().filter(|k| !k.trim().is_empty()) {
        Some(yaml) => {
            let kubeconfig = Kubeconfig::from_yaml(yaml).map_err(|e| invalid(&e))?;
            let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .map_err(|e| invalid(&e))?;
            let server = config.cluster_url.to_string();
            (Client::try_from(config).map_err(|e| invalid(&e))?, server)
        }
        None => {
            let client = ctx.kube.clone().ok_or_else(|| {
                ProbeError::refused(
                    "no kubeconfig given, and this process has no Kubernetes cluster of its own",
                )
            })?;
            (client, "this process's cluster".to_owned())
        }
    };
    let info = within(
        ctx.timeout,
        format!("asking {server} for its version"),
        async {
            client
                .apiserver_version()
                .await
                .map_err(ProbeError::refused)
        },
    )
    .await?;
    Ok(Tried::new(format!(
        "Kubernetes {} at {server}",
        info.git_version
    )))
}

fn invalid(e: &dyn std::fmt::Display) -> ProbeError {
    ProbeError::Invalid {
        field: "certificate",
        message: format!("not a usable kubeconfig: {e}"),
    }
}
