//! (being written)

use super::{Context, ProbeError, Tried};
use crate::Resolved;

pub(super) async fn test(c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    Err(ProbeError::Unsupported(format!(
        "testing {} connections is not written yet",
        c.kind
    )))
}
