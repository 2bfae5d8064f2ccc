# FerretDB (a MongoDB wire-protocol server) for the mongo connection test,
# with its SQLite backend and SCRAM authentication, on a free loopback port.
# Built once from its Go module into a cache outside the repo, keyed by version.

FERRETDB_VERSION=v1.24.0

ferretdb_binary() {
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/ferretdb-$FERRETDB_VERSION" src tmp
  if [ ! -x "$cache/ferretdb" ]; then
    command -v go >/dev/null || die "Go is needed to build FerretDB for the mongo connection test"
    say "building FerretDB $FERRETDB_VERSION (once)"
    src=$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])') || return 1
    tmp=$(mktemp -d)
    cp -r "$src/." "$tmp/" && chmod -R u+w "$tmp"
    # The module's zip leaves the version file empty; FerretDB refuses to start without it.
    echo "$FERRETDB_VERSION" >"$tmp/build/version/version.txt"
    mkdir -p "$cache"
    (cd "$tmp" && GOFLAGS=-mod=mod go build -trimpath -o "$cache/ferretdb.tmp" ./cmd/ferretdb) || return 1
    mv "$cache/ferretdb.tmp" "$cache/ferretdb"
    rm -rf "$tmp"
  fi
  echo "$cache/ferretdb"
}

server_mongo() {
  local dir=$QD_SERVERS_DIR/mongo port debug_port binary user=quarterdeck password=quarterdeck-test db=quarterdeck
  binary=$(ferretdb_binary) || return 1
  port=$(free_port)
  debug_port=$(free_port)
  mkdir -p "$dir/data"
  "$binary" --handler=sqlite --sqlite-url="file:$dir/data/" --state-dir="$dir" \
    --listen-addr="127.0.0.1:$port" --debug-addr="127.0.0.1:$debug_port" --telemetry=disable \
    --test-enable-new-auth --setup-database="$db" --setup-username="$user" --setup-password="$password" \
    >"$dir/log" 2>&1 &
  on_exit kill "$!"
  wait_until "FerretDB on port $port" curl -fsS "http://127.0.0.1:$debug_port/debug/readyz"
  export QD_TEST_MONGO_URL="mongodb://127.0.0.1:$port/$db"
  export QD_TEST_MONGO_USERNAME=$user
  export QD_TEST_MONGO_PASSWORD=$password
}
