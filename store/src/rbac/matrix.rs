//! The role matrix: the roles, the resources it names, the actions, and
//! which role may do what. Each is an enum the console gets generated
//! (`web/src/api/rules.gen.ts`).

use serde::{Deserialize, Serialize};

named_enum! {
    /// A role a person holds.
    pub enum Role as "role" {
        Admin = "admin",
        Editor = "editor",
        Viewer = "viewer",
        Guest = "guest",
        Commander = "commander",
        Responder = "responder",
    }
}

named_enum! {
    /// A resource of the role matrix.
    pub enum Resource as "resource" {
        Database = "database",
        Rbac = "rbac",
        Auth = "auth",
        Responder = "responder",
        Incident = "incident",
        Evidences = "evidences",
        Comments = "comments",
        Canaries = "canaries",
        Topologies = "topologies",
        ConfigScrapers = "config_scrapers",
        Identities = "identities",
        Connections = "connections",
        Kratos = "kratos",
        Agents = "agents",
        FeatureFlags = "feature_flags",
        LoggingBackends = "logging_backends",
        Integrations = "integrations",
        Notifications = "notifications",
        Playbooks = "playbooks",
        PlaybookRuns = "playbook_runs",
        Permissions = "permissions",
        AccessScopes = "access_scopes",
        Views = "views",
        KubernetesProxy = "kubernetes-proxy",
        /// The MCP server (`/mcp`): `read` is using it.
        Mcp = "mcp",
    }
}

named_enum! {
    /// An action on a resource.
    pub enum Action as "action" {
        Read = "read",
        Create = "create",
        Update = "update",
        Delete = "delete",
        /// Run Now, on `canaries` only.
        Run = "run",
    }
}

named_enum! {
    /// A global object a permission rule (`object`) or a token scope names,
    /// beside `*` and the matrix's resource names, in the permission
    /// editor's order. Stored rules keep their object as text: one this
    /// model does not know grants nothing and only admins write it.
    pub enum RuleObject as "object" {
        Canaries = "canaries",
        Catalog = "catalog",
        Topology = "topology",
        Playbooks = "playbooks",
        Connection = "connection",
        ConnectionDetail = "connection-detail",
        AgentPush = "agent-push",
        KubernetesProxy = "kubernetes-proxy",
        Notification = "notification",
        Rbac = "rbac",
        Logs = "logs",
        Agent = "agent",
        Artifact = "artifact",
        People = "people",
        Views = "views",
    }
}

impl RuleObject {
    /// Whether the object stands for the matrix resource. Objects without
    /// a meaning here yet (`logs`, `artifact`, ...) stand for none.
    pub fn covers(self, resource: Resource) -> bool {
        use Resource as R;
        match self {
            RuleObject::Canaries => resource == R::Canaries,
            RuleObject::Catalog => matches!(resource, R::Database | R::ConfigScrapers),
            RuleObject::Topology => resource == R::Topologies,
            RuleObject::Playbooks => matches!(resource, R::Playbooks | R::PlaybookRuns),
            RuleObject::Connection => resource == R::Connections,
            RuleObject::KubernetesProxy => resource == R::KubernetesProxy,
            RuleObject::Notification => resource == R::Notifications,
            RuleObject::Rbac => matches!(resource, R::Permissions | R::AccessScopes | R::Rbac),
            RuleObject::Agent => resource == R::Agents,
            RuleObject::People => resource == R::Identities,
            RuleObject::Views => resource == R::Views,
            RuleObject::ConnectionDetail
            | RuleObject::AgentPush
            | RuleObject::Logs
            | RuleObject::Artifact => false,
        }
    }
}

/// Resources only admins may read or write; permission rules cannot grant them.
pub(super) const ADMIN_ONLY: &[Resource] =
    &[Resource::Rbac, Resource::Identities, Resource::Connections];
/// Resources guests may not even read: access scopes cannot narrow them
/// (the cluster behind `/kubeproxy`).
pub(super) const NOT_FOR_GUESTS: &[Resource] = &[Resource::KubernetesProxy];
/// What commanders and responders may write.
pub(super) const RESPONDER_WRITES: &[Resource] = &[
    Resource::Responder,
    Resource::Incident,
    Resource::Evidences,
    Resource::Comments,
];
/// The one resource with an action beyond the four: running a check now.
const RUNNABLE: Resource = Resource::Canaries;
/// Roles that may Run Now (decision 3.4).
const RUN_NOW_ROLES: &[Role] = &[Role::Admin, Role::Editor, Role::Responder, Role::Commander];

impl Resource {
    /// The resource named `name`, for registries built at compile time: an
    /// unknown name fails the build.
    pub const fn named(name: &str) -> Resource {
        let mut i = 0;
        while i < Resource::ALL.len() {
            if same(Resource::ALL[i].as_str(), name) {
                return Resource::ALL[i];
            }
            i += 1;
        }
        panic!("not a resource of the role matrix")
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Action {
    pub(super) fn is_write(self) -> bool {
        self != Action::Read
    }

    /// The actions that exist on a resource.
    pub fn on(resource: Resource) -> &'static [Action] {
        if resource == RUNNABLE {
            Action::ALL
        } else {
            &Action::ALL[..4]
        }
    }
}

impl Role {
    /// Whether this role's matrix row allows the action on the resource.
    pub fn allows(self, resource: Resource, action: Action) -> bool {
        if action == Action::Run {
            return resource == RUNNABLE && RUN_NOW_ROLES.contains(&self);
        }
        let admin_only = ADMIN_ONLY.contains(&resource);
        match self {
            Role::Admin => true,
            Role::Editor => !admin_only,
            Role::Commander | Role::Responder => {
                !admin_only && (!action.is_write() || RESPONDER_WRITES.contains(&resource))
            }
            Role::Viewer => !admin_only && !action.is_write(),
            Role::Guest => !admin_only && !NOT_FOR_GUESTS.contains(&resource) && !action.is_write(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_unknown_ones_name_the_field() {
        for r in Resource::ALL {
            assert_eq!(r.as_str().parse::<Resource>(), Ok(*r));
            assert_eq!(Resource::named(r.as_str()), *r);
        }
        for r in Role::ALL {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        let error = "superuser".parse::<Role>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "role: \"superuser\" is not one of admin, editor, viewer, guest, commander, responder"
        );
        assert_eq!(error.field, "role");
    }
}
