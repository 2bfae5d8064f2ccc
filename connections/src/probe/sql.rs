//! (being written)

use super::{Context, ProbeError, Tried};
use crate::Resolved;

pub(super) async fn postgres(c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    Err(ProbeError::Unsupported(format!("testing {} connections is not written yet", c.kind)))
}

pub(super) async fn mysql(c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    Err(ProbeError::Unsupported(format!("testing {} connections is not written yet", c.kind)))
}
