//! Source type `kubernetes_file`.
