//! Windows: the connection holds a username, password and domain for the
//! checks that name a host, and no host itself, so there is nothing to reach.

use super::{Context, ProbeError, Tried};
use crate::Resolved;

pub(super) async fn test(_c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    Err(ProbeError::Unsupported(
        "a Windows connection holds credentials only; the checks that use it name the host, so \
         there is nothing to try until one does"
            .into(),
    ))
}
