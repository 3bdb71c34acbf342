//! The drill against every target's fake.
