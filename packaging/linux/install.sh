#!/bin/sh
# Install UniDesk for the current user: the program under ~/.local/opt, a `unidesk` command in ~/.local/bin,
# and the menu entry, icon, AppStream metadata and "Open with UniDesk" for PDF, DOCX, Markdown and text.
#   ./install.sh [--prefix DIR]      (default DIR: ~/.local; nothing outside it is touched, no root needed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix="${HOME}/.local"
if [ "${1:-}" = "--prefix" ] && [ -n "${2:-}" ]; then prefix=$2; fi
app_id=io.github.unidesk.UniDesk
target="$prefix/opt/UniDesk"

if [ ! -x "$here/UniDesk/UniDesk" ]; then
    echo "install.sh: the UniDesk folder is not beside this script; unpack the whole archive first." >&2
    exit 1
fi
echo "Installing UniDesk into $target"
mkdir -p "$prefix/opt" "$prefix/bin" "$prefix/share/applications" "$prefix/share/metainfo" \
         "$prefix/share/icons/hicolor/scalable/apps"
rm -rf "$target.new"
cp -a "$here/UniDesk" "$target.new"
rm -rf "$target"
mv "$target.new" "$target"
ln -sf "$target/UniDesk" "$prefix/bin/unidesk"

# The menu entry runs the installed program; files opened with it are added to the knowledge base.
sed -e "s|^Exec=.*|Exec=\"$target/UniDesk\" %F|" -e "s|^TryExec=.*||" \
    "$here/share/$app_id.desktop" > "$prefix/share/applications/$app_id.desktop"
cp "$here/share/$app_id.metainfo.xml" "$prefix/share/metainfo/$app_id.metainfo.xml"
cp "$here/share/$app_id.svg" "$prefix/share/icons/hicolor/scalable/apps/$app_id.svg"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$prefix/share/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true

# What the window needs from the system, checked now so the first double-click does not fail silently.
if ! "$target/UniDesk" --self-test >/dev/null 2>&1; then
    echo "UniDesk is installed, but its self-test found a problem:" >&2
    "$target/UniDesk" --self-test >&2 || true
    exit 1
fi
echo "Done. UniDesk is in your applications menu; \`$prefix/bin/unidesk\` starts it from a terminal."
