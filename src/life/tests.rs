//! The table is the spec: every (state, event) pair and what it leads to.
