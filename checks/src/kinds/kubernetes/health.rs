//! Whether one resource is healthy: Ready and Available conditions true, pods
//! running (or succeeded) with every container ready.

use serde_json::Value;

pub(super) struct Assess {
    /// Pod phase and `Available` conditions.
    pub healthy: bool,
    /// Container readiness and `Ready` conditions.
    pub ready: bool,
}

impl Assess {
    /// Why the object is unhealthy, or `None` when it is fine.
    pub(super) fn problem(&self, kind: &str, object: &Value) -> Option<String> {
        let status = object.get("status");
        if kind == "Pod"
            && let Some(problem) = self.pod(status)
        {
            return Some(problem);
        }
        let conditions = status
            .and_then(|s| s.get("conditions"))
            .and_then(Value::as_array)?;
        for condition in conditions {
            let text = |f: &str| condition.get(f).and_then(Value::as_str).unwrap_or("");
            let wanted = match text("type") {
                "Ready" => self.ready,
                "Available" => self.healthy,
                _ => false,
            };
            if wanted && text("status") != "True" {
                // A finished pod is no longer Ready, and need not be.
                if kind == "Pod" && phase(status) == Some("Succeeded") {
                    continue;
                }
                let detail = [text("reason"), text("message")]
                    .into_iter()
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
                    .join(": ");
                let mut problem = format!("{} is {}", text("type"), text("status"));
                if !detail.is_empty() {
                    problem.push_str(&format!(" ({detail})"));
                }
                return Some(problem);
            }
        }
        None
    }

    fn pod(&self, status: Option<&Value>) -> Option<String> {
        let phase = phase(status).unwrap_or("Unknown");
        if self.healthy && !matches!(phase, "Running" | "Succeeded") {
            return Some(format!("phase is {phase}"));
        }
        if self.ready && phase == "Running" {
            let containers = status
                .and_then(|s| s.get("containerStatuses"))
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            if containers.is_empty() {
                return Some("no container status reported".into());
            }
            for container in containers {
                if container.get("ready").and_then(Value::as_bool) != Some(true) {
                    let name = container.get("name").and_then(Value::as_str).unwrap_or("?");
                    let waiting = container
                        .pointer("/state/waiting/reason")
                        .and_then(Value::as_str)
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default();
                    return Some(format!("container {name} is not ready{waiting}"));
                }
            }
        }
        None
    }
}

fn phase(status: Option<&Value>) -> Option<&str> {
    status.and_then(|s| s.get("phase")).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BOTH: Assess = Assess {
        healthy: true,
        ready: true,
    };

    #[test]
    fn running_pod_with_ready_containers_is_healthy() {
        let pod = json!({"status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "app", "ready": true}]}});
        assert_eq!(BOTH.problem("Pod", &pod), None);
    }

    #[test]
    fn unready_container_and_pending_phase_are_reported() {
        let pod = json!({"status": {"phase": "Running",
            "containerStatuses": [{"name": "app", "ready": false,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        assert_eq!(
            BOTH.problem("Pod", &pod).as_deref(),
            Some("container app is not ready (CrashLoopBackOff)")
        );
        let pending = json!({"status": {"phase": "Pending"}});
        assert_eq!(
            BOTH.problem("Pod", &pending).as_deref(),
            Some("phase is Pending")
        );
        let lenient = Assess {
            healthy: false,
            ready: false,
        };
        assert_eq!(lenient.problem("Pod", &pending), None);
    }

    #[test]
    fn conditions_of_other_kinds() {
        let deployment = json!({"status": {"conditions": [
            {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"}]}});
        assert_eq!(
            BOTH.problem("Deployment", &deployment).as_deref(),
            Some("Available is False (MinimumReplicasUnavailable)")
        );
        assert_eq!(BOTH.problem("ConfigMap", &json!({"data": {}})), None);
    }
}
