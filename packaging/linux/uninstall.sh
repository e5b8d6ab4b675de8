#!/bin/sh
# Remove what install.sh put under the prefix. Your conversations, documents, models and settings stay
# (~/.local/share/UniDesk, ~/.config/UniDesk); delete those folders yourself if you want them gone.
#   ./uninstall.sh [--prefix DIR]    (default DIR: ~/.local)
set -eu
prefix="${HOME}/.local"
if [ "${1:-}" = "--prefix" ] && [ -n "${2:-}" ]; then prefix=$2; fi
app_id=io.github.unidesk.UniDesk
rm -rf "$prefix/opt/UniDesk"
rm -f "$prefix/bin/unidesk" "$prefix/share/applications/$app_id.desktop" \
      "$prefix/share/metainfo/$app_id.metainfo.xml" "$prefix/share/icons/hicolor/scalable/apps/$app_id.svg"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$prefix/share/applications" || true
echo "UniDesk was removed from $prefix (your data was kept)."
