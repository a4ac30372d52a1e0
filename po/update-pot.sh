#!/bin/sh
# Regenerates po/attend.pot from the files in po/POTFILES.in, then merges it into every
# language of po/LINGUAS. Usage: po/update-pot.sh [OUTPUT.pot]  (default po/attend.pot;
# with an OUTPUT only the template is written, for the test that checks it is current).
# Rust sources are read as C (xgettext 0.21 has no Rust parser): gettext("…") and
# ngettext("…", "…", n) calls; .ui, .desktop.in and .metainfo.xml.in by their own rules.
set -eu
cd "$(dirname "$0")/.."
out=${1:-po/attend.pot}
files=$(grep -v '^#' po/POTFILES.in | grep -v '^$')
other=$(printf '%s\n' $files | grep -v '\.rs$')
rust=$(printf '%s\n' $files | grep '\.rs$')
common="--from-code=UTF-8 --add-comments=Translators --package-name=attend --package-version=0.1.0 --msgid-bugs-address=https://github.com/attend/attend/issues --sort-by-file"
# shellcheck disable=SC2086
xgettext $common -o "$out" $other
# shellcheck disable=SC2086
xgettext $common --language=C --keyword= --keyword=gettext --keyword=ngettext:1,2 -j -o "$out" $rust
if [ $# -eq 0 ]; then
  for lang in $(cat po/LINGUAS); do
    msgmerge --quiet --update --backup=none --no-fuzzy-matching "po/$lang.po" "$out"
  done
fi
