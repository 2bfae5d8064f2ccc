# An S3-compatible server for the s3, aws and restic connection tests:
# gofakes3 (a Go module), built once into a cache outside the repo keyed by
# its version, serving path-style buckets from memory. It does not check
# signatures (the SigV4 signer has its own tests against AWS's examples).

GOFAKES3_VERSION=v1.2.0

server_s3() {
  local dir=$QD_SERVERS_DIR/s3 bin port
  bin=$(go_server_binary github.com/johannesboyne/gofakes3/cmd/gofakes3 "$GOFAKES3_VERSION" gofakes3) || return 1
  port=$(free_port)
  "$bin" -backend memory -host "127.0.0.1:$port" -initialbucket quarterdeck >"$dir/log" 2>&1 &
  on_exit kill $!
  wait_until "the S3 server on port $port" curl -fsS -o /dev/null "http://127.0.0.1:$port/quarterdeck"
  # A restic repository's config object, so the restic test finds a repository.
  curl -fsS -X PUT --data-binary 'restic-config' "http://127.0.0.1:$port/quarterdeck/restic/config" >/dev/null
  export QD_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
  export QD_TEST_S3_BUCKET=quarterdeck
}

# Builds a Go module's command once into ~/.cache/quarterdeck/NAME-VERSION and
# prints the binary's path.
go_server_binary() {
  local module=$1 version=$2 name=$3 dir
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/$name-$version"
  if [ ! -x "$dir/$name" ]; then
    command -v go >/dev/null || die "go is needed to build $name"
    say "building $name $version (cached in $dir)"
    mkdir -p "$dir"
    GOBIN="$dir" GOFLAGS=-mod=mod go install "$module@$version" >&2 || return 1
  fi
  echo "$dir/$name"
}
