"""Live mode's target adapter: call the RAG system under test and read what it returned.

The target is found once, at start-up, so a typo is a usage error before any case runs:
``live.target: MODULE:FUNCTION`` (or ``--rag-gate-set live.target=…``) names it, else a
conftest's ``pytest_rag_gate_target(config)`` hook returns it. It may be

* a function or any callable, sync or async, taking the question (and the case, when it
  has a ``case`` parameter or a second required positional one);
* a LangChain-style runnable (``ainvoke`` / ``invoke``), used by duck typing;
* a LlamaIndex-style query engine (``aquery`` / ``query``), used by duck typing.

Whatever it returns — a dict, an ``(answer, contexts)`` tuple, a pydantic model or
dataclass, a LangChain output or a LlamaIndex ``Response`` — becomes the case's answer,
its ranked contexts and, for agents, the tool it chose and the tool calls it made
(``tools_called``; a context's ``hop`` names the retrieval call that returned it). This
module never scores: the scheduler asks :meth:`LiveTarget.answer` for the filled-in case
and then runs the case's metrics exactly as in static mode. An exception in the target is
an error of that case only.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib
import inspect
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from ..exceptions import CaseError, ConfigError, TargetFailed
from ..golden.cases import Context, GoldenCase
from ..golden.tool_calls import ToolCall, tool_call_list
from ..metrics.registry import did_you_mean

if TYPE_CHECKING:
    import pytest

__all__ = [
    "LiveTarget",
    "TargetKind",
    "TargetOutput",
    "import_target",
    "normalize_output",
    "resolve_target",
]

TargetKind = Literal["function", "runnable", "query_engine"]

#: Seconds a target call may take unless ``target_timeout`` says otherwise.
DEFAULT_TIMEOUT_S = 60.0

#: Where an answer may sit in a target's output (dict key or attribute), in order.
ANSWER_FIELDS: tuple[str, ...] = ("answer", "response", "result", "output", "content")
#: Where the ranked contexts may sit in a target's output, in order.
CONTEXT_FIELDS: tuple[str, ...] = (
    "contexts",
    "retrieved_contexts",
    "source_documents",
    "context",
    "source_nodes",
)
_TEXT_FIELDS: tuple[str, ...] = ("text", "page_content", "content")
_ID_FIELDS: tuple[str, ...] = ("id", "doc_id", "chunk_id", "node_id", "id_", "source")


@dataclass(frozen=True)
class TargetOutput:
    """What one target call produced, in the case's terms.

    ``tool_reported`` tells an output without a ``tool`` field (tool selection is not
    applicable) from one whose ``tool`` is None (the system chose no tool: a miss).
    """

    answer: str | None
    contexts: list[Context] | None
    tool: str | None = None
    tool_reported: bool = False
    #: The agent's tool calls in order; None when the target returned no ``tools_called``.
    tools_called: list[ToolCall] | None = None

    def fill(self, case: GoldenCase) -> GoldenCase:
        """The case with the target's answer, contexts and tools in place of any saved ones."""
        metadata = {key: value for key, value in case.metadata.items() if key != "tool"}
        if self.tool_reported:
            metadata["tool"] = self.tool
        return case.model_copy(
            update={
                "answer": self.answer,
                "contexts": self.contexts,
                "metadata": metadata,
                "tools_called": self.tools_called,
            }
        )


# --- finding the target -------------------------------------------------------------------


