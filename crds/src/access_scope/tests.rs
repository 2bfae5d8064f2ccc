use std::collections::BTreeMap;

use super::*;

fn person(email: &str) -> AccessScopeSubject {
    AccessScopeSubject {
        person: Some(email.into()),
        team: None,
    }
}

fn team(name: &str) -> AccessScopeSubject {
    AccessScopeSubject {
        person: None,
        team: Some(name.into()),
    }
}

fn names(names: &[&str]) -> ScopeEntry {
    ScopeEntry {
        names: Some(names.iter().map(|n| n.to_string()).collect()),
        ..ScopeEntry::default()
    }
}

fn valid() -> AccessScopeSpec {
    AccessScopeSpec {
        description: None,
        subject: person("guest@example.com"),
        resources: vec![ResourceType::Config],
        scopes: vec![ScopeEntry {
            tags: Some(BTreeMap::from([("env".into(), "prod".into())])),
            ..ScopeEntry::default()
        }],
    }
}

fn errors(spec: &AccessScopeSpec) -> Vec<ValidationError> {
    spec.validate()
        .map_or_else(ValidationErrors::into_vec, |()| Vec::new())
}

#[test]
fn valid_specs_pass() {
    assert_eq!(valid().validate(), Ok(()));

    let by_team = AccessScopeSpec {
        subject: team("sre"),
        resources: vec![ResourceType::All],
        scopes: vec![names(&["*"])],
        ..valid()
    };
    assert_eq!(by_team.validate(), Ok(()));

    let several = AccessScopeSpec {
        resources: vec![
            ResourceType::Config,
            ResourceType::Canary,
            ResourceType::Playbook,
        ],
        scopes: vec![
            ScopeEntry {
                agents: Some(vec!["eu-west".into()]),
                ..ScopeEntry::default()
            },
            names(&["api", "db"]),
        ],
        ..valid()
    };
    assert_eq!(several.validate(), Ok(()));
}

#[test]
fn subject_is_required() {
    for subject in [
        AccessScopeSubject::default(),
        AccessScopeSubject {
            person: Some(String::new()),
            team: Some(String::new()),
        },
    ] {
        let spec = AccessScopeSpec { subject, ..valid() };
        assert_eq!(errors(&spec), [ValidationError::SubjectRequired]);
    }
}

#[test]
fn subject_is_a_person_or_a_team_not_both() {
    let spec = AccessScopeSpec {
        subject: AccessScopeSubject {
            person: Some("guest@example.com".into()),
            team: Some("sre".into()),
        },
        ..valid()
    };
    assert_eq!(errors(&spec), [ValidationError::SubjectExclusive]);

    // An empty value counts as not set.
    let spec = AccessScopeSpec {
        subject: AccessScopeSubject {
            person: Some(String::new()),
            team: Some("sre".into()),
        },
        ..valid()
    };
    assert_eq!(spec.validate(), Ok(()));
}

#[test]
fn guest_must_be_an_email() {
    for email in [
        "guest",
        "@example.com",
        "guest@",
        "a@b@c",
        "a b@example.com",
        "a@exa\tmple",
    ] {
        let spec = AccessScopeSpec {
            subject: person(email),
            ..valid()
        };
        assert_eq!(errors(&spec), [ValidationError::GuestNotEmail], "{email:?}");
    }
    for email in ["a@b", "first.last+tag@example.co.uk"] {
        let spec = AccessScopeSpec {
            subject: person(email),
            ..valid()
        };
        assert_eq!(spec.validate(), Ok(()), "{email:?}");
    }
}

#[test]
fn resources_are_required() {
    let spec = AccessScopeSpec {
        resources: vec![],
        ..valid()
    };
    assert_eq!(errors(&spec), [ValidationError::ResourcesRequired]);
}

#[test]
fn resource_wildcard_stands_alone() {
    let spec = AccessScopeSpec {
        resources: vec![ResourceType::Config, ResourceType::All],
        ..valid()
    };
    assert_eq!(errors(&spec), [ValidationError::ResourceWildcardNotAlone]);

    let spec = AccessScopeSpec {
        resources: vec![ResourceType::All, ResourceType::All],
        ..valid()
    };
    assert_eq!(errors(&spec), [ValidationError::ResourceWildcardNotAlone]);
}

