//! Health, status and readiness from an object's `status`, by the common
//! Kubernetes rules. Kinds without rules are `unknown` when they have a
//! status (or a `Ready` condition decides), and have no health when they have
//! none (a ConfigMap).

use serde_json::Value;

use crate::model::Health;

/// Container waiting reasons that mean the pod will not come up by itself.
const FAILING: [&str; 7] = [
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "InvalidImageName",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Assessed {
    pub health: Option<Health>,
    pub status: Option<String>,
    pub ready: Option<bool>,
}

fn assessed(health: Health, status: &str, ready: bool) -> Assessed {
    Assessed {
        health: Some(health),
        status: Some(status.to_owned()),
        ready: Some(ready),
    }
}

pub(super) fn assess(kind: &str, object: &Value) -> Assessed {
    let status = object.get("status").unwrap_or(&Value::Null);
    if object.pointer("/metadata/deletionTimestamp").is_some() {
        return assessed(Health::Warning, "Terminating", false);
    }
    match kind {
        "Deployment" => deployment(object, status),
        "ReplicaSet" | "StatefulSet" => replicas(object, status, "readyReplicas"),
        "DaemonSet" => daemon_set(status),
        "Pod" => pod(status),
        "PersistentVolumeClaim" => match text(status, "phase") {
            "Bound" => assessed(Health::Healthy, "Bound", true),
            "Lost" => assessed(Health::Unhealthy, "Lost", false),
            "" => assessed(Health::Unknown, "Unknown", false),
            phase => assessed(Health::Warning, phase, false),
        },
        "Node" => node(object, status),
        "Job" => job(status),
        "Service" => assessed(Health::Healthy, "Active", true),
        "Namespace" => match text(status, "phase") {
            "Active" => assessed(Health::Healthy, "Active", true),
            "" => assessed(Health::Unknown, "Unknown", false),
            phase => assessed(Health::Warning, phase, false),
        },
        _ => other(status),
    }
}

fn deployment(object: &Value, status: &Value) -> Assessed {
    let desired = number(object.pointer("/spec/replicas")).unwrap_or(1);
    let available = number(status.get("availableReplicas")).unwrap_or(0);
    let updated = number(status.get("updatedReplicas")).unwrap_or(0);
    if let Some(progressing) = condition(status, "Progressing")
        && text(progressing, "status") == "False"
    {
        return assessed(
            Health::Unhealthy,
            reason(progressing, "ProgressDeadlineExceeded"),
            false,
        );
    }
    if desired == 0 {
        return assessed(Health::Healthy, "Scaled to Zero", true);
    }
    if let Some(condition) = condition(status, "Available")
        && text(condition, "status") == "False"
    {
        let health = if available == 0 {
            Health::Unhealthy
        } else {
            Health::Warning
        };
        return assessed(health, reason(condition, "Unavailable"), false);
    }
    if updated < desired {
        return assessed(Health::Warning, "Rolling Out", available >= desired);
    }
    if available < desired {
        let health = if available == 0 {
            Health::Unhealthy
        } else {
            Health::Warning
        };
        return assessed(health, &format!("{available}/{desired} available"), false);
    }
    assessed(Health::Healthy, "Running", true)
}

fn replicas(object: &Value, status: &Value, ready_field: &str) -> Assessed {
    let desired = number(object.pointer("/spec/replicas")).unwrap_or(1);
    let ready = number(status.get(ready_field)).unwrap_or(0);
    counted(desired, ready)
}

fn daemon_set(status: &Value) -> Assessed {
    let desired = number(status.get("desiredNumberScheduled")).unwrap_or(0);
    let ready = number(status.get("numberReady")).unwrap_or(0);
    counted(desired, ready)
}

fn counted(desired: i64, ready: i64) -> Assessed {
    match (desired, ready) {
        (0, _) => assessed(Health::Healthy, "Scaled to Zero", true),
        (d, r) if r >= d => assessed(Health::Healthy, "Running", true),
        (d, 0) => assessed(Health::Unhealthy, &format!("0/{d} ready"), false),
        (d, r) => assessed(Health::Warning, &format!("{r}/{d} ready"), false),
    }
}

fn pod(status: &Value) -> Assessed {
    let containers = ["initContainerStatuses", "containerStatuses"]
        .into_iter()
        .filter_map(|f| status.get(f).and_then(Value::as_array))
        .flatten();
    for container in containers.clone() {
        let waiting = container
            .pointer("/state/waiting/reason")
            .and_then(Value::as_str)
            .unwrap_or("");
        if FAILING.contains(&waiting) {
            return assessed(Health::Unhealthy, waiting, false);
        }
        let terminated = container
            .pointer("/state/terminated/reason")
            .and_then(Value::as_str)
            .unwrap_or("");
        if terminated == "OOMKilled" {
            return assessed(Health::Unhealthy, terminated, false);
        }
    }
    match text(status, "phase") {
        "Succeeded" => assessed(Health::Healthy, "Completed", false),
        "Failed" => {
            let why = text(status, "reason");
            assessed(
                Health::Unhealthy,
                if why.is_empty() { "Failed" } else { why },
                false,
            )
        }
        "Running" => {
            let all_ready = containers
                .filter(|c| c.get("ready").is_some())
                .all(|c| c.get("ready").and_then(Value::as_bool) == Some(true));
            if all_ready {
                assessed(Health::Healthy, "Running", true)
            } else {
                assessed(Health::Warning, "Not Ready", false)
            }
        }
        "Pending" => assessed(Health::Unknown, "Pending", false),
        _ => assessed(Health::Unknown, "Unknown", false),
    }
}

fn node(object: &Value, status: &Value) -> Assessed {
    let Some(ready) = condition(status, "Ready") else {
        return assessed(Health::Unknown, "Unknown", false);
    };
    match text(ready, "status") {
        "True" => {}
        "False" => return assessed(Health::Unhealthy, "NotReady", false),
        _ => return assessed(Health::Unknown, "Unknown", false),
    }
    for pressure in [
        "MemoryPressure",
        "DiskPressure",
        "PIDPressure",
        "NetworkUnavailable",
    ] {
        if condition(status, pressure).is_some_and(|c| text(c, "status") == "True") {
            return assessed(Health::Warning, pressure, true);
        }
    }
    if object
        .pointer("/spec/unschedulable")
        .and_then(Value::as_bool)
        == Some(true)
    {
        return assessed(Health::Warning, "SchedulingDisabled", true);
    }
    assessed(Health::Healthy, "Ready", true)
}

fn job(status: &Value) -> Assessed {
    if let Some(failed) = condition(status, "Failed").filter(|c| text(c, "status") == "True") {
        return assessed(Health::Unhealthy, reason(failed, "Failed"), false);
    }
    if condition(status, "Complete").is_some_and(|c| text(c, "status") == "True") {
        return assessed(Health::Healthy, "Completed", true);
    }
    if condition(status, "Suspended").is_some_and(|c| text(c, "status") == "True") {
        return assessed(Health::Unknown, "Suspended", false);
    }
    if number(status.get("active")).unwrap_or(0) > 0 {
        return assessed(Health::Unknown, "Running", false);
    }
    assessed(Health::Unknown, "Pending", false)
}

fn other(status: &Value) -> Assessed {
    if let Some(ready) = condition(status, "Ready") {
        return match text(ready, "status") {
            "True" => assessed(Health::Healthy, "Ready", true),
            "False" => assessed(Health::Unhealthy, reason(ready, "NotReady"), false),
            _ => assessed(Health::Unknown, "Unknown", false),
        };
    }
    let has_status = status.as_object().is_some_and(|s| !s.is_empty());
    Assessed {
        health: has_status.then_some(Health::Unknown),
        status: None,
        ready: None,
    }
}

fn condition<'a>(status: &'a Value, kind: &str) -> Option<&'a Value> {
    status
        .get("conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| text(c, "type") == kind)
}

