# The servers the connection tests talk to, one file per server under
# hack/lib/servers/. Source this, then call start_test_servers [NAME...]
# (all of them when no name is given and QD_SERVERS is unset, those in
# QD_SERVERS when it is set, none when it is set and empty). Each
# hack/lib/servers/NAME.sh defines server_NAME, which installs what it needs,
# starts the server under $QD_SERVERS_DIR/NAME on a free loopback port, waits
# until it answers, exports QD_TEST_<NAME>_... variables for the tests, and
# registers its own stop with on_exit. Servers refusing root run as nobody.

for f in hack/lib/servers/*.sh; do
  [ -e "$f" ] || continue
  # shellcheck source=/dev/null
  source "$f"
done

# Every server this file knows, in start order.
test_server_names() {
  local f
  for f in hack/lib/servers/*.sh; do [ -e "$f" ] && basename "$f" .sh; done; return 0
}

start_test_servers() {
  local names=("$@") name
  [ ${#names[@]} -gt 0 ] || read -r -a names <<<"${QD_SERVERS-$(test_server_names | tr '\n' ' ')}"
  QD_SERVERS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/quarterdeck-servers.XXXXXX")
  chmod 755 "$QD_SERVERS_DIR"
  export QD_SERVERS_DIR
  on_exit rm -rf "$QD_SERVERS_DIR"
  for name in "${names[@]}"; do
    declare -F "server_$name" >/dev/null || die "no test server named $name (see hack/lib/servers/)"
    mkdir -p "$QD_SERVERS_DIR/$name"
    "server_$name" || die "test server $name did not start (logs in $QD_SERVERS_DIR/$name)"
  done
}

# Waits up to 60 s until COMMAND succeeds; dies naming WHAT otherwise.
wait_until() {
  local what=$1 i
  shift
  for i in $(seq 1 300); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  die "$what did not become ready"
}

# Runs a command as nobody when we are root (servers that refuse root).
as_unprivileged() {
  if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}