def import_target(spec: str, *, search_paths: Iterable[Path] = ()) -> Any:
    """Import ``MODULE:ATTRIBUTE`` (the attribute may be dotted) and check it is a target.

    Args:
        spec: The target, e.g. ``my_rag.app:answer``.
        search_paths: Directories appended to ``sys.path`` first (the rootdir and the
            invocation directory), so a module beside the golden set imports as it would
            with ``python -m pytest``.

    Returns:
        The target object.

    Raises:
        ConfigError: When the spec is malformed, the module cannot be imported, the
            attribute is missing, or the object is not something live mode can call.

    >>> import_target("os.path:join").__name__
    'join'
    >>> import_target("os.path")
    Traceback (most recent call last):
    ...
    pytest_ragas_gate.exceptions.ConfigError: Live-mode target 'os.path' is not MODULE:FUNCTION (for example my_rag.app:answer); set live.target to that form.
    """  # noqa: E501
    module_name, separator, attribute = spec.strip().partition(":")
    if not separator or not module_name or not attribute:
        raise ConfigError(
            f"Live-mode target {spec!r} is not MODULE:FUNCTION (for example "
            "my_rag.app:answer); set live.target to that form."
        )
    for path in search_paths:
        if str(path) not in sys.path:
            sys.path.append(str(path))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and (
            module_name == error.name or module_name.startswith(error.name + ".")
        ):
            raise ConfigError(
                f"Live-mode target {spec!r} cannot be imported: there is no module named "
                f"{error.name!r}. Run pytest from the directory that holds it, install it, or "
                "add its directory to PYTHONPATH or to pytest's 'pythonpath' setting."
            ) from None
        raise ConfigError(_import_failure(spec, module_name, error)) from None
    except Exception as error:
        raise ConfigError(_import_failure(spec, module_name, error)) from None
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            names = [name for name in dir(target) if not name.startswith("_")]
            hint = did_you_mean(part, names) or "."
            raise ConfigError(
                f"Live-mode target {spec!r} cannot be found: {module_name!r} has no "
                f"attribute {attribute!r}{hint}"
            ) from None
    check_target(target, repr(spec))
    return target


def _import_failure(spec: str, module_name: str, error: BaseException) -> str:
    where = ""
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        where = f" at {frames[-1].filename}:{frames[-1].lineno}"
    return (
        f"Live-mode target {spec!r} cannot be imported: importing {module_name!r} raised "
        f"{type(error).__name__}: {error}{where}. Fix the module, or install what it needs."
    )


def target_kind(target: object) -> TargetKind | None:
    """How live mode calls ``target``, or None when it cannot.

    Runnables and query engines are recognised by their methods, before plain callables,
    so neither library has to be importable here.
    """
    if isinstance(target, type):
        return None
    if _has_method(target, "ainvoke") or _has_method(target, "invoke"):
        return "runnable"
    if _has_method(target, "aquery") or _has_method(target, "query"):
        return "query_engine"
    if callable(target):
        return "function"
    return None


def check_target(target: object, origin: str) -> None:
    """Raise ``ConfigError`` unless live mode can call ``target``.

    Args:
        target: The object found.
        origin: How it was named, for the message.

    Raises:
        ConfigError: When ``target`` is a class or not callable at all.
    """
    if target_kind(target) is not None:
        return
    if isinstance(target, type):
        problem = f"is the class {target.__name__}; name a function or an instance instead"
    else:
        problem = f"is a {type(target).__name__}, which cannot be called"
    raise ConfigError(
        f"Live-mode target {origin} {problem}. Live mode needs a function (sync or async) "
        "taking the question, a LangChain-style runnable (invoke/ainvoke) or a "
        "LlamaIndex-style query engine (query/aquery)."
    )


def resolve_target(
    pytest_config: pytest.Config,
    spec: str | None,
    *,
    max_threads: int = 32,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    hooked: object = None,
) -> LiveTarget | None:
    """The run's live-mode target: the configured one, else the conftest hook's, else None.

    Args:
        pytest_config: The pytest config (for the rootdir and the hook).
        spec: The ``target`` setting (command line or config file).
        max_threads: The most sync target calls at once (the run's concurrency).
        timeout_s: The seconds one call may take (``target_timeout``).
        hooked: What the conftest hook already returned, if the caller asked it.

    Returns:
        The target, or None in static mode.

    Raises:
        ConfigError: When the target cannot be imported or called.
    """
    if spec:
        search_paths = [pytest_config.rootpath, pytest_config.invocation_params.dir]
        found = import_target(spec, search_paths=search_paths)
        return LiveTarget(found, name=spec.strip(), max_threads=max_threads, timeout_s=timeout_s)
    if hooked is None:
        hooked = pytest_config.hook.pytest_rag_gate_target(config=pytest_config)
    if hooked is None:
        return None
    name = f"pytest_rag_gate_target hook ({_describe(hooked)})"
    check_target(hooked, f"returned by the {name}")
    return LiveTarget(hooked, name=name, max_threads=max_threads, timeout_s=timeout_s)


