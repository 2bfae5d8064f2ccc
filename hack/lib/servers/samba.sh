# A Samba server for the smb connection tests: smbd in the foreground on a
# free loopback port with a throwaway smb.conf (standalone, its own state
# directories and passdb), one share "qd" and one user qd-smb whose password
# is set with smbpasswd (a fresh one each run; root creates the Unix user).
# Signing is mandatory, as on current Windows, so the client must sign.

server_samba() {
  local dir=$QD_SERVERS_DIR/samba port password
  command -v smbd >/dev/null || [ -x /usr/sbin/smbd ] || apt_install samba
  [ "$(id -u)" = 0 ] || die "the samba test server needs root (it creates a local user)"
  id qd-smb >/dev/null 2>&1 || useradd --no-create-home --shell /usr/sbin/nologin qd-smb
  password=$(openssl rand -hex 12)
  port=$(free_port)
  mkdir -p "$dir/share" "$dir/lock" "$dir/state" "$dir/cache" "$dir/private" "$dir/ncalrpc"
  cat >"$dir/smb.conf" <<CONF
[global]
  server role = standalone server
  workgroup = QUARTERDECK
  smb ports = $port
  interfaces = 127.0.0.1
  bind interfaces only = yes
  disable netbios = yes
  pid directory = $dir
  lock directory = $dir/lock
  state directory = $dir/state
  cache directory = $dir/cache
  private dir = $dir/private
  ncalrpc dir = $dir/ncalrpc
  passdb backend = tdbsam:$dir/private/passdb.tdb
  log file = $dir/log.smbd
  load printers = no
  disable spoolss = yes
  map to guest = never
  server signing = mandatory
[qd]
  path = $dir/share
  read only = no
  valid users = qd-smb
CONF
  printf '%s\n%s\n' "$password" "$password" | smbpasswd -c "$dir/smb.conf" -s -a qd-smb >/dev/null
  # Its own process group: on SIGTERM smbd signals its whole group, which with
  # --no-process-group was this script (hack/test.sh ended "Terminated", 143).
  /usr/sbin/smbd --foreground --debug-stdout -s "$dir/smb.conf" >"$dir/log" 2>&1 &
  on_exit kill $!
  wait_until "smbd on port $port" bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"
  export QD_TEST_SAMBA_HOST=127.0.0.1
  export QD_TEST_SAMBA_PORT=$port
  export QD_TEST_SAMBA_SHARE=qd
  export QD_TEST_SAMBA_USER=qd-smb
  export QD_TEST_SAMBA_PASSWORD=$password
}
