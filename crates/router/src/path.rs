//! One direction.
