//! Both directions.

/// Direction of a packet through the router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Server side → client side (read from the server TUN).
    Fwd,
    /// Client side → server side (read from the client TUN).
    Rev,
}

/// The sans-IO router.
pub struct Router {}
