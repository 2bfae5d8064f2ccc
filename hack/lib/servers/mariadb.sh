# MariaDB for the mysql connection and check tests: a data directory of its
# own under $QD_SERVERS_DIR/mariadb, owned by nobody (mariadbd refuses root),
# listening on a free loopback port with a database and a password user.

server_mariadb() {
  local dir=$QD_SERVERS_DIR/mariadb port user=quarterdeck password=quarterdeck-test db=quarterdeck
  command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null || apt_install mariadb-server
  port=$(free_port)
  mkdir -p "$dir/data"
  [ "$(id -u)" != 0 ] || chown -R nobody "$dir"
  as_unprivileged mariadb-install-db --no-defaults --datadir="$dir/data" --skip-test-db \
    --auth-root-authentication-method=socket >"$dir/install.log" 2>&1 || return 1
  cat >"$dir/init.sql" <<SQL
CREATE DATABASE IF NOT EXISTS $db;
CREATE USER IF NOT EXISTS '$user'@'%' IDENTIFIED BY '$password';
GRANT ALL ON $db.* TO '$user'@'%';
SQL
  [ "$(id -u)" != 0 ] || chown nobody "$dir/init.sql"
  as_unprivileged mariadbd --no-defaults --datadir="$dir/data" --bind-address=127.0.0.1 --port="$port" \
    --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" --init-file="$dir/init.sql" \
    --skip-log-bin --innodb-buffer-pool-size=16M >"$dir/log" 2>&1 &
  # $! is the subshell around runuser; the pid file names mariadbd itself.
  on_exit pkill -F "$dir/mysqld.pid"
  wait_until "MariaDB on port $port" mariadb --no-defaults -h 127.0.0.1 -P "$port" -u "$user" \
    -p"$password" -e 'SELECT 1' "$db"
  export QD_TEST_MARIADB_URL="mysql://$user:$password@127.0.0.1:$port/$db"
}
