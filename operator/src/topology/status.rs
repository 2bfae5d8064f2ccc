//! `status.status` and `status.persistentID` of a Kubernetes Topology,
//! written after each run under a field manager of their own, so the
//! controller's conditions stay.

use kube::api::{Patch, PatchParams};
use kube::{Api, Client, Resource};
use quarterdeck_crds::Topology;
use quarterdeck_store::topology_runs::DueTopology;
use serde_json::{Value, json};

use super::record::Report;

/// Field manager of the run's status fields.
pub const MANAGER: &str = "quarterdeck-topology-status";

/// The status fields a report gives: the root component's status and id, or
/// `error` when nothing was written (the job history has the reason).
pub fn fields(report: &Report) -> Value {
    match &report.root {
        Some((id, status)) if report.error.is_none() => {
            json!({"status": status, "persistentID": id.to_string()})
        }
        _ => json!({"status": "error"}),
    }
}

/// Applies the status; a failure is logged (the next run writes it again).
pub async fn write(client: &Client, topology: &DueTopology, report: &Report) {
    let api = Api::<Topology>::namespaced(client.clone(), &topology.namespace);
    let patch = json!({
        "apiVersion": Topology::api_version(&()),
        "kind": Topology::kind(&()),
        "status": fields(report),
    });
    if let Err(e) = api
        .patch_status(
            &topology.name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(&patch),
        )
        .await
    {
        tracing::warn!(error = %e, "writing the Topology's status failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn the_root_s_status_and_id_or_error() {
        let id = Uuid::from_u128(5);
        let ok = Report {
            root: Some((id, "warning".into())),
            ..Report::default()
        };
        assert_eq!(
            fields(&ok),
            json!({"status": "warning", "persistentID": id.to_string()})
        );
        let failed = Report {
            error: Some("timeout".into()),
            ..ok
        };
        assert_eq!(fields(&failed), json!({"status": "error"}));
    }
}
