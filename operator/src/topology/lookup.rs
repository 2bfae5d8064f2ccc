//! A component's `lookup`: the components a query emits (catalog, SQL, HTTP),
//! expanded by `forEach`.
