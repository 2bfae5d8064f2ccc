//! Where a resource row comes from: the values of the `resource_source`
//! domain that every resource table's `source` column has (migration 0022).

/// A resource row's origin. The variants are exactly the domain's values;
/// `store/tests/source.rs` fails if the two lists disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Written from the console.
    Ui,
    /// Reconciled from a Kubernetes custom resource by the operator.
    KubernetesCrd,
    ConfigFile,
    Topology,
    Push,
    CrdSync,
    ApplicationCrd,
    System,
}

impl Source {
    pub const ALL: [Source; 8] = [
        Source::Ui,
        Source::KubernetesCrd,
        Source::ConfigFile,
        Source::Topology,
        Source::Push,
        Source::CrdSync,
        Source::ApplicationCrd,
        Source::System,
    ];

    /// The value stored in the `source` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            Source::Ui => "UI",
            Source::KubernetesCrd => "KubernetesCRD",
            Source::ConfigFile => "ConfigFile",
            Source::Topology => "Topology",
            Source::Push => "Push",
            Source::CrdSync => "CRDSync",
            Source::ApplicationCrd => "ApplicationCRD",
            Source::System => "System",
        }
    }
}
