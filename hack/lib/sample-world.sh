# The people and teams config/samples refers to: the console's own rows, which
# no custom resource creates, a few connections for the Connections screen,
# the sample incident rule and silence, and the sample notification rule with
# its playbook.
# Source it, then call
# seed_sample_world API_URL ADMIN_EMAIL:PASSWORD (each row only when missing;
# the database connection is refreshed on every call, since the embedded
# PostgreSQL's port changes with each start).

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
  seed_sample_connections "$api" "$auth"
  seed_sample_console_rows "$api" "$auth" incident-rule incident_rules
  seed_sample_console_rows "$api" "$auth" silence notification_silences
  seed_sample_notification "$api" "$auth"
  seed_sample_sso "$api" "$auth"
}

# The sample notification rule (config/console-samples/notification-*.json) and
# the console playbook it runs (playbook-*.json), created before the operator
# first runs the checks, so the failing discard-port check is sent. The rule's
# `playbook` (namespace/name) becomes its playbook_id.
seed_sample_notification() {
  local api=$1 auth=$2 file name namespace body
  for file in config/console-samples/playbook-*.json; do
    read -r namespace name < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["namespace"], d["name"])' "$file")
    if [ "$(curl -sf -u "$auth" "$api/api/db/playbooks?namespace=eq.$namespace&name=eq.$name&deleted_at=is.null&select=id")" = "[]" ]; then
      curl -sf -u "$auth" -H 'content-type: application/json' -d @"$file" "$api/api/db/playbooks" >/dev/null
    fi
  done
  for file in config/console-samples/notification-*.json; do
    name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$file")
    [ "$(curl -sf -u "$auth" "$api/api/db/notifications?name=eq.$name&deleted_at=is.null&select=id")" = "[]" ] || continue
    read -r namespace playbook < <(python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["playbook"].split("/"))' "$file")
    body=$(curl -sf -u "$auth" "$api/api/db/playbooks?namespace=eq.$namespace&name=eq.$playbook&deleted_at=is.null&select=id" |
      python3 -c 'import json, sys; rule = json.load(open(sys.argv[1])); rule["playbook_id"] = json.load(sys.stdin)[0]["id"]; del rule["playbook"]; print(json.dumps(rule))' "$file")
    curl -sf -u "$auth" -H 'content-type: application/json' -d "$body" "$api/api/db/notifications" >/dev/null
  done
}

# A single sign-on provider for the Single Sign-On screen, switched off: its
# issuer is an example, so the sign-in page shows no button for it.
seed_sample_sso() {
  local api=$1 auth=$2 file=config/console-samples/sso-provider-corporate.json
  if ! curl -sf -u "$auth" "$api/api/settings/sso" | grep -q '"slug":"corporate"'; then
    curl -sf -u "$auth" -H 'content-type: application/json' -d @"$file" "$api/api/settings/sso" >/dev/null
  fi
}

# The sample rows of a console table (config/console-samples/KIND-*.json: an incident
# rule, a notification silence; not custom resources, so created through the API
# rather than by the operator), each when no live row has its name.
seed_sample_console_rows() {
  local api=$1 auth=$2 kind=$3 table=$4 file name
  for file in config/console-samples/"$kind"-*.json; do
    name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$file")
    if [ "$(curl -sf -u "$auth" "$api/api/db/$table?name=eq.$name&deleted_at=is.null&select=id")" = "[]" ]; then
      curl -sf -u "$auth" -H 'content-type: application/json' -d @"$file" "$api/api/db/$table" >/dev/null
    fi
  done
}

# The database Quarterdeck uses as `url username password`: DATABASE_URL's, or
# the embedded server's (its port in postmaster.pid, its superuser's password
# beside it).
sample_database() {
  python3 - "${DATABASE_URL:-}" "${QUARTERDECK_EMBEDDED_DB_DIR:-.quarterdeck/db}" <<'PY'
import sys, urllib.parse as u
url, data = sys.argv[1], sys.argv[2]
if url:
    p = u.urlsplit(url)
    host = p.hostname + (f":{p.port}" if p.port else "")
    print(u.urlunsplit(p._replace(netloc=host)), u.unquote(p.username or "postgres"),
          u.unquote(p.password or "trust-auth-ignores-this"))
else:
    port = open(f"{data}/postmaster.pid").read().splitlines()[3].strip()
    password = open(f"{data}/quarterdeck-superuser.password").read().strip()
    print(f"postgres://127.0.0.1:{port}/quarterdeck", "postgres", password)
PY
}

# Creates the connection `body` names, or saves it over a console row of that name.
put_sample_connection() {
  local api=$1 auth=$2 body=$3 id
  id=$(curl -sf -u "$auth" "$api/api/connections" | python3 -c '
import json, sys
body = json.loads(sys.argv[1])
for c in json.load(sys.stdin):
    if (c["namespace"], c["name"]) == ("default", body["name"]):
        print(c["id"] if c["source"] == "UI" else "not-ui")
' "$body")
  case $id in
    "") curl -sf -u "$auth" -H 'content-type: application/json' -d "$body" "$api/api/connections" >/dev/null ;;
    not-ui) ;;
    *) curl -sf -u "$auth" -X PUT -H 'content-type: application/json' -d "$body" "$api/api/connections/$id" >/dev/null ;;
  esac
}

seed_sample_connections() {
  local api=$1 auth=$2 url user password
  read -r url user password < <(sample_database)
  put_sample_connection "$api" "$auth" "$(python3 -c '
import json, sys
url, user, password = sys.argv[1:]
print(json.dumps({"name": "quarterdeck-db", "type": "postgres", "fields": {
    "url": {"value": url}, "username": {"value": user}, "password": {"value": password}}}))
' "$url" "$user" "$password")"
  put_sample_connection "$api" "$auth" "{\"name\": \"console-livez\", \"type\": \"http\", \"fields\": {
    \"url\": {\"value\": \"$api/livez\"}, \"username\": {\"value\": \"sample\"},
    \"password\": {\"value\": \"sample\"}}}"
  put_sample_connection "$api" "$auth" '{"name": "alerts-webhook", "type": "generic_webhook", "fields": {
    "url": {"value": "https://hooks.example.com/quarterdeck"}}}'
}
