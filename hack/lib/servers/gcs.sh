# A Google Cloud Storage emulator for the gcs and google_cloud connection
# tests: fake-gcs-server (a Go module), built once into a cache outside the
# repo keyed by its version, over plain HTTP with one bucket. It takes any
# bearer token; the tests answer the service-account token exchange
# themselves (Google's token endpoint cannot be reached here).

FAKE_GCS_SERVER_VERSION=v1.56.1

server_gcs() {
  local dir=$QD_SERVERS_DIR/gcs bin port
  bin=$(go_server_binary github.com/fsouza/fake-gcs-server "$FAKE_GCS_SERVER_VERSION" fake-gcs-server) || return 1
  port=$(free_port)
  mkdir -p "$dir/data/quarterdeck"
  "$bin" -scheme http -host 127.0.0.1 -port "$port" -backend memory -data "$dir/data" \
    -public-host "127.0.0.1:$port" >"$dir/log" 2>&1 &
  on_exit kill $!
  wait_until "the GCS emulator on port $port" curl -fsS -o /dev/null "http://127.0.0.1:$port/storage/v1/b"
  export QD_TEST_GCS_ENDPOINT="http://127.0.0.1:$port"
  export QD_TEST_GCS_BUCKET=quarterdeck
}