fn reason<'a>(condition: &'a Value, default: &'a str) -> &'a str {
    match text(condition, "reason") {
        "" => default,
        reason => reason,
    }
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value.get(field).and_then(Value::as_str).unwrap_or("")
}

fn number(value: Option<&Value>) -> Option<i64> {
    value.and_then(Value::as_i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(kind: &str, object: Value) -> (Option<Health>, Option<String>, Option<bool>) {
        let a = assess(kind, &object);
        (a.health, a.status, a.ready)
    }

    fn h(
        health: Health,
        status: &str,
        ready: bool,
    ) -> (Option<Health>, Option<String>, Option<bool>) {
        (Some(health), Some(status.to_owned()), Some(ready))
    }

    #[test]
    fn deployments() {
        let running = json!({"spec": {"replicas": 2}, "status": {"availableReplicas": 2,
            "updatedReplicas": 2, "conditions": [{"type": "Available", "status": "True"}]}});
        assert_eq!(
            of("Deployment", running),
            h(Health::Healthy, "Running", true)
        );
        let down = json!({"spec": {"replicas": 2}, "status": {"updatedReplicas": 2, "conditions": [
            {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"}]}});
        assert_eq!(
            of("Deployment", down),
            h(Health::Unhealthy, "MinimumReplicasUnavailable", false)
        );
        let stuck = json!({"spec": {"replicas": 1}, "status": {"conditions": [
            {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]}});
        assert_eq!(
            of("Deployment", stuck),
            h(Health::Unhealthy, "ProgressDeadlineExceeded", false)
        );
        let rolling = json!({"spec": {"replicas": 3}, "status": {"availableReplicas": 3, "updatedReplicas": 1}});
        assert_eq!(
            of("Deployment", rolling),
            h(Health::Warning, "Rolling Out", true)
        );
        let zero = json!({"spec": {"replicas": 0}, "status": {}});
        assert_eq!(
            of("Deployment", zero),
            h(Health::Healthy, "Scaled to Zero", true)
        );
    }

    #[test]
    fn replica_counts() {
        let partial = json!({"spec": {"replicas": 3}, "status": {"readyReplicas": 1}});
        assert_eq!(
            of("StatefulSet", partial),
            h(Health::Warning, "1/3 ready", false)
        );
        let none = json!({"spec": {"replicas": 2}, "status": {}});
        assert_eq!(
            of("ReplicaSet", none),
            h(Health::Unhealthy, "0/2 ready", false)
        );
        let daemons = json!({"status": {"desiredNumberScheduled": 2, "numberReady": 2}});
        assert_eq!(
            of("DaemonSet", daemons),
            h(Health::Healthy, "Running", true)
        );
    }

    #[test]
    fn pods() {
        let crashing = json!({"status": {"phase": "Running", "containerStatuses": [
            {"name": "app", "ready": false, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        assert_eq!(
            of("Pod", crashing),
            h(Health::Unhealthy, "CrashLoopBackOff", false)
        );
        let pulling = json!({"status": {"phase": "Pending", "containerStatuses": [
            {"name": "app", "ready": false, "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}});
        assert_eq!(
            of("Pod", pulling),
            h(Health::Unhealthy, "ImagePullBackOff", false)
        );
        let running = json!({"status": {"phase": "Running", "containerStatuses": [{"name": "app", "ready": true}]}});
        assert_eq!(of("Pod", running), h(Health::Healthy, "Running", true));
        let unready = json!({"status": {"phase": "Running", "containerStatuses": [{"name": "app", "ready": false}]}});
        assert_eq!(of("Pod", unready), h(Health::Warning, "Not Ready", false));
        let done = json!({"status": {"phase": "Succeeded"}});
        assert_eq!(of("Pod", done), h(Health::Healthy, "Completed", false));
        let evicted = json!({"status": {"phase": "Failed", "reason": "Evicted"}});
        assert_eq!(of("Pod", evicted), h(Health::Unhealthy, "Evicted", false));
        let going = json!({"metadata": {"deletionTimestamp": "2024-01-01T00:00:00Z"}, "status": {"phase": "Running"}});
        assert_eq!(of("Pod", going), h(Health::Warning, "Terminating", false));
    }

    #[test]
    fn claims_nodes_jobs_services_namespaces() {
        assert_eq!(
            of(
                "PersistentVolumeClaim",
                json!({"status": {"phase": "Bound"}})
            ),
            h(Health::Healthy, "Bound", true)
        );
        assert_eq!(
            of(
                "PersistentVolumeClaim",
                json!({"status": {"phase": "Pending"}})
            ),
            h(Health::Warning, "Pending", false)
        );
        let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert_eq!(of("Node", ready), h(Health::Healthy, "Ready", true));
        let pressed = json!({"status": {"conditions": [{"type": "Ready", "status": "True"},
            {"type": "DiskPressure", "status": "True"}]}});
        assert_eq!(
            of("Node", pressed),
            h(Health::Warning, "DiskPressure", true)
        );
        let down = json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}});
        assert_eq!(of("Node", down), h(Health::Unhealthy, "NotReady", false));
        let complete = json!({"status": {"conditions": [{"type": "Complete", "status": "True"}]}});
        assert_eq!(of("Job", complete), h(Health::Healthy, "Completed", true));
        let failed = json!({"status": {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}});
        assert_eq!(
            of("Job", failed),
            h(Health::Unhealthy, "BackoffLimitExceeded", false)
        );
        assert_eq!(of("Service", json!({})), h(Health::Healthy, "Active", true));
        assert_eq!(
            of("Namespace", json!({"status": {"phase": "Active"}})),
            h(Health::Healthy, "Active", true)
        );
        assert_eq!(of("ConfigMap", json!({"data": {}})), (None, None, None));
        assert_eq!(
            of("Widget", json!({"status": {"phase": "Spinning"}})),
            (Some(Health::Unknown), None, None)
        );
    }
}
