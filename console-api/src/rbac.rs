//! The console's rights live in the store crate, where the data API checks
//! writes against them inside their transaction.

pub use quarterdeck_store::rbac::*;
