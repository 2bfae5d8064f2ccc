# The people and teams config/samples refers to: the console's own rows, which
# no custom resource creates. Source it, then call
# seed_sample_world API_URL ADMIN_EMAIL:PASSWORD (each row only when missing).

seed_sample_world() {
  local api=$1 auth=$2 team link token
  for team in sre support; do
    if [ "$(curl -sf -u "$auth" "$api/api/db/teams?name=eq.$team&deleted_at=is.null&select=id")" = "[]" ]; then
      curl -sf -u "$auth" -H 'content-type: application/json' -d "{\"name\": \"$team\"}" "$api/api/db/teams" >/dev/null
    fi
  done
  if [ "$(curl -sf -u "$auth" "$api/api/db/people?email=eq.contractor@example.com&select=id")" = "[]" ]; then
    link=$(curl -sf -u "$auth" -H 'content-type: application/json' \
      -d '{"firstName": "Contractor", "lastName": "Example", "email": "contractor@example.com", "role": "guest"}' \
      "$api/api/auth/invite_user")
    token=$(printf '%s' "$link" | python3 -c 'import json, sys, urllib.parse as u; q = u.urlparse(json.load(sys.stdin)["payload"]["link"]).query; print(u.parse_qs(q)["token"][0])')
    curl -sf -H 'content-type: application/json' \
      -d "{\"token\": \"$token\", \"password\": \"$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')\"}" \
      "$api/api/auth/invite" >/dev/null
  fi
}
