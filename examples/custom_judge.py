"""``--rag-gate-judge mycorp``: a team's HTTP evaluation service as a judge (docs/judges.md)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

import pytest_ragas_gate as rg


class EvaluationServiceJudge:
    """POSTs ``{model, messages, schema}`` to ``/v1/evaluate``; gets ``{output, usage}``."""

    kind = "mycorp"
    capabilities = rg.JudgeCapabilities(structured_output=("json_schema",))

    def __init__(self, setup: rg.JudgeSetup, url: str, token: str | None) -> None:
        self.model, self.setup, self.url = setup.model or "eval-1", setup, url
        self.headers = {"content-type": "application/json"}
        self.headers |= {"authorization": f"Bearer {token}"} if token else {}

    def post(self, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode()
        call = urllib.request.Request(f"{self.url}/v1/evaluate", data, self.headers)
        try:
            with urllib.request.urlopen(call, timeout=self.setup.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise rg.JudgeError(f"The mycorp service answered HTTP {error.code}") from None
        except (OSError, ValueError) as error:
            raise rg.JudgeError(f"The mycorp service failed: {type(error).__name__}") from None

    async def ask(self, request: rg.JudgeRequest[Any], *, context: rg.AskContext) -> rg.Answer[Any]:
        async def send(call: rg.ModelCall) -> rg.ModelReply:
            body = {"model": self.model, "messages": call.messages, "schema": call.schema}
            data = await asyncio.to_thread(self.post, body)
            output, usage = data.get("output"), data.get("usage") or {}
            tokens = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
            return rg.ModelReply(output if isinstance(output, dict) else None, str(output), *tokens)

        return await rg.valid_answer(request, send, max_reasks=self.setup.max_reasks)

    async def embed(self, texts: Sequence[str], *, context: rg.AskContext) -> rg.Embedded:
        raise rg.JudgeError("The mycorp service has no embeddings.")

    async def aclose(self) -> None:
        """Nothing to close: each call opens its own connection."""


def factory(setup: rg.JudgeSetup) -> EvaluationServiceJudge:
    url = setup.variable("MYCORP_EVAL_URL")
    if url is None:
        raise ValueError("set MYCORP_EVAL_URL to the evaluation service's address")
    return EvaluationServiceJudge(setup, url.rstrip("/"), setup.variable("MYCORP_EVAL_TOKEN"))
