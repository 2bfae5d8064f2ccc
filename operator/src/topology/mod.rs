//! The topology engine: builds the component trees of `topologies` rows on
//! their schedule (issue 19).

pub mod lookup;
