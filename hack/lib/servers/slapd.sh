# An OpenLDAP server for the ldap connection tests: Debian's slapd with a
# throwaway slapd.conf (one mdb database, a root DN with a known password),
# listening on ldap:// and ldaps:// (a self-signed certificate) on free
# loopback ports, run as nobody.

server_slapd() {
  local dir=$QD_SERVERS_DIR/slapd port tls_port
  command -v slapd >/dev/null || [ -x /usr/sbin/slapd ] || apt_install slapd ldap-utils
  command -v ldapwhoami >/dev/null || apt_install ldap-utils
  port=$(free_port)
  tls_port=$(free_port)
  mkdir -p "$dir/data"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
  cat >"$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
pidfile $dir/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
TLSCertificateFile $dir/cert.pem
TLSCertificateKeyFile $dir/key.pem
database mdb
suffix "dc=quarterdeck,dc=test"
rootdn "cn=admin,dc=quarterdeck,dc=test"
rootpw quarterdeck-ldap
directory $dir/data
CONF
  chown -R nobody "$dir" 2>/dev/null || true
  as_unprivileged /usr/sbin/slapd -d 0 -f "$dir/slapd.conf" \
    -h "ldap://127.0.0.1:$port/ ldaps://127.0.0.1:$tls_port/" >"$dir/log" 2>&1 &
  # $! is the subshell around runuser; the pid file names slapd itself.
  on_exit pkill -F "$dir/slapd.pid"
  wait_until "slapd on port $port" ldapwhoami -x -H "ldap://127.0.0.1:$port" \
    -D "cn=admin,dc=quarterdeck,dc=test" -w quarterdeck-ldap
  export QD_TEST_SLAPD_URL="ldap://127.0.0.1:$port"
  export QD_TEST_SLAPD_LDAPS_URL="ldaps://127.0.0.1:$tls_port"
  export QD_TEST_SLAPD_BIND_DN="cn=admin,dc=quarterdeck,dc=test"
  export QD_TEST_SLAPD_PASSWORD=quarterdeck-ldap
}
