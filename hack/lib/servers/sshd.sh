# An OpenSSH server for the sftp connection tests: sshd on a free loopback
# port with a throwaway config and host key, password authentication for one
# local user this script creates (qd-sftp, a fresh password each run; root is
# needed for that and for sshd itself) and the internal-sftp subsystem.

server_sshd() {
  local dir=$QD_SERVERS_DIR/sshd port password
  [ -x /usr/sbin/sshd ] || apt_install openssh-server
  [ "$(id -u)" = 0 ] || die "the sshd test server needs root (it creates a local user)"
  id qd-sftp >/dev/null 2>&1 || useradd --create-home --shell /usr/sbin/nologin qd-sftp
  password=$(openssl rand -hex 12)
  echo "qd-sftp:$password" | chpasswd
  port=$(free_port)
  mkdir -p /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$dir/host_ed25519"
  cat >"$dir/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_ed25519
PidFile $dir/sshd.pid
PasswordAuthentication yes
KbdInteractiveAuthentication no
UsePAM no
AllowUsers qd-sftp
Subsystem sftp internal-sftp
CONF
  /usr/sbin/sshd -D -e -f "$dir/sshd_config" >"$dir/log" 2>&1 &
  on_exit kill $!
  wait_until "sshd on port $port" bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && head -c 4 <&3 | grep -q SSH"
  export QD_TEST_SSHD_HOST=127.0.0.1
  export QD_TEST_SSHD_PORT=$port
  export QD_TEST_SSHD_USER=qd-sftp
  export QD_TEST_SSHD_PASSWORD=$password
  export QD_TEST_SSHD_FINGERPRINT
  QD_TEST_SSHD_FINGERPRINT=$(ssh-keygen -l -E sha256 -f "$dir/host_ed25519.pub" | awk '{print $2}')
}
