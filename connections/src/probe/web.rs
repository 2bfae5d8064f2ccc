//! (being written)

use super::{Context, ProbeError, Tried};
use crate::Resolved;

pub(super) async fn http(c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    Err(ProbeError::Unsupported(format!("testing {} connections is not written yet", c.kind)))
}

pub(super) async fn elasticsearch(c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    Err(ProbeError::Unsupported(format!("testing {} connections is not written yet", c.kind)))
}

pub(super) async fn prometheus(c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    Err(ProbeError::Unsupported(format!("testing {} connections is not written yet", c.kind)))
}
