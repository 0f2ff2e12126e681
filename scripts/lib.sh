# Shared set-up for scripts/test and scripts/serve (sourced, not run). Everything large is cached in
# $OPENMASQ_CACHE, outside the repo, and verified by sha256. Works on a fresh Debian 12 machine as root
# with CPython 3.11, node 20 and npm 11.
# After sourcing: REPO (cwd), OPENMASQ_CACHE, PYTHON; ensure_venv sets VENV.

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
export OPENMASQ_CACHE="${OPENMASQ_CACHE:-${HOME:-/root}/.cache/openmasq}"
PYTHON="${OPENMASQ_PYTHON:-python3}"
VENVS_KEPT=3
NPM_STAMP="node_modules/.openmasq-npm-stamp"
mkdir -p "$OPENMASQ_CACHE"

step() { printf '\n==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_chromium() {
  # Debian's security pocket replaces chromium in place, so an exact version pin would soon
  # stop resolving: the installed version is printed instead.
  if [ ! -x /usr/bin/chromium ]; then
    step "installing Debian's chromium and chromium-driver"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      chromium chromium-driver
  fi
  echo "chromium $(dpkg-query -W -f='${Version}' chromium 2>/dev/null || echo '(not from dpkg)')"
}

LIBREOFFICE_DEB_VERSION="4:7.4.7-1+deb12u14"

ensure_libreoffice() {
  # Debian's LibreOffice, headless, for scripts/build_test_documents.py (the attachment test documents,
  # built on demand, committed): the versions that script pins, which it checks again before writing.
  local pkg missing=""
  for pkg in libreoffice-writer libreoffice-calc libreoffice-impress; do
    [ "$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)" = "$LIBREOFFICE_DEB_VERSION" ] || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    step "installing Debian's$missing $LIBREOFFICE_DEB_VERSION"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "libreoffice-writer=$LIBREOFFICE_DEB_VERSION" "libreoffice-calc=$LIBREOFFICE_DEB_VERSION" \
      "libreoffice-impress=$LIBREOFFICE_DEB_VERSION"
  fi
  echo "libreoffice $(dpkg-query -W -f='${Version}' libreoffice-writer)"
}

REDIS_DEB_VERSION="5:7.0.15-1~deb12u10"

ensure_redis() {
  # Debian's redis-server for the proxy's shared-vault tests, which start their own on loopback
  # (the package's service is not started: no init runs in the container). Exact version.
  if [ "$(dpkg-query -W -f='${Version}' redis-server 2>/dev/null)" != "$REDIS_DEB_VERSION" ]; then
    step "installing Debian's redis-server $REDIS_DEB_VERSION"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "redis-server=$REDIS_DEB_VERSION" "redis-tools=$REDIS_DEB_VERSION"
  fi
  echo "redis-server $(dpkg-query -W -f='${Version}' redis-server)"
}

# The smoke suites in other engines (e2e/test_engines_*.py); the full suite stays in Chromium.
# Exact versions, from bookworm-security and bookworm (`apt-cache policy firefox-esr webkit2gtk-driver`).
FIREFOX_DEB_VERSION="153.8.0esr-1~deb12u1"
ENGINE_DRIVERS="e2e/engines"

ensure_firefox() {
  # Debian's firefox-esr, driven headless over WebDriver BiDi by puppeteer-core (npm, exact pin in
  # e2e/engines/package.json, its own lock: a test driver, not one of the site's assets).
  if [ "$(dpkg-query -W -f='${Version}' firefox-esr 2>/dev/null)" != "$FIREFOX_DEB_VERSION" ]; then
    step "installing Debian's firefox-esr $FIREFOX_DEB_VERSION"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "firefox-esr=$FIREFOX_DEB_VERSION"
  fi
  echo "firefox-esr $(dpkg-query -W -f='${Version}' firefox-esr)"
  step "npm ci --ignore-scripts in $ENGINE_DRIVERS (puppeteer-core)"
  npm ci --prefix "$ENGINE_DRIVERS" --ignore-scripts --no-audit --no-fund --loglevel=error
}

SYNC_SERVER="sync-server"

ensure_sync_server() {
  # The CouchDB-protocol server the sync tests start (express-pouchdb, in memory; pure JS, no native
  # module): exact pins in sync-server/package.json, its own lock (docs/sync.md).
  step "npm ci --ignore-scripts in $SYNC_SERVER (express-pouchdb)"
  npm ci --prefix "$SYNC_SERVER" --ignore-scripts --no-audit --no-fund --loglevel=error
}

