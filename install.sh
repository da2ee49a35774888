#!/usr/bin/env bash
# Installs trawl for the current user: what it needs at run time (.ci/deps: poppler-utils and
# the other extractors), the binary (cargo install with the release-lto profile: fat LTO,
# stripped, PCRE2 linked statically) into $CARGO_HOME/bin, its man page beside it in
# $CARGO_HOME/share/man (man finds it through PATH), and completions for bash, zsh and fish.
set -euo pipefail
cd "$(dirname "$0")"

bash .ci/deps
root=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}
# On GNU/Linux the binary is linked statically (glibc too) and not position-independent: no
# dynamic loader and no relocations at start, so a tiny search takes about 0.65 ms instead of 1.7 (names
# of users and groups still come through glibc's NSS modules, loaded at run time). --target keeps
# these flags off the build scripts and procedural macros, which cannot be static.
host=$(rustc -vV | sed -n 's/^host: //p')
static=()
case $host in
  *-linux-gnu)
    static=(--target "$host")
    export RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static"
    ;;
esac
cargo install --quiet --locked --force --path crates/trawl --profile release-lto --root "$root" \
  "${static[@]}"
trawl=$root/bin/trawl

data=${XDG_DATA_HOME:-$HOME/.local/share}
config=${XDG_CONFIG_HOME:-$HOME/.config}
install_generated() { # KIND FILE
  mkdir -p "$(dirname "$2")"
  "$trawl" --no-config --generate "$1" >"$2.tmp" && mv "$2.tmp" "$2"
  echo "  $2"
}
echo "installed $trawl ($(du -h "$trawl" | cut -f1)), and:"
install_generated man "$root/share/man/man1/trawl.1"
install_generated complete-bash "$data/bash-completion/completions/trawl"
install_generated complete-fish "$config/fish/completions/trawl.fish"
install_generated complete-zsh "$data/zsh/site-functions/_trawl"
echo "zsh: add 'fpath+=($data/zsh/site-functions)' before compinit in ~/.zshrc"
