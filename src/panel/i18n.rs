//! gettext set-up for the panel: text domain `attend`, catalogs in
//! `LOCALEDIR/LANG/LC_MESSAGES/attend.mo` (built from `po/`).

use gettextrs::LocaleCategory;
use std::path::PathBuf;

/// The gettext text domain of every panel string (also `domain` in the `.ui` files).
pub const DOMAIN: &str = "attend";

/// Where the catalogs are: `$ATTEND_LOCALEDIR` when set (tests, uninstalled runs), else
/// `PREFIX/share/locale` for an executable in `PREFIX/bin`, else `/usr/share/locale`.
pub fn locale_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("ATTEND_LOCALEDIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            let bin = exe.parent()?;
            (bin.file_name()? == "bin").then(|| bin.parent().map(|p| p.join("share/locale")))?
        })
        .filter(|d| d.is_dir())
        .unwrap_or_else(|| PathBuf::from(crate::config::LOCALEDIR))
}

/// Selects the user's locale and binds the `attend` domain (UTF-8). Failures leave the
/// strings in English and are logged, never fatal.
pub fn init() {
    gettextrs::setlocale(LocaleCategory::LcAll, "");
    let dir = locale_dir();
    let bound = gettextrs::bindtextdomain(DOMAIN, &dir)
        .and_then(|_| gettextrs::bind_textdomain_codeset(DOMAIN, "UTF-8"))
        .and_then(|_| gettextrs::textdomain(DOMAIN));
    if let Err(e) = bound {
        tracing::warn!(dir = %dir.display(), "translations unavailable: {e}");
    }
}
