//! The ECN field of the IP header (RFC 3168 §5): two bits, four codepoints. Shared by the TCP
//! model (which codepoint a sender sets), the queues (which they may mark, how DualPI2 classifies,
//! RFC 9331 §4), the engine's packets and the pcap writer.

/// ECN codepoint, with its RFC 3168 wire value as the discriminant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport (00).
    #[default]
    NotEct = 0b00,
    /// ECN-capable transport, codepoint 1 (01): the L4S identifier (RFC 9331 §4.1).
    Ect1 = 0b01,
    /// ECN-capable transport, codepoint 0 (10): what an RFC 3168 sender sets.
    Ect0 = 0b10,
    /// Congestion experienced (11).
    Ce = 0b11,
}

impl Ecn {
    /// ECT(0) or ECT(1), not yet marked.
    #[inline]
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
    /// Anything but Not-ECT: the transport reacts to CE, so a queue may mark instead of
    /// dropping (a CE packet stays CE, RFC 3168 §5).
    #[inline]
    pub fn ecn_capable(self) -> bool {
        self != Ecn::NotEct
    }
    /// The codepoint of the two low bits of a TOS / traffic-class byte.
    #[inline]
    pub fn from_bits(tos: u8) -> Ecn {
        match tos & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
    /// The RFC 3168 sender's codepoint: ECT(0) if ECN-capable, else Not-ECT.
    #[inline]
    pub fn rfc3168(ect: bool) -> Ecn {
        if ect {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_values_are_rfc3168s_and_round_trip() {
        assert_eq!(
            [
                Ecn::NotEct as u8,
                Ecn::Ect1 as u8,
                Ecn::Ect0 as u8,
                Ecn::Ce as u8
            ],
            [0, 1, 2, 3]
        );
        for e in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
            assert_eq!(Ecn::from_bits(0xfc | e as u8), e);
        }
        assert!(Ecn::Ect1.is_ect() && Ecn::Ect0.is_ect() && !Ecn::Ce.is_ect());
        assert!(Ecn::Ce.ecn_capable() && !Ecn::NotEct.ecn_capable());
    }
}
