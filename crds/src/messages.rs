//! Validation messages shared by the CRDs' CEL rules, the API and the console, one constant
//! each. The console gets them generated (`MESSAGES` in `web/src/api/rules.gen.ts`), grouped
//! as here with camelCase names.

/// Defines one group: a constant per message and `ALL`, every message by its constant's name.
macro_rules! messages {
    ($($(#[$doc:meta])* $name:ident = $text:expr;)*) => {
        $($(#[$doc])* pub const $name: &str = $text;)*

        /// Every message of the group by its constant's name.
        pub const ALL: &[(&str, &str)] = &[$((stringify!($name), $name)),*];
    };
}

/// Any form.
pub mod form {
    messages! {
        NAME_REQUIRED = "Name is required";
        FIELD_REQUIRED = "This field is required";
        FIELD_NOT_A_NUMBER = "This field must be a number";
    }
}

/// Access scopes: the CRD's CEL rules, `AccessScopeSpec::validate`, the data API and the form.
pub mod access_scope {
    messages! {
        SUBJECT_REQUIRED = "Either a Guest or Team must be selected";
        SUBJECT_EXCLUSIVE = "Select either a Guest or a Team, not both";
        GUEST_NOT_EMAIL = "Guest must be an email address";
        RESOURCES_REQUIRED = "At least one resource type is required";
        RESOURCE_WILDCARD_ALONE = "Wildcard '*' must be the only resource type when used";
        RESOURCES_INVALID = "Resource types must be among: *, config, component, playbook, canary";
        SCOPES_REQUIRED = "At least one scope is required";
        SCOPES_INVALID = "Each scope must be an object with tags (a map of strings), agents and names (lists of strings)";
        SCOPE_EMPTY = "Each scope must have at least one of: tags, agents, or names";
        NAME_WILDCARD_ALONE = "Wildcard '*' must be the only name when used";
    }
}

/// Permissions: the CRD's CEL rule on `spec.object`.
pub mod permission {
    messages! {
        MCP_ALONE = "An MCP permission (mcp: true) cannot also select configs, components, playbooks, connections, plugins, views or scopes";
    }
}

/// The groups, by the name the console knows them under.
pub const GROUPS: &[(&str, &[(&str, &str)])] = &[
    ("form", form::ALL),
    ("accessScope", access_scope::ALL),
    ("permission", permission::ALL),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_within_a_group() {
        for (group, messages) in GROUPS {
            let mut names: Vec<_> = messages.iter().map(|(name, _)| name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), messages.len(), "{group}");
        }
    }
}
