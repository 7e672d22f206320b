"""Live conversations: replay the golden user turns with the target's own answers as history.

A conversation's turn ``n`` is asked of the target only once its turns ``1 … n-1`` have
been: their user turns come from the golden file, their assistant turns are what the
target answered (never the golden replies), and the target receives them as
``history=[{role, content}, …]``. Each turn's call is made once per run and timed on its
own; a turn whose own case is not scored in this run (deselected, another shard) is still
asked, unscored, so that the turns after it get the history the target built. A failed
earlier turn is an error of every later turn of its conversation: there is no history to
replay. Single-turn cases pass straight through.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from ..exceptions import TargetFailed
from ..golden.cases import GoldenCase, Message, turn_id
from ..golden.tool_calls import ToolCall

__all__ = ["ConversationReplay"]


class _Answering(Protocol):
    async def answer(self, case: GoldenCase) -> tuple[GoldenCase, float]: ...

    def close(self) -> None: ...


_Reply = tuple[GoldenCase, float] | TargetFailed


class ConversationReplay:
    """Wraps a live target so that a conversation's turns are asked in order.

    Args:
        inner: The target (``LiveTarget`` or the oracle wrapper around it).
    """

    def __init__(self, inner: _Answering) -> None:
        self.inner = inner
        self._replies: dict[tuple[str, str, int], asyncio.Future[_Reply]] = {}

    def __getattr__(self, name: str) -> Any:
        # describe(), kind … of the wrapped target.
        return getattr(self.inner, name)

    async def answer(self, case: GoldenCase) -> tuple[GoldenCase, float]:
        """The case answered by the target, after the conversation's earlier turns."""
        if case.conversation is None or case.turn is None:
            return await self.inner.answer(case)
        asked = [turn.content for turn in case.history if turn.role == "user"]
        history: list[Message] = []
        earlier_calls: list[ToolCall] | None = None
        for number, question in enumerate(asked, 1):
            earlier = case.model_copy(
                update={
                    "id": turn_id(case.conversation, number),
                    "turn": number,
                    "question": question,
                    "answer": None,
                    "contexts": None,
                    "history": list(history),
                }
            )
            reply = await self._reply(earlier)
            if isinstance(reply, TargetFailed):
                first_line = str(reply).splitlines()[0] if str(reply) else "it failed"
                raise TargetFailed(
                    f"turn {number} of conversation {case.conversation!r} ({case.source}) "
                    f"failed, so turn {case.turn} has no history to replay: {first_line}"
                )
            answer = reply[0].answer or ""
            if reply[0].tools_called is not None:
                earlier_calls = [*(earlier_calls or []), *reply[0].tools_called]
            history += [
                Message(role="user", content=question),
                Message(role="assistant", content=answer),
            ]
        own = case.model_copy(update={"history": history})
        reply = await self._reply(own)
        if isinstance(reply, TargetFailed):
            raise reply
        filled, latency = reply
        # The turn's calls are the target's, never the ones the golden file saved; when
        # the expectations are the whole conversation's, so are the calls compared.
        calls = filled.tools_called
        if case.calls_of_conversation and (earlier_calls is not None or calls is not None):
            calls = [*(earlier_calls or []), *(calls or [])]
        # A turn first asked as an earlier turn of another is filled into its own case.
        answered = own.model_copy(
            update={
                "answer": filled.answer,
                "contexts": filled.contexts,
                "metadata": filled.metadata,
                "tools_called": calls,
            }
        )
        return answered, latency

    async def _reply(self, case: GoldenCase) -> _Reply:
        """The target's reply to one turn, asked once: later askers await the first call."""
        assert case.conversation is not None and case.turn is not None
        key = (case.file, case.conversation, case.turn)
        future = self._replies.get(key)
        if future is not None:
            return await asyncio.shield(future)
        future = asyncio.get_running_loop().create_future()
        self._replies[key] = future
        try:
            outcome: _Reply = await self.inner.answer(case)
        except TargetFailed as error:
            outcome = error
        except BaseException:
            del self._replies[key]
            future.cancel()
            raise
        future.set_result(outcome)
        return outcome

    def close(self) -> None:
        """Release the wrapped target."""
        self.inner.close()
