# An OpenID Connect provider for the single sign-on tests: `oidc-provider`
# from npm (OpenID Certified), run by hack/oidc-provider/server.mjs on a
# random loopback port, with its development sign-in form (any login, any
# password; the login `EMAIL|VERIFIED|GROUPS` gives the claims). Installed
# once into a cache directory outside the repo, keyed by its version. Exports
# the issuer, the client id and secret, and the ids of the clients whose ID
# tokens come back tampered with (another audience, expired, unsigned) and
# of the control client whose tokens are re-signed unchanged.

OIDC_PROVIDER_VERSION=9.13.3

server_oidc() {
  local dir=$QD_SERVERS_DIR/oidc cache port
  ensure_node
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/oidc-provider-$OIDC_PROVIDER_VERSION"
  if [ ! -f "$cache/.complete" ]; then
    say "installing oidc-provider@$OIDC_PROVIDER_VERSION into $cache"
    rm -rf "$cache"
    mkdir -p "$cache"
    echo '{"name":"quarterdeck-test-oidc-provider","private":true,"type":"module"}' >"$cache/package.json"
    (cd "$cache" && npm install --no-audit --no-fund --loglevel=error "oidc-provider@$OIDC_PROVIDER_VERSION") || return 1
    touch "$cache/.complete"
  fi
  cp hack/oidc-provider/server.mjs "$dir/server.mjs"
  ln -sfn "$cache/node_modules" "$dir/node_modules"
  port=$(free_port)
  QD_OIDC_CLIENT_SECRET=oidc-test-secret NODE_ENV=production \
    node "$dir/server.mjs" "$port" >"$dir/log" 2>&1 &
  on_exit kill $!
  wait_until "the OpenID Connect provider on port $port" \
    curl -fsS "http://127.0.0.1:$port/.well-known/openid-configuration"
  export QD_TEST_OIDC_ISSUER=http://127.0.0.1:$port
  export QD_TEST_OIDC_CLIENT_ID=quarterdeck
  export QD_TEST_OIDC_CLIENT_SECRET=oidc-test-secret
  export QD_TEST_OIDC_WRONG_AUD_CLIENT_ID=quarterdeck-wrong-aud
  export QD_TEST_OIDC_EXPIRED_CLIENT_ID=quarterdeck-expired
  export QD_TEST_OIDC_ALG_NONE_CLIENT_ID=quarterdeck-alg-none
  export QD_TEST_OIDC_RESIGNED_CLIENT_ID=quarterdeck-resigned
}
