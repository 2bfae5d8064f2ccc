"""Drives Quarterdeck's MCP server with the official Python SDK (`mcp`).

    python client.py URL < sessions.json > answers.json

The input is a JSON list of sessions, each {"token", "plan"}: one client
connects with the token (Bearer) and runs the plan, a JSON list of steps.
The output is a JSON list with, per session, the negotiated protocol
version, the server's name, and one answer per step.
Steps: {"op": "tools"} lists tools; {"op": "call", "name", "arguments"}
calls one; {"op": "templates"} lists resource templates; {"op": "read",
"uri"} reads a resource; {"op": "prompts"} lists prompts; {"op": "prompt",
"name", "arguments"} gets one. A JSON-RPC error of a step is its answer
({"error": {"code", "message"}}); the test decides what is right.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def step(client, s):
    op = s["op"]
    try:
        if op == "tools":
            return dump(await client.list_tools())
        if op == "call":
            result = await client.call_tool(s["name"], s.get("arguments") or {})
            return {
                "isError": bool(result.is_error),
                "text": "".join(c.text for c in result.content if getattr(c, "text", None) is not None),
            }
        if op == "templates":
            return dump(await client.list_resource_templates())
        if op == "read":
            result = await client.read_resource(s["uri"])
            return {"text": "".join(getattr(c, "text", "") or "" for c in result.contents)}
        if op == "prompts":
            return dump(await client.list_prompts())
        if op == "prompt":
            return dump(await client.get_prompt(s["name"], s.get("arguments") or {}))
    except MCPError as e:
        return {"error": {"code": e.error.code, "message": e.error.message}}
    raise SystemExit(f"unknown step {op!r}")


async def session(url, token, plan):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, raise_exceptions=True) as client:
            answers = [await step(client, s) for s in plan]
            info = client.server_info
            return {
                "protocolVersion": client.protocol_version,
                "server": info.name if info else None,
                "answers": answers,
            }


async def main(url):
    sessions = json.load(sys.stdin)
    json.dump([await session(url, s["token"], s["plan"]) for s in sessions], sys.stdout)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