#[test]
fn scopes_are_required() {
    let spec = AccessScopeSpec {
        scopes: vec![],
        ..valid()
    };
    assert_eq!(errors(&spec), [ValidationError::ScopesRequired]);
}

#[test]
fn each_scope_needs_tags_agents_or_names() {
    let empty_lists = ScopeEntry {
        tags: Some(BTreeMap::new()),
        agents: Some(vec![]),
        names: Some(vec![]),
    };
    let spec = AccessScopeSpec {
        scopes: vec![names(&["api"]), ScopeEntry::default(), empty_lists],
        ..valid()
    };
    assert_eq!(
        errors(&spec),
        [
            ValidationError::ScopeEmpty { index: 1 },
            ValidationError::ScopeEmpty { index: 2 }
        ]
    );
}

#[test]
fn name_wildcard_stands_alone() {
    let spec = AccessScopeSpec {
        scopes: vec![names(&["*"]), names(&["api", "*"])],
        ..valid()
    };
    assert_eq!(
        errors(&spec),
        [ValidationError::NameWildcardNotAlone { index: 1 }]
    );
}

#[test]
fn every_broken_rule_is_reported_in_field_order() {
    let spec = AccessScopeSpec {
        description: None,
        subject: AccessScopeSubject {
            person: Some("not-an-email".into()),
            team: Some("sre".into()),
        },
        resources: vec![ResourceType::All, ResourceType::Canary],
        scopes: vec![ScopeEntry::default(), names(&["*", "api"])],
    };
    let errors = spec.validate().expect_err("invalid");
    assert_eq!(
        errors.as_slice(),
        [
            ValidationError::SubjectExclusive,
            ValidationError::GuestNotEmail,
            ValidationError::ResourceWildcardNotAlone,
            ValidationError::ScopeEmpty { index: 0 },
            ValidationError::NameWildcardNotAlone { index: 1 },
        ]
    );
    assert_eq!(
        errors.to_string(),
        "Select either a Guest or a Team, not both; Guest must be an email address; \
         Wildcard '*' must be the only resource type when used; \
         Each scope must have at least one of: tags, agents, or names; \
         Wildcard '*' must be the only name when used"
    );
}

#[test]
fn messages_are_the_consoles() {
    let cases = [
        (
            ValidationError::SubjectRequired,
            "Either a Guest or Team must be selected",
            "spec.subject",
        ),
        (
            ValidationError::ResourcesRequired,
            "At least one resource type is required",
            "spec.resources",
        ),
        (
            ValidationError::ScopesRequired,
            "At least one scope is required",
            "spec.scopes",
        ),
        (
            ValidationError::ScopeEmpty { index: 3 },
            "Each scope must have at least one of: tags, agents, or names",
            "spec.scopes[3]",
        ),
        (
            ValidationError::NameWildcardNotAlone { index: 0 },
            "Wildcard '*' must be the only name when used",
            "spec.scopes[0].names",
        ),
        (
            ValidationError::ResourceWildcardNotAlone,
            "Wildcard '*' must be the only resource type when used",
            "spec.resources",
        ),
        (
            ValidationError::GuestNotEmail,
            "Guest must be an email address",
            "spec.subject.person",
        ),
    ];
    for (error, message, path) in cases {
        assert_eq!(error.to_string(), message);
        assert_eq!(error.message(), message);
        assert_eq!(error.field_path(), path);
    }
}

#[test]
fn selected_subject() {
    assert_eq!(
        person("guest@example.com").selected(),
        Some(Subject::Person("guest@example.com"))
    );
    assert_eq!(team("sre").selected(), Some(Subject::Team("sre")));
    assert_eq!(AccessScopeSubject::default().selected(), None);
    let both = AccessScopeSubject {
        person: Some("guest@example.com".into()),
        team: Some("sre".into()),
    };
    assert_eq!(both.selected(), None);
}

#[test]
fn resource_types_use_manifest_spelling() {
    let all = [
        ResourceType::All,
        ResourceType::Config,
        ResourceType::Component,
        ResourceType::Playbook,
        ResourceType::Canary,
    ];
    let json = serde_json::to_value(all).expect("serialises");
    assert_eq!(
        json,
        serde_json::json!(["*", "config", "component", "playbook", "canary"])
    );
    for resource in all {
        assert_eq!(
            serde_json::to_value(resource).ok(),
            Some(resource.as_str().into())
        );
    }
    assert!(serde_json::from_value::<ResourceType>("configs".into()).is_err());
}
