//! The shapes `/api/connections` reads and answers.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use quarterdeck_connections::form::FieldView;
use quarterdeck_store::connections::{Choice as StoredChoice, Summary};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// A person, by id and name.
#[derive(Debug, Serialize, ToSchema)]
pub struct PersonRef {
    pub id: Uuid,
    pub name: String,
}

/// A connection as the list shows it: no values.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionSummary {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    /// The type id, such as `postgres` or `slack`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `UI` for connections written in the console; others are read-only.
    pub source: String,
    pub created_by: Option<PersonRef>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl ConnectionSummary {
    pub(super) fn of(row: &Summary) -> Self {
        Self {
            id: row.id,
            name: row.name.clone(),
            namespace: row.namespace.clone(),
            kind: row.kind.clone(),
            source: row.source.clone(),
            created_by: row.created_by.map(|id| PersonRef {
                id,
                name: row.created_by_name.clone().unwrap_or_default(),
            }),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// One connection with its fields.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConnectionView {
    #[serde(flatten)]
    pub summary: ConnectionSummary,
    /// How checks, scrapers, playbooks and notifications name it.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Each field of the type by key.
    pub fields: BTreeMap<String, FieldView>,
}

/// A connection a picker offers.
#[derive(Debug, Serialize, ToSchema)]
pub struct Choice {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// `connection://namespace/name`.
    #[serde(rename = "ref")]
    pub reference: String,
}

impl From<StoredChoice> for Choice {
    fn from(row: StoredChoice) -> Self {
        Self {
            reference: format!("connection://{}/{}", row.namespace, row.name),
            id: row.id,
            name: row.name,
            namespace: row.namespace,
            kind: row.kind,
        }
    }
}

/// What trying a connection gave.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestResult {
    pub ok: bool,
    /// What the other side said, or the step that failed or timed out.
    pub message: String,
    pub elapsed_ms: u64,
}
