#!/bin/sh
# docs.sh RINGSIM MANDIR BASH_COMPLETION ZSH_COMPLETION - the generated man pages and completion
# (cli/man_pages.c and cli/completion.c, reading the tables through cli/docgen.c) against the command
# itself:
#   - ringsim.1 and one page per command; each renders with `man --warnings` and `groff -ww` without a
#     warning at 80 columns, and names every option that `ringsim CMD --help` lists (same table);
#   - bash: completing command names, options, option values (choices, what a parser accepts,
#     presets), --opt=value and plot's kind;
#   - zsh (when installed): the script parses, and in an interactive zsh (zpty) completes an option
#     and a value.
set -u
bin=${1:?usage: docs.sh RINGSIM MANDIR BASH ZSH}
man=${2:?}; bashc=${3:?}; zshc=${4:?}
tmp=$(mktemp -d /tmp/ringsim-docs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmds=$("$bin" --help | awk '/^  [a-z]/ {print $1}')
[ -f "$man/ringsim.1" ] || fail "ringsim.1 missing"
for c in $cmds; do
  page=$man/ringsim-$c.1
  [ -f "$page" ] || fail "ringsim-$c.1 missing"
  w=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null; groff -ww -man -Tutf8 "$page" 2>&1 >/dev/null)
  [ -z "$w" ] || fail "ringsim-$c.1: $w"
  MANWIDTH=80 man -l "$page" >"$tmp/page.txt" 2>/dev/null
  "$bin" "$c" --help >"$tmp/help.txt" 2>/dev/null || continue # not in this build: its page says so
  for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help.txt" | sort -u); do
    grep -q -- "$o" "$tmp/page.txt" || fail "ringsim-$c.1 lacks $o, which ringsim $c --help lists"
  done
done
w=$(MANWIDTH=80 man --warnings -l "$man/ringsim.1" 2>&1 >/dev/null)
[ -z "$w" ] || fail "ringsim.1: $w"
for c in $cmds; do MANWIDTH=80 man -l "$man/ringsim.1" 2>/dev/null | grep -q "ringsim-$c(1)" || fail "ringsim.1 lacks $c"; done
echo "$(echo "$cmds" | wc -w) command pages + ringsim.1 render without warnings and list every --help option"

# bash: complete WORDS... (the last one is being completed); prints the candidates on one line
complete_bash() {
  bash -c '. "$1"; shift; COMP_WORDS=(ringsim "$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ringsim
           printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$bashc" "$@"
}
check_bash() { # expected candidates, then the words
  want=$1; shift
  got=$(complete_bash "$@")
  [ "$got" = "$want " ] || fail "bash: ringsim $* <TAB> gave '$got', expected '$want'"
}
check_bash "model" mo
check_bash "--layout" model --lay
check_bash "zigzag" model --layout z
check_bash "striped" model -L st
check_bash "bf16" model --dtype b
check_bash "fp32 mixed" memory --precision ""
check_bash "mpirun threads" exec --launch ""
check_bash "h100-gt h100-pcie h100-sxm" sim --profile h1
check_bash "ib-hdr ib-ndr ib-ndr-measured ib-xdr" model --inter ib
check_bash "llama3-405b llama3-70b llama3-8b" plan --model llama3
check_bash "zigzag" model --layout=z
check_bash "max" plan --seq m
check_bash "" model --seq ""
check_bash "tcomm-vs-b timeline ttft" plot t
check_bash "--quiet" report --quie
echo "bash completion: commands, options, values, presets, --opt=value, plot kinds"

if command -v zsh >/dev/null 2>&1; then
  zsh -n "$zshc" || fail "zsh: $zshc does not parse"
  mkdir "$tmp/fpath" && cp "$zshc" "$tmp/fpath/_ringsim"
  cat >"$tmp/z.zsh" <<'ZEOF'
# z.zsh FPATH LINE WANT: type LINE and TAB in an interactive zsh; 0 when WANT shows up within 20 s
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; setopt nobeep; zstyle ':completion:*' menu no; print ready-for-input"
out=
for i in {1..200}; do
  zpty -r -t z chunk && out+=$chunk || sleep 0.1
  [[ $out == *ready-for-input*'> '* ]] && break
done
zpty -w -n z "ringsim $2"$'\t'
out=
for i in {1..200}; do
  zpty -r -t z chunk && out+=$chunk || sleep 0.1
  clean=${out//$'\e'\[[0-9;?]#[A-Za-z]/}
  [[ $clean == *"$3"* ]] && { zpty -d z; exit 0 }
done
zpty -d z
print -r -- "$clean"
exit 1
ZEOF
  check_zsh() { # the line, then text that must follow it
    out=$(cd "$tmp" && PATH="$(dirname "$bin"):$PATH" timeout 60 zsh -f "$tmp/z.zsh" "$tmp/fpath" "$1" "$2") ||
      fail "zsh: ringsim $1<TAB> did not give '$2': $(echo "$out" | tail -n 2)"
  }
  check_zsh "model --layo" "ringsim model --layout"
  check_zsh "model --layout zig" "ringsim model --layout zigzag"
  check_zsh "memory --precision fp" "ringsim memory --precision fp32"
  echo "zsh completion: parses; completes an option and its values"
else
  echo "zsh not installed: zsh completion not checked"
fi
echo "PASS"
