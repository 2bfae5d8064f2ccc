# git daemon for the git connection test: a bare repository with a commit on
# main and a tag v1, served read-only on a free loopback port.

server_git() {
  local dir=$QD_SERVERS_DIR/git port work
  command -v git >/dev/null || apt_install git
  port=$(free_port)
  work=$dir/work
  git init -q -b main "$work"
  git -C "$work" -c user.name=quarterdeck -c user.email=quarterdeck@example.com \
    commit -q --allow-empty -m "first"
  git -C "$work" tag v1
  git clone -q --bare "$work" "$dir/repo.git"
  git daemon --reuseaddr --listen=127.0.0.1 --port="$port" --base-path="$dir" --export-all \
    "$dir" >"$dir/log" 2>&1 &
  on_exit kill "$!"
  wait_until "git daemon on port $port" git ls-remote "git://127.0.0.1:$port/repo.git"
  export QD_TEST_GIT_URL="git://127.0.0.1:$port/repo.git"
}
