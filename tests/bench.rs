//! Requests per post on the network targets (issue 23): the floor each target cannot go under,
//! and the figures scripts/bench reads.

pub mod floor;
pub mod netbench;
