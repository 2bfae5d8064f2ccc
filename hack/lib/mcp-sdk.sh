# The official MCP Python SDK that console-api/tests/mcp.rs drives the MCP
# server with, in a venv under ${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck
# (beside schemathesis's). Source it after common.sh; ensure_mcp_sdk installs
# it once and exports QD_MCP_PYTHON, the python the test runs.

MCP_SDK_VERSION=2.3.0

ensure_mcp_sdk() {
  local venv
  venv=$(python_venv "mcp-$MCP_SDK_VERSION" "mcp==$MCP_SDK_VERSION")
  export QD_MCP_PYTHON="$venv/bin/python"
}
