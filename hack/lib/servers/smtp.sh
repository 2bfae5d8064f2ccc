# An SMTP server for the email connection tests: aiosmtpd (Python), in a venv
# cached outside the repo keyed by its version. Two listeners share one
# self-signed certificate: a plain port offering STARTTLS and an implicit-TLS
# port. Both accept AUTH PLAIN, LOGIN and CRAM-MD5 for one known user, and only
# over TLS (the plain port refuses AUTH before STARTTLS). Each message received is written as JSON (envelope, whether TLS
# was on, who authenticated, the message text) to QD_TEST_SMTP_DIR, for the
# tests to read.

AIOSMTPD_VERSION=1.4.6

server_smtp() {
  local dir=$QD_SERVERS_DIR/smtp venv port tls_port
  venv=$(python_venv "aiosmtpd-$AIOSMTPD_VERSION" "aiosmtpd==$AIOSMTPD_VERSION") || return 1
  command -v openssl >/dev/null || apt_install openssl
  openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 2 \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" >/dev/null 2>&1 || return 1
  mkdir -p "$dir/messages"
  write_smtp_server "$dir/server.py"
  port=$(free_port)
  tls_port=$(free_port)
  QD_SMTP_USER=quarterdeck QD_SMTP_PASSWORD=smtp-secret QD_SMTP_DIR="$dir/messages" \
    "$venv/bin/python" "$dir/server.py" "$port" "$tls_port" "$dir/cert.pem" "$dir/key.pem" >"$dir/log" 2>&1 &
  on_exit kill $!
  wait_until "the SMTP server on port $port" python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1)" "$port"
  wait_until "the SMTP server on port $tls_port" python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1)" "$tls_port"
  export QD_TEST_SMTP_HOST=127.0.0.1
  export QD_TEST_SMTP_PORT=$port
  export QD_TEST_SMTP_TLS_PORT=$tls_port
  export QD_TEST_SMTP_USER=quarterdeck
  export QD_TEST_SMTP_PASSWORD=smtp-secret
  export QD_TEST_SMTP_DIR=$dir/messages
}

write_smtp_server() {
  cat >"$1" <<'PY'
import asyncio, base64, hashlib, hmac, itertools, json, os, ssl, sys, time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER = os.environ["QD_SMTP_USER"].encode()
PASSWORD = os.environ["QD_SMTP_PASSWORD"].encode()
OUT = os.environ["QD_SMTP_DIR"]
port, tls_port, cert, key = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
counter = itertools.count()


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (USER, PASSWORD)
    return AuthResult(success=ok, auth_data=auth_data)


class Handler:
    async def auth_CRAM__MD5(self, server, args):
        challenge = f"<{time.time_ns()}@localhost>".encode()
        response = await server.challenge_auth(challenge)
        if not isinstance(response, bytes) or b" " not in response:
            return AuthResult(success=False, handled=False)
        login, digest = response.rsplit(b" ", 1)
        expected = hmac.new(PASSWORD, challenge, hashlib.md5).hexdigest().encode()
        ok = login == USER and hmac.compare_digest(digest, expected)
        return AuthResult(success=ok, handled=False, auth_data=LoginPassword(login, b""))

    async def handle_DATA(self, server, session, envelope):
        auth = session.auth_data
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": envelope.rcpt_tos,
            "tls": server.transport.get_extra_info("ssl_object") is not None,
            "login": auth.login.decode() if isinstance(auth, LoginPassword) else None,
            "data": envelope.content.decode("utf-8", "replace"),
        }
        path = os.path.join(OUT, f"{time.time_ns()}-{next(counter)}.json")
        with open(path + ".part", "w") as f:
            json.dump(record, f)
        os.rename(path + ".part", path)
        return "250 OK"


def context():
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


common = dict(hostname="127.0.0.1", authenticator=authenticator)
starttls = Controller(Handler(), port=port, tls_context=context(), auth_require_tls=True, **common)
# aiosmtpd counts only STARTTLS as TLS for auth_require_tls; this port is TLS throughout.
implicit = Controller(Handler(), port=tls_port, ssl_context=context(), auth_require_tls=False, **common)
starttls.start()
implicit.start()
print(f"listening on {port} (STARTTLS) and {tls_port} (implicit TLS)", flush=True)
try:
    asyncio.get_event_loop().run_forever()
except KeyboardInterrupt:
    pass
PY
}
