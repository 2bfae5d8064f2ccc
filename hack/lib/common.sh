# Shared helpers for hack/ scripts. Source it; do not run it.

# Each line carries the UTC time, so a slow step shows in any log.
say() { printf '\033[1m==> %s %s\033[0m\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs the commands given to it when the script exits, latest first (one EXIT
# trap for every service a script starts).
QUARTERDECK_ON_EXIT=()
on_exit() {
  QUARTERDECK_ON_EXIT=("$*" "${QUARTERDECK_ON_EXIT[@]}")
  trap run_on_exit EXIT
}
run_on_exit() {
  local cmd
  for cmd in "${QUARTERDECK_ON_EXIT[@]}"; do $cmd || true; done
}

# Runs apt-get install for the Debian packages given, once per script run,
# only when we are root on a Debian-like machine (CI and fresh machines).
apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "missing: $* (install them with your package manager)"
  [ "$(id -u)" = 0 ] || die "missing: $* (run: sudo apt-get install $*)"
  if [ -z "${QUARTERDECK_APT_UPDATED:-}" ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    export QUARTERDECK_APT_UPDATED=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# The directory of the PostgreSQL server binaries, as the embedded launcher finds it.
pg_bin_dir() {
  local d
  if d=$(pg_config --bindir 2>/dev/null) && [ -x "$d/postgres" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  if d=$(dirname "$(command -v postgres 2>/dev/null)" 2>/dev/null) && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/postgres" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  done
  return 1
}

ensure_postgres() {
  pg_bin_dir >/dev/null || apt_install postgresql
  pg_bin_dir >/dev/null || die "PostgreSQL server binaries not found after install"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Node.js 20+ and npm for the web console.
ensure_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    apt_install nodejs npm
  fi
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || die "Node.js 20 or newer is needed for the web console (found $(node --version))"
}

# Installs the web console's packages when the lock file changed since.
web_install() {
  if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
    say "web: npm ci"
    (cd web && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# A Python venv of pinned packages, cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/NAME and installed once:
# `venv=$(python_venv NAME PACKAGE==VERSION...)` gives its directory.
python_venv() {
  local name=$1 venv
  shift
  venv="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/$name"
  if [ ! -f "$venv/.complete" ]; then
    say "installing $* into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv" || return 1
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$@" || return 1
    touch "$venv/.complete"
  fi
  echo "$venv"
}

