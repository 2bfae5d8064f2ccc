//! Notification delivery's rules without IO (decision 89): which rules an
//! event matches and the keys that fold repeats ([`rules`]), which silences
//! hold a resource ([`silence`]), which related resources hold a send back
//! ([`inhibition`]). The operator's engine and the console's
//! silence preview both call them, so they cannot disagree.

mod cel;
pub mod inhibition;
pub mod rules;
pub mod silence;

pub use quarterdeck_store::notifications::{ResourceFacts, Silence};
