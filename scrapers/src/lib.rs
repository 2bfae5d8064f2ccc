//! The catalog's scrapers. A ScrapeConfig names scrapers by type; each type
//! ([`sources`]) reads its source and yields [`RawItem`]s; the common fields
//! and transforms of every scraper ([`base`], [`transform`]) turn those into
//! [`ScrapedItem`]s, which the operator compares with the stored catalog
//! ([`diff`]) and writes through the store.

pub mod base;
pub mod diff;
pub mod model;
pub mod retention;
pub mod run;
pub mod sources;
pub mod transform;

pub use model::*;
pub use run::{Context, Related, ScrapeOutput, Streamed, run, stream};
