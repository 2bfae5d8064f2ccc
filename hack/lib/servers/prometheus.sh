# Prometheus for the prometheus connection test: Debian's package on a free
# loopback port, behind basic auth (a bcrypt hash from htpasswd in its web config).

server_prometheus() {
  local dir=$QD_SERVERS_DIR/prometheus port user=quarterdeck password=quarterdeck-test
  command -v prometheus >/dev/null || apt_install prometheus
  command -v htpasswd >/dev/null || apt_install apache2-utils
  port=$(free_port)
  printf 'global:\n  scrape_interval: 1h\n' >"$dir/prometheus.yml"
  printf 'basic_auth_users:\n  %s: %s\n' "$user" "$(htpasswd -nbBC 10 "" "$password" | tr -d ':\n')" >"$dir/web.yml"
  prometheus --config.file="$dir/prometheus.yml" --web.config.file="$dir/web.yml" \
    --storage.tsdb.path="$dir/data" --web.listen-address="127.0.0.1:$port" >"$dir/log" 2>&1 &
  on_exit kill "$!"
  wait_until "Prometheus on port $port" curl -fsS -u "$user:$password" "http://127.0.0.1:$port/-/ready"
  export QD_TEST_PROMETHEUS_URL="http://127.0.0.1:$port"
  export QD_TEST_PROMETHEUS_USERNAME=$user
  export QD_TEST_PROMETHEUS_PASSWORD=$password
}