def _describe(target: object) -> str:
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        return f"{module}:{qualname}"
    return type(target).__name__


# --- calling it ---------------------------------------------------------------------------


class LiveTarget:
    """A checked target, called once per case on the scoring event loop.

    Async targets run concurrently on the loop; sync ones in threads, at most as many at
    once as the run's concurrency. Both run under the scheduler's cases-in-flight limit,
    and a call that takes longer than ``timeout_s`` is an error of its case.
    """

    def __init__(
        self,
        target: Any,
        *,
        name: str,
        max_threads: int = 32,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        kind = target_kind(target)
        if kind is None:
            check_target(target, name)
        assert kind is not None
        self.target = target
        self.name = name
        self.kind: TargetKind = kind
        self.max_threads = max(1, max_threads)
        self.timeout_s = timeout_s
        self._call, self.is_async = self._bind()
        self._passes_case = _accepts_case(target) if kind == "function" else False
        self._takes_history = kind == "function" and _accepts_keyword(target, "history")
        self._threads: asyncio.Semaphore | None = None

    def describe(self) -> str:
        """``rag_app:answer (async function)``, for the pytest header."""
        flavour = {"function": "function", "runnable": "runnable", "query_engine": "query engine"}
        return f"{self.name} ({'async' if self.is_async else 'sync'} {flavour[self.kind]})"

    def _bind(self) -> tuple[Callable[..., Any], bool]:
        target = self.target
        if self.kind == "runnable":
            if _has_method(target, "ainvoke"):
                return target.ainvoke, True
            return target.invoke, False
        if self.kind == "query_engine":
            if _has_method(target, "aquery"):
                return target.aquery, True
            return target.query, False
        call = getattr(target, "__call__", None)  # noqa: B004 - the bound method itself
        is_async = inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(call)
        return target, is_async

    def _arguments(self, case: GoldenCase) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if case.history and not (self._takes_history or self._passes_case):
            # A follow-up ("and the second one?") means nothing without the turns before it.
            raise CaseError(
                f"target {self.name} takes no history= parameter, so it cannot answer turn "
                f"{case.turn} of conversation {case.conversation!r} ({case.source}); give it "
                "a history parameter (a list of {role, content} turns) or a case parameter "
                "(case.history)."
            )
        extra: dict[str, Any] = {}
        if self._takes_history and case.conversation is not None:
            extra["history"] = [turn.model_dump() for turn in case.history]
        if self.kind == "runnable":
            return (_runnable_input(self.target, case.question),), {}
        if not self._passes_case:
            return (case.question,), extra
        if self._passes_case == "keyword":
            return (case.question,), {"case": case, **extra}
        return (case.question, case), extra

    async def call(
        self, case: GoldenCase, *, contexts: Sequence[str] | None = None
    ) -> tuple[TargetOutput, float]:
        """Call the target for ``case``; returns its output and the call's seconds.

        ``contexts`` (oracle retrieval) are handed over as the ``contexts=`` keyword.

        Raises:
            Exception: Whatever the target raised, or ``CaseError`` for an output that
                cannot be read.
        """
        args, kwargs = self._arguments(case)
        if contexts is not None:
            kwargs = {**kwargs, "contexts": list(contexts)}
        if self.is_async:
            started = time.perf_counter()
            value = await self._call(*args, **kwargs)
            latency = time.perf_counter() - started
        else:
            value, latency = await self._in_thread(args, kwargs)
            if inspect.isawaitable(value):
                started = time.perf_counter()
                value = await value
                latency += time.perf_counter() - started
        return normalize_output(value, case), latency

    async def _in_thread(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, float]:
        if self._threads is None:
            self._threads = asyncio.Semaphore(self.max_threads)
        async with self._threads:
            return await _in_daemon_thread(self._call, args, kwargs)

    async def answer(
        self, case: GoldenCase, *, contexts: Sequence[str] | None = None
    ) -> tuple[GoldenCase, float]:
        """The case with the target's answer, contexts and tool, and the call's seconds.

        With ``contexts`` (oracle retrieval) the target is called with them as
        ``contexts=`` instead of retrieving.

        Raises:
            TargetFailed: When the target raised (the message carries the target's own
                part of the traceback), took longer than ``timeout_s``, returned something
                that cannot be read, or returned no answer; each is this case's error,
                never a score, and carries the call's seconds for the latency figures.
        """
        started = time.perf_counter()
        try:
            output, latency = await asyncio.wait_for(
                self.call(case, contexts=contexts), timeout=self.timeout_s
            )
        except asyncio.CancelledError:
            raise
        except (asyncio.TimeoutError, TimeoutError) as error:
            elapsed = time.perf_counter() - started
            if elapsed < self.timeout_s:
                # The target's own timeout (say, an HTTP client's), not ours.
                raise TargetFailed(self._error_text(case, error), seconds=elapsed) from None
            raise TargetFailed(
                f"target {self.name} did not answer case {case.id!r} ({case.source}) within "
                f"{self.timeout_s:g}s (live.timeout); the call was abandoned. Raise "
                "live.timeout in the config if the system is that slow.",
                seconds=elapsed,
            ) from None
        except Exception as error:
            raise TargetFailed(
                self._error_text(case, error), seconds=time.perf_counter() - started
            ) from None
        if output.answer is None or not output.answer.strip():
            shown = "None" if output.answer is None else repr(output.answer)
            raise TargetFailed(
                f"target {self.name} returned no answer for case {case.id!r} ({case.source}): "
                f"the answer is {shown}. The answer-based metrics cannot score nothing; return "
                "the answer as non-empty text (or raise when the system cannot answer).",
                seconds=latency,
            )
        return output.fill(case), latency

    def _error_text(self, case: GoldenCase, error: Exception) -> str:
        if isinstance(error, CaseError):
            return str(error)
        summary = f"target {self.name} raised {type(error).__name__}: {error}".rstrip(": ")
        trace = "".join(
            traceback.format_exception(type(error), error, _user_frames(error.__traceback__))
        )
        return f"{summary} (case {case.id!r}, {case.source})\n\n{trace.rstrip()}"

    def close(self) -> None:
        """Forget the threads; a call still hung in one is abandoned, never waited for."""
        self._threads = None


async def _in_daemon_thread(
    call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, float]:
    """``call(*args, **kwargs)`` in a daemon thread, and its seconds.

    A daemon thread, not a pool's: a call that hangs past ``target_timeout`` (or past
    Ctrl-C) must not hold pytest's exit until it returns, as a pool's threads are joined
    at interpreter exit.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[tuple[Any, float]] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: tuple[Any, float] | BaseException) -> None:
        if done.done():  # abandoned: timed out or cancelled
            return
        if isinstance(outcome, BaseException):
            done.set_exception(outcome)
        else:
            done.set_result(outcome)

    def run() -> None:
        # Timed inside the thread so the wait for a free thread is not the target's latency.
        started = time.perf_counter()
        outcome: tuple[Any, float] | BaseException
        try:
            outcome = (context.run(call, *args, **kwargs), time.perf_counter() - started)
        except BaseException as error:  # handed to the awaiting case, whatever it is
            outcome = error
        try:
            loop.call_soon_threadsafe(settle, outcome)
        except RuntimeError:  # the loop closed while the call hung: nobody is waiting
            pass

    threading.Thread(target=run, name="rag-gate-target", daemon=True).start()
    return await done


def _user_frames(trace: TracebackType | None) -> TracebackType | None:
    """The traceback from the first frame after this module's own, i.e. the target's."""
    start = trace
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == __file__:
            start = trace.tb_next
        trace = trace.tb_next
    return start


def _has_method(target: object, name: str) -> bool:
    return callable(getattr(target, name, None))


def _accepts_case(function: Callable[..., Any]) -> Literal["keyword", "positional", False]:
    """How to hand the case over: a ``case`` parameter, a second required one, or not."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False
    parameters = list(signature.parameters.values())
    named = signature.parameters.get("case")
    if named is not None and named.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    ):
        return "keyword"
    positional = [
        parameter
        for parameter in parameters
        if parameter.kind
        in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    # A second parameter with a default is an option of the target (top_k=5), not the case.
    # Nor is a second parameter that names what the gate passes by keyword (history=).
    if (
        len(positional) >= 2
        and positional[1].default is inspect.Parameter.empty
        and positional[1].name not in ("history", "contexts")
    ):
        return "positional"
    return False


def _accepts_keyword(function: Callable[..., Any], name: str) -> bool:
    """Whether ``function`` takes ``name=`` (by name, or through ``**kwargs``)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False
    parameter = signature.parameters.get(name)
    if parameter is not None:
        return parameter.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        )
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())


def _runnable_input(runnable: object, question: str) -> Any:
    """A legacy chain with one input key gets ``{key: question}``; a runnable the string."""
    keys = getattr(runnable, "input_keys", None)
    if isinstance(keys, (list, tuple)) and len(keys) == 1 and isinstance(keys[0], str):
        return {keys[0]: question}
    return question


# --- reading what it returned -------------------------------------------------------------

_MISSING = object()


def normalize_output(value: Any, case: GoldenCase) -> TargetOutput:
    """Read a target's return value as answer, ranked contexts and tool.

    Args:
        value: A string (the answer), an ``(answer, contexts)`` tuple, a mapping, or an
            object (pydantic model, dataclass, LangChain message, LlamaIndex response)
            with the fields of :data:`ANSWER_FIELDS` and :data:`CONTEXT_FIELDS`.
        case: The case, for error messages.

    Returns:
        The output in the case's terms.

    Raises:
        CaseError: When nothing in ``value`` reads as an answer or contexts.

    >>> case = GoldenCase(id="c", question="Q?", file="golden.jsonl", line=1)
    >>> out = normalize_output({"answer": "A.", "contexts": ["one", {"id": "d2", "text": "two"}]}, case)
    >>> out.answer, [(c.id, c.text) for c in out.contexts]
    ('A.', [(None, 'one'), ('d2', 'two')])
    >>> normalize_output(("A.", ["one"]), case).contexts[0].text
    'one'
    """  # noqa: E501
    if isinstance(value, str):
        return TargetOutput(answer=value, contexts=None)
    if isinstance(value, tuple):
        if len(value) != 2:
            raise CaseError(
                f"The target returned a tuple of {len(value)} items for case {case.id!r} "
                f"({case.source}); expected (answer, contexts)."
            )
        return TargetOutput(answer=_answer_text(value[0], case), contexts=_contexts(value[1], case))
    raw_answer = _first_field(value, ANSWER_FIELDS)
    raw_contexts = _first_field(value, CONTEXT_FIELDS)
    if raw_answer is _MISSING and raw_contexts is _MISSING:
        shown = (
            f"a mapping with keys {sorted(map(str, value))}"
            if isinstance(value, Mapping)
            else f"a {type(value).__name__}"
        )
        raise CaseError(
            f"The target returned {shown} for case {case.id!r} ({case.source}), with no "
            f"answer ({', '.join(ANSWER_FIELDS)}) and no contexts "
            f"({', '.join(CONTEXT_FIELDS)}); return a dict, an (answer, contexts) tuple, "
            "or an object with those fields."
        )
    raw_tool = _first_field(value, ("tool",))
    raw_calls = _first_field(value, ("tools_called",))
    return TargetOutput(
        answer=None if raw_answer is _MISSING else _answer_text(raw_answer, case),
        contexts=None if raw_contexts is _MISSING else _contexts(raw_contexts, case),
        tool=None if raw_tool is _MISSING else _tool_name(raw_tool, case),
        tool_reported=raw_tool is not _MISSING,
        tools_called=None if raw_calls is _MISSING else _tool_calls(raw_calls, case),
    )


def _first_field(value: Any, names: Sequence[str]) -> Any:
    for name in names:
        if isinstance(value, Mapping):
            if name in value:
                return value[name]
        else:
            found = getattr(value, name, _MISSING)
            if found is not _MISSING and not callable(found):
                return found
    return _MISSING


def _answer_text(value: Any, case: GoldenCase) -> str | None:
    """The answer as text; chat messages and nested responses are unwrapped."""
    if value is None or isinstance(value, str):
        return value
    for name in ("content", "response", "answer", "text"):
        inner = value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)
        if isinstance(inner, str):
            return inner
    raise CaseError(
        f"The target's answer for case {case.id!r} ({case.source}) is a "
        f"{type(value).__name__}, not text; return the answer as a string."
    )


def _contexts(value: Any, case: GoldenCase) -> list[Context] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise CaseError(
            f"The target's contexts for case {case.id!r} ({case.source}) are a "
            f"{type(value).__name__}; return them as a list in rank order."
        )
    return [_context(item, rank, case) for rank, item in enumerate(value, start=1)]


def _context(item: Any, rank: int, case: GoldenCase) -> Context:
    """One chunk: a string, a mapping, a Document (``page_content``) or a node."""
    if isinstance(item, str):
        return Context(text=item)
    node = getattr(item, "node", None)
    if node is not None and not isinstance(item, Mapping):
        # A scored node wraps the node that carries the text and the id.
        item = node
    text = _field_text(item, _TEXT_FIELDS)
    if text is None and _has_method(item, "get_content"):
        content = item.get_content()
        text = content if isinstance(content, str) else None
    if text is None:
        raise CaseError(
            f"The target's context at rank {rank} for case {case.id!r} ({case.source}) is a "
            f"{type(item).__name__} with no text; give each context as a string, a dict "
            "with 'text', a Document with page_content, or a node with get_content()."
        )
    identifier = _field_text(item, _ID_FIELDS, allow_numbers=True)
    if identifier is None:
        metadata = (
            item.get("metadata") if isinstance(item, Mapping) else getattr(item, "metadata", None)
        )
        if isinstance(metadata, Mapping):
            identifier = _field_text(metadata, _ID_FIELDS, allow_numbers=True)
    hop = item.get("hop") if isinstance(item, Mapping) else getattr(item, "hop", None)
    if hop is not None and (isinstance(hop, bool) or not isinstance(hop, int) or hop < 1):
        raise CaseError(
            f"The target's context at rank {rank} for case {case.id!r} ({case.source}) has "
            f"hop {hop!r}; give the 1-based number of the retrieval call that returned it."
        )
    return Context(id=identifier, text=text, hop=hop)


def _field_text(item: Any, names: Sequence[str], *, allow_numbers: bool = False) -> str | None:
    for name in names:
        value = item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
        if isinstance(value, str) and value:
            return value
        if allow_numbers and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return None


def _tool_name(value: Any, case: GoldenCase) -> str | None:
    """The chosen tool's name; a tool object or mapping gives its ``name``."""
    if value is None or isinstance(value, str):
        return value
    name = value.get("name") if isinstance(value, Mapping) else getattr(value, "name", None)
    if isinstance(name, str):
        return name
    raise CaseError(
        f"The target's tool for case {case.id!r} ({case.source}) is a "
        f"{type(value).__name__}; return the tool's name as a string."
    )


#: The attributes of a tool-call object (DeepEval's ``ToolCall``, a dataclass …) read as one.
_CALL_ATTRIBUTES = ("name", "input_parameters", "arguments", "output", "description", "reasoning")


def _tool_calls(value: Any, case: GoldenCase) -> list[ToolCall] | None:
    """The agent's calls in order: names, mappings or objects shaped like DeepEval's ToolCall."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise CaseError(
            f"The target's tools_called for case {case.id!r} ({case.source}) are a "
            f"{type(value).__name__}; return them as a list of calls in the order made."
        )
    items = [
        item
        if isinstance(item, (str, Mapping))
        else {
            name: getattr(item, name)
            for name in _CALL_ATTRIBUTES
            if getattr(item, name, None) is not None
        }
        for item in value
    ]
    errors: list[str] = []
    calls = tool_call_list("tools_called", items, errors)
    if errors:
        raise CaseError(
            f"The target's tools_called for case {case.id!r} ({case.source}): {errors[0]}."
        )
    return calls
