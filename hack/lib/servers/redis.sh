# Redis for the redis connection and check tests: a free loopback port, the
# default user behind requirepass and an ACL user of its own, no persistence.

server_redis() {
  local dir=$QD_SERVERS_DIR/redis port user=quarterdeck password=quarterdeck-test
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || apt_install redis-server
  port=$(free_port)
  [ "$(id -u)" != 0 ] || chown nobody "$dir"
  as_unprivileged redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
    --pidfile "$dir/redis.pid" --requirepass "$password" --user "$user" on ">$password" '~*' '&*' '+@all' >"$dir/log" 2>&1 &
  # $! is the subshell around runuser; the pid file names redis-server itself.
  on_exit pkill -F "$dir/redis.pid"
  wait_until "Redis on port $port" redis-cli -h 127.0.0.1 -p "$port" --user "$user" --pass "$password" \
    --no-auth-warning ping
  export QD_TEST_REDIS_URL="redis://127.0.0.1:$port"
  export QD_TEST_REDIS_USERNAME=$user
  export QD_TEST_REDIS_PASSWORD=$password
}
