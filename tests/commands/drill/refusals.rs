//! What the drill refuses before anything is sent.
