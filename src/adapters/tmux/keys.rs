//! Typing into a followed tmux pane (`docs/tmux.md#answers`): the bytes an answer or
//! `attend send` would write to an owned pane's PTY become `tmux send-keys` commands —
//! runs of printable text as literal text (`-l`), every other byte (Enter, Esc, the
//! bytes of an arrow key) as a key given by its hexadecimal code (`-H`), in order.

/// The most bytes of one tmux command line (its arguments, one separator each): tmux's
/// client hands a command to the server in one message of at most 16 KiB (tmux's
/// `MAX_IMSGSIZE`, headers included); a longer one is refused whole ("command too long").
pub const MAX_RUN_BYTES: usize = 8 * 1024;

/// The most text bytes one `send-keys -l` types (cut on a character boundary).
const MAX_TEXT_BYTES: usize = 2 * 1024;

/// The most key bytes one `send-keys -H` types (each is 3 bytes on the command line; an
/// escape sequence is never cut).
const MAX_KEY_BYTES: usize = 512;

/// The tmux command lines (each an argv after `tmux -S SOCKET`, run in order) that type
/// `bytes` into pane `target` (`%N`): runs of printable text as literal text (`-l`), every
/// other byte as a key by its hexadecimal code (`-H`), several `send-keys` to a line
/// separated by `;` arguments, no line over [`MAX_RUN_BYTES`]. Empty for no bytes. Text
/// that is not valid UTF-8 is typed with its invalid bytes replaced (U+FFFD). A text
/// argument that ends in `;` gets a `\` before it: tmux reads a final `;` as the end of
/// a command and `\;` as a literal `;` (`docs/tmux.md#answers`).
pub fn send_keys_runs(target: &str, bytes: &[u8]) -> Vec<Vec<String>> {
    let mut runs = Vec::new();
    let mut argv: Vec<String> = Vec::new();
    let mut size = 0;
    for command in send_keys_commands(target, bytes) {
        let len: usize = command.iter().map(|a| a.len() + 1).sum();
        if !argv.is_empty() && size + 2 + len > MAX_RUN_BYTES {
            runs.push(std::mem::take(&mut argv));
            size = 0;
        }
        if !argv.is_empty() {
            argv.push(";".into());
            size += 2;
        }
        size += len;
        argv.extend(command);
    }
    if !argv.is_empty() {
        runs.push(argv);
    }
    runs
}

/// One `send-keys` argv per piece of `bytes`, in order (see [`send_keys_runs`]).
fn send_keys_commands(target: &str, bytes: &[u8]) -> Vec<Vec<String>> {
    let head = |flag: &str| -> Vec<String> {
        ["send-keys", "-t", target, flag].map(String::from).to_vec()
    };
    let mut commands = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let literal = is_text(bytes[i]);
        if literal {
            while i < bytes.len() && is_text(bytes[i]) {
                i += 1;
            }
            let text = String::from_utf8_lossy(&bytes[start..i]);
            for piece in text_pieces(&text) {
                let mut c = head("-l");
                c.push("--".into());
                c.push(match piece.strip_suffix(';') {
                    Some(before) => format!("{before}\\;"),
                    None => piece.to_string(),
                });
                commands.push(c);
            }
        } else {
            while i < bytes.len() && !is_text(bytes[i]) && i - start < MAX_KEY_BYTES {
                i = (i + key_len(&bytes[i..])).min(bytes.len());
            }
            let mut c = head("-H");
            c.extend(bytes[start..i].iter().map(|b| format!("{b:02x}")));
            commands.push(c);
        }
    }
    commands
}

/// `text` cut into pieces of at most [`MAX_TEXT_BYTES`] on character boundaries.
fn text_pieces(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(MAX_TEXT_BYTES);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (piece, tail) = rest.split_at(end);
        pieces.push(piece);
        rest = tail;
    }
    pieces
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

    /// The one command line of `bytes`.
    fn one_run(target: &str, bytes: &[u8]) -> Vec<String> {
        let mut runs = send_keys_runs(target, bytes);
        assert_eq!(runs.len(), 1, "{runs:?}");
        runs.remove(0)
    }

    #[test]
    fn text_is_literal_and_enter_and_escapes_go_apart_as_hex() {
        assert!(send_keys_runs("%1", b"").is_empty());
        assert_eq!(
            one_run("%3", "hé -x\r".as_bytes()),
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
            one_run("%0", b"\x1b[B\r1"),
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

    /// tmux ends a command at an argument's final `;` and reads `\;` there as `;`: text
    /// that ends in `;` (or `\;`) is typed as given, not cut short.
    #[test]
    fn a_final_semicolon_is_typed_not_read_as_a_separator() {
        let text = |argv: &[String]| argv[5].clone();
        assert_eq!(text(&one_run("%1", b"echo one;")), "echo one\\;");
        assert_eq!(text(&one_run("%1", b";")), "\\;");
        assert_eq!(text(&one_run("%1", b"x\\;")), "x\\\\;");
        assert_eq!(text(&one_run("%1", b"a;b")), "a;b", "only a final one");
    }

    /// A long text goes in several command lines, none over tmux's limit, its pieces cut
    /// on character boundaries and typed in order.
    #[test]
    fn long_text_is_typed_in_runs_under_the_limit() {
        let long = "é".repeat(30_000) + "\r";
        let runs = send_keys_runs("%2", long.as_bytes());
        assert!(runs.len() > 1, "{} runs", runs.len());
        let mut typed = String::new();
        for argv in &runs {
            let size: usize = argv.iter().map(|a| a.len() + 1).sum();
            assert!(size <= MAX_RUN_BYTES, "{size}");
            for (i, a) in argv.iter().enumerate() {
                if i >= 2 && argv[i - 2] == "-l" {
                    typed.push_str(a);
                }
            }
        }
        assert_eq!(typed, "é".repeat(30_000));
        assert_eq!(runs.last().unwrap().last().unwrap(), "0d");
        let keys = vec![0x01u8; 2_000];
        let runs = send_keys_runs("%2", &keys);
        let hex: usize = runs.iter().flatten().filter(|a| a.as_str() == "01").count();
        assert_eq!(hex, 2_000);
    }
}
