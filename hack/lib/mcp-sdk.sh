# The official MCP Python SDK that console-api/tests/mcp.rs drives the MCP
# server with, in a venv under ${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck
# (beside schemathesis's). Source it after common.sh; ensure_mcp_sdk installs
# it once and exports QD_MCP_PYTHON, the python the test runs.

MCP_SDK_VERSION=2.3.0

ensure_mcp_sdk() {
  local venv="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/mcp-$MCP_SDK_VERSION"
  if [ ! -f "$venv/.complete" ]; then
    say "installing the MCP Python SDK $MCP_SDK_VERSION into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_SDK_VERSION"
    touch "$venv/.complete"
  fi
  export QD_MCP_PYTHON="$venv/bin/python"
}
