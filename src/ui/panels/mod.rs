//! The panels beside the stage. Each reads the frame at the cursor; later panels (relays and
//! lock modes, shards, archive, reconciliation, 2PC) slot in as more files here.

pub mod checks;
pub mod log;
pub mod pg_console;
pub mod sql;
pub mod table;
