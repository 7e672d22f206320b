"""The link to one case's panel in the HTML page, shared by the page and pytest-html's rows.

Standard library only: pytest-html's rows are registered on every gated run, and must
not load the page's renderer (Jinja2 and its templates) to make a link.
"""

from __future__ import annotations

from urllib.parse import quote

__all__ = ["case_anchor"]


def case_anchor(key: str) -> str:
    """The URL fragment that opens a case's panel: ``case=`` and its percent-encoded key.

    >>> case_anchor("golden/qa.jsonl::refund <1>")
    'case=golden%2Fqa.jsonl%3A%3Arefund%20%3C1%3E'
    """
    return "case=" + quote(key, safe="")
