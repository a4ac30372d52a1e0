//! Keys the user types into a pane through Attend (`attend send`, an attach client):
//! which of them interrupt the agent (`docs/lifecycle-attention.md#interrupts`). Pure.

/// True when `input` is an interrupt key: Esc on its own (a write of the single byte `ESC`,
/// or the kitty keyboard protocol's `CSI 27 u`; an escape sequence such as an arrow key is
/// none), or anything holding Ctrl-C (`ETX`, or `CSI 99;5 u`).
pub fn is_interrupt(input: &[u8]) -> bool {
    const KITTY: [&[u8]; 3] = [b"\x1b[27u", b"\x1b[27;1u", b"\x1b[99;5u"];
    input == b"\x1b" || input.contains(&0x03) || KITTY.contains(&input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_alone_and_ctrl_c_interrupt_other_keys_do_not() {
        for key in [
            &b"\x1b"[..],
            b"\x03",
            b"\x03\x03",
            b"ab\x03",
            b"\x1b[27u",
            b"\x1b[99;5u",
        ] {
            assert!(is_interrupt(key), "{key:?}");
        }
        for key in [
            &b""[..],
            b"\x1b[A",
            b"\x1b\x1b",
            b"hello",
            b"\r",
            b"\x1bx",
            b"\x1b[I",
        ] {
            assert!(!is_interrupt(key), "{key:?}");
        }
    }
}
