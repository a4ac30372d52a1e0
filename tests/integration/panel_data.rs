//! The panel's desktop data and translations (docs/desktop-surfaces.md): the
//! desktop entry and the AppStream metainfo, with the German translation merged in as
//! `meson install` does (`msgfmt --desktop` / `--xml`), pass `desktop-file-validate` and
//! `appstreamcli validate --no-net`; `po/attend.pot` is what xgettext makes of
//! `po/POTFILES.in` today, and `po/de.po` translates every string of it.
//!
//! The tools come from `build-aux/deps.sh test` (desktop-file-utils, appstream, gettext);
//! a test whose tool is missing says so and checks nothing else.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const APP_ID: &str = "io.github.attend.Attend";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn installed(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("{tool} is not installed (build-aux/deps.sh test installs it): not checked");
    }
    found
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the tool runs")
}

fn all_output(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `data/NAME.in` with the translations of `po/` merged in (`msgfmt --desktop|--xml`),
/// written as `dir/NAME`.
fn merged(kind: &str, name: &str, dir: &Path) -> PathBuf {
    let out = dir.join(name);
    let o = run(Command::new("msgfmt")
        .arg(kind)
        .arg("--template")
        .arg(root().join("data").join(format!("{name}.in")))
        .arg("-d")
        .arg(root().join("po"))
        .arg("-o")
        .arg(&out));
    assert!(o.status.success(), "msgfmt {kind}: {}", all_output(&o));
    out
}

#[test]
fn the_desktop_entry_validates_with_its_translation() {
    if !installed("desktop-file-validate") || !installed("msgfmt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = merged("--desktop", &format!("{APP_ID}.desktop"), dir.path());
    let o = run(Command::new("desktop-file-validate").arg(&file));
    let text = all_output(&o);
    assert!(o.status.success() && !text.contains("error:"), "{text}");
    let entry = std::fs::read_to_string(&file).unwrap();
    for line in [
        "Exec=attend-panel",
        "DBusActivatable=true",
        "Name[de]=Attend",
        "Comment[de]=Sehen, welche KI-Programmieragenten Sie brauchen",
    ] {
        assert!(entry.contains(line), "{line:?} missing in\n{entry}");
    }
}

#[test]
fn the_metainfo_validates_and_its_screenshot_is_checked_in() {
    if !installed("appstreamcli") || !installed("msgfmt") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = merged("--xml", &format!("{APP_ID}.metainfo.xml"), dir.path());
    let o = run(Command::new("appstreamcli")
        .args(["validate", "--no-net"])
        .arg(&file));
    assert!(o.status.success(), "{}", all_output(&o));
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(xml.contains(&format!("<id>{APP_ID}</id>")));
    assert!(xml.contains(&format!("{APP_ID}.desktop</launchable>")));
    assert!(
        xml.contains(r#"<summary xml:lang="de">"#),
        "the German summary is merged"
    );
    let shot = xml
        .split("<image>")
        .nth(1)
        .and_then(|s| s.split("</image>").next())
        .expect("a screenshot");
    let rel = shot
        .split("/main/")
        .nth(1)
        .expect("a path in the repository");
    assert_eq!(rel, "docs/screenshots/panel.png");
    assert!(root().join(rel).is_file(), "{rel} is checked in");
}

#[test]
fn the_panel_is_d_bus_activatable_under_its_app_id() {
    let service = std::fs::read_to_string(root().join(format!("data/{APP_ID}.service"))).unwrap();
    let lines: Vec<&str> = service.lines().map(str::trim).collect();
    assert!(lines.contains(&"[D-BUS Service]"));
    assert!(lines.contains(&format!("Name={APP_ID}").as_str()));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("Exec=") && l.ends_with("/attend-panel --gapplication-service")));
    let desktop =
        std::fs::read_to_string(root().join(format!("data/{APP_ID}.desktop.in"))).unwrap();
    assert!(desktop.lines().any(|l| l == "DBusActivatable=true"));
    // The panel registers under the build's app id; a plain cargo build uses the default.
    assert_eq!(attend::panel::APP_ID, APP_ID);
    assert_eq!(attend::config::APP_ID, APP_ID);
}

/// Files under `src/panel/` with translatable strings.
fn translatable_files() -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root().join("src/panel")).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.contains("gettext(\"") || text.contains("translatable=\"yes\"") {
            let rel = path.strip_prefix(root()).unwrap();
            out.push(rel.to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

#[test]
fn potfiles_lists_every_file_with_strings() {
    let listed = std::fs::read_to_string(root().join("po/POTFILES.in")).unwrap();
    let listed: Vec<&str> = listed
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    for f in translatable_files() {
        assert!(
            listed.contains(&f.as_str()),
            "{f} is missing in po/POTFILES.in"
        );
    }
    for f in &listed {
        assert!(
            root().join(f).is_file(),
            "po/POTFILES.in lists a missing {f}"
        );
    }
    let linguas = std::fs::read_to_string(root().join("po/LINGUAS")).unwrap();
    for lang in linguas.split_whitespace() {
        assert!(
            root().join(format!("po/{lang}.po")).is_file(),
            "po/{lang}.po"
        );
    }
}

#[test]
fn the_template_is_current_and_german_translates_all_of_it() {
    if !installed("xgettext") || !installed("msgcmp") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.pot");
    let o = run(Command::new(root().join("po/update-pot.sh")).arg(&fresh));
    assert!(o.status.success(), "{}", all_output(&o));
    let pot = root().join("po/attend.pot");
    // Same set of strings both ways: nothing new left out, nothing stale left in.
    for (a, b) in [(&pot, &fresh), (&fresh, &pot)] {
        let o = run(Command::new("msgcmp")
            .arg("--use-untranslated")
            .arg(a)
            .arg(b));
        assert!(
            o.status.success(),
            "po/attend.pot is out of date (run po/update-pot.sh): {}",
            all_output(&o)
        );
    }
    let de = root().join("po/de.po");
    let o = run(Command::new("msgcmp").arg(&de).arg(&pot));
    assert!(
        o.status.success(),
        "untranslated in de.po: {}",
        all_output(&o)
    );
    let o = run(Command::new("msgfmt")
        .args(["--check", "--statistics", "-o", "/dev/null"])
        .arg(&de));
    let stats = all_output(&o);
    assert!(o.status.success(), "{stats}");
    assert!(
        !stats.contains("fuzzy") && !stats.contains("untranslated"),
        "{stats}"
    );
}

/// `(msgid, [msgstr…])` of a PO file (enough of the format for our own files).
fn po_entries(text: &str) -> Vec<(String, Vec<String>)> {
    let unquote = |s: &str| -> String {
        serde_json::from_str::<String>(s.trim()).expect("a quoted PO string")
    };
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut id = String::new();
        let mut strs: Vec<String> = Vec::new();
        let mut cur: Option<bool> = None; // Some(true) in msgid, Some(false) in a msgstr
        for line in block.lines() {
            if let Some(rest) = line.strip_prefix("msgid ") {
                id = unquote(rest);
                cur = Some(true);
            } else if line.starts_with("msgid_plural ") {
                cur = None;
            } else if line.starts_with("msgstr") {
                let rest = &line[line.find(' ').unwrap() + 1..];
                strs.push(unquote(rest));
                cur = Some(false);
            } else if line.starts_with('"') {
                match cur {
                    Some(true) => id.push_str(&unquote(line)),
                    Some(false) => strs.last_mut().unwrap().push_str(&unquote(line)),
                    None => {}
                }
            }
        }
        if !id.is_empty() {
            out.push((id, strs));
        }
    }
    out
}

fn placeholders(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .split('{')
        .skip(1)
        .filter_map(|p| p.split_once('}').map(|(name, _)| name.to_string()))
        .collect();
    v.sort();
    v
}

/// A GTK mnemonic: `_` before a letter (`Mark _Seen`).
fn has_mnemonic(s: &str) -> bool {
    s.char_indices()
        .any(|(i, c)| c == '_' && s[i + 1..].chars().next().is_some_and(char::is_alphanumeric))
}

#[test]
fn german_keeps_every_placeholder_and_mnemonic() {
    let text = std::fs::read_to_string(root().join("po/de.po")).unwrap();
    let entries = po_entries(&text);
    assert!(entries.len() > 50, "{} entries", entries.len());
    for (id, strs) in entries {
        assert!(!strs.is_empty(), "{id:?} has no msgstr");
        for s in strs {
            assert!(!s.is_empty(), "{id:?} is untranslated");
            assert_eq!(placeholders(&id), placeholders(&s), "{id:?} → {s:?}");
            if has_mnemonic(&id) {
                assert!(has_mnemonic(&s), "{id:?} has a mnemonic, {s:?} not");
            }
        }
    }
}