WEBKIT_DEB_VERSION="2.50.6-1~deb12u2"
XVFB_DEB_VERSION="2:21.1.7-3+deb12u13"

ensure_webkit() {
  # Debian's WebKitGTK: WebKitWebDriver starts its MiniBrowser, driven by Selenium (pinned in
  # pyproject.toml) on an Xvfb display the test starts (or xvfb-run's).
  if [ "$(dpkg-query -W -f='${Version}' webkit2gtk-driver 2>/dev/null)" != "$WEBKIT_DEB_VERSION" ] \
     || [ "$(dpkg-query -W -f='${Version}' xvfb 2>/dev/null)" != "$XVFB_DEB_VERSION" ]; then
    step "installing Debian's webkit2gtk-driver $WEBKIT_DEB_VERSION and xvfb $XVFB_DEB_VERSION"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "webkit2gtk-driver=$WEBKIT_DEB_VERSION" "libwebkit2gtk-4.1-0=$WEBKIT_DEB_VERSION" \
      "libjavascriptcoregtk-4.1-0=$WEBKIT_DEB_VERSION" "xvfb=$XVFB_DEB_VERSION" xauth
  fi
  echo "webkit2gtk-driver $(dpkg-query -W -f='${Version}' webkit2gtk-driver), xvfb $(dpkg-query -W -f='${Version}' xvfb)"
}

ensure_venv() {
  # Keyed by pyproject.toml: a dependency change builds a new venv; the old ones are pruned.
  local key pyver
  key="$(sha256sum pyproject.toml | cut -c1-16)"
  pyver="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  VENV="$OPENMASQ_CACHE/venv-py$pyver-$key"
  if [ ! -f "$VENV/.complete" ]; then
    step "creating $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q -e '.[dev]'
    touch "$VENV/.complete"
  elif [ "$("$VENV/bin/python" -c 'import openmasq; print(openmasq.__file__)' 2>/dev/null)" \
         != "$REPO/py/openmasq/__init__.py" ]; then
    # The venv is shared by every checkout with the same pyproject.toml: point it at this one.
    step "re-pointing the editable install at $REPO"
    "$VENV/bin/python" -m pip install -q --no-deps -e .
  fi
  touch "$VENV/.complete"
  find "$OPENMASQ_CACHE" -maxdepth 1 -name 'venv-py*' -type d -printf '%T@ %p\n' \
    | sort -rn | tail -n +$((VENVS_KEPT + 1)) | cut -d' ' -f2- | xargs -r rm -rf
  echo "venv $VENV"
}

npm_stamp() { sha256sum package.json package-lock.json | sha256sum | cut -c1-32; }

ensure_node_modules() {
  # Always a clean install from the committed lock (the test run's guarantee).
  step "npm ci --ignore-scripts"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  npm_stamp > "$NPM_STAMP"
}

ensure_node_modules_quick() {
  # Skips npm ci when the last one this script ran was from the same package.json and lock.
  if [ -f "$NPM_STAMP" ] && [ "$(cat "$NPM_STAMP")" = "$(npm_stamp)" ]; then
    echo "node_modules up to date with package-lock.json"
  else
    ensure_node_modules
  fi
}

CHECKJS_DIR="build/checkjs"

check_js_types() {
  # tsc --checkJs (node_modules/.bin, pinned in package.json) over the page, the workers and the
  # service-worker template: one project each (typecheck/*.json), each with its own global scope. The
  # contract module the page imports is generated (py/openmasq/site/contract_js.py): written first where
  # typecheck/base.json's rootDirs find it.
  PYTHONPATH="$REPO/py" "$VENV/bin/python" -m openmasq.site.contract_js "$CHECKJS_DIR/app/contract.js" || return 1
  local project failed=0
  for project in app worker sw; do
    echo "tsc -p typecheck/$project.json"
    node_modules/.bin/tsc -p "typecheck/$project.json" || failed=1
  done
  return "$failed"
}

ensure_assets() {
  step "assets for Pyodide (wheels, patched lock, our wheel)"
  "$VENV/bin/python" scripts/fetch_assets.py all
}

ensure_models() {
  # The model recipes (models/build.py) skip a model whose cached manifest already matches.
  if [ -f models/build.py ]; then
    step "model files (models/build.py all)"
    "$VENV/bin/python" models/build.py all
  fi
}

existing() {
  local path
  for path in "$@"; do
    if [ -e "$path" ]; then echo "$path"; fi
  done
}
