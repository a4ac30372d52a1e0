//! Typing into a followed tmux pane (`docs/tmux.md#answers`): the bytes an answer or
//! `attend send` would write to an owned pane's PTY become `tmux send-keys` commands —
//! runs of printable text as literal text (`-l`), every other byte (Enter, Esc, the
//! bytes of an arrow key) as a key given by its hexadecimal code (`-H`), in order.

/// The tmux argv (after `tmux -S SOCKET`) that types `bytes` into pane `target` (`%N`):
/// one `send-keys` per run, separated by `;` arguments. Empty for no bytes. Text that is
/// not valid UTF-8 is typed with its invalid bytes replaced (U+FFFD).
pub fn send_keys_argv(target: &str, bytes: &[u8]) -> Vec<String> {
    let mut argv: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let literal = is_text(bytes[i]);
        while i < bytes.len() && is_text(bytes[i]) == literal {
            i += if literal { 1 } else { key_len(&bytes[i..]) };
        }
        let i_end = i.min(bytes.len());
        if !argv.is_empty() {
            argv.push(";".into());
        }
        argv.extend(["send-keys".into(), "-t".into(), target.to_string()]);
        if literal {
            argv.extend(["-l".into(), "--".into()]);
            argv.push(String::from_utf8_lossy(&bytes[start..i_end]).into_owned());
        } else {
            argv.push("-H".into());
            argv.extend(bytes[start..i_end].iter().map(|b| format!("{b:02x}")));
        }
        i = i_end;
    }
    argv
}

/// Printable text (typed with `-l`): every byte from space up, but DEL.
fn is_text(b: u8) -> bool {
    b >= b' ' && b != 0x7f
}

/// The length of the key that starts `rest` (a control byte): an escape sequence is one
/// key with its parameters and final byte (`ESC [ 1 ; 5 A`, `ESC O B`, Alt+x as `ESC x`),
/// so that its printable part is not typed apart from its ESC.
fn key_len(rest: &[u8]) -> usize {
    if rest.first() != Some(&0x1b) || rest.len() < 2 {
        return 1;
    }
    match rest[1] {
        b'[' => {
            let body = rest[2..]
                .iter()
                .position(|b| (0x40..=0x7e).contains(b))
                .map_or(rest.len(), |p| p + 3);
            body.min(rest.len())
        }
        b'O' => 3.min(rest.len()),
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_literal_and_enter_and_escapes_go_apart_as_hex() {
        assert!(send_keys_argv("%1", b"").is_empty());
        assert_eq!(
            send_keys_argv("%3", "hé -x\r".as_bytes()),
            [
                "send-keys",
                "-t",
                "%3",
                "-l",
                "--",
                "hé -x",
                ";",
                "send-keys",
                "-t",
                "%3",
                "-H",
                "0d"
            ]
        );
        assert_eq!(
            send_keys_argv("%0", b"\x1b[B\r1"),
            [
                "send-keys",
                "-t",
                "%0",
                "-H",
                "1b",
                "5b",
                "42",
                "0d",
                ";",
                "send-keys",
                "-t",
                "%0",
                "-l",
                "--",
                "1"
            ]
        );
    }
}
