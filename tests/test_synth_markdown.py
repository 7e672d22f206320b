"""rag-gate synth reads docs-site Markdown as its flavours mean it, through markdown-it-py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.synth.documents import read_documents

VITEPRESS = """\
---
title: Backup schedules
description: How snapshots are taken.
---

# Overview {#overview}

Snapshots of the Harbor database run every 6 hours.

::: warning 警告
Unless the host is sandboxed, snapshots also copy the upload cache.
:::

## Retention <Badge type="tip" text="beta" />

Snapshots are kept for 14 days.

| Plan | Days |
|------|------|
| Team | 14   |

[[toc]]
"""

MKDOCS = """\
# Uploads

Uploads are retried 3 times before the client gives up.

!!! note "Large files"
    Files above 2 GB are split into parts of 64 MB.

??? tip
    The part size cannot be changed.

Term
:   A definition list term is described here at length.
"""

DOCUSAURUS = """\
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

# Installing Harbor

Harbor needs Python 3.10 or newer on every node.

:::tip[Before you start]

Harbor runs on Linux and macOS only.

:::

<Tabs>
<TabItem value="pip" label="pip">

The pip package is named harbor-server on the package index.

</TabItem>
</Tabs>

> [!NOTE]
> The installer never changes the system Python.
"""

HUGO = """\
+++
title = "Menus"
lang = "en"
+++

{{< new-in 0.130.0 >}}

Hugo menus are defined in the site configuration file.

{{% note %}}
A page may belong to several menus at once.
{{% /note %}}
"""

ZH = """\
---
title: 路由
---

# 基于文件的路由 {#file-based-routing}

VitePress 使用基于文件的路由，生成的页面与源文件的目录结构一一对应。

::: tip 注意
链接中的 `base` 会自动添加。
:::
"""


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _prose(text: str, name: str, tmp_path: Path) -> tuple[str, list[str], list[str]]:
    document = read_documents([str(_write(tmp_path / "docs", {name: text}))])[0]
    return (
        document.title,
        [block.text for block in document.prose if not block.heading],
        [block.text for block in document.prose if block.heading],
    )


def test_vitepress_page_front_matter_title_anchor_and_container(tmp_path: Path) -> None:
    title, paragraphs, headings = _prose(VITEPRESS, "backups.md", tmp_path)
    assert title == "Backup schedules"  # front matter, not the first heading "Overview"
    assert headings == ["Overview", "Retention"]  # no {#overview}, no badge
    # The warning stays with the statement it qualifies, without its marker or label.
    assert paragraphs[0] == (
        "Snapshots of the Harbor database run every 6 hours. "
        "Unless the host is sandboxed, snapshots also copy the upload cache."
    )
    assert paragraphs[1:] == ["Snapshots are kept for 14 days."]  # table and [[toc]] out
    text = " ".join(paragraphs)
    assert ":::" not in text and "警告" not in text and "{#" not in text


def test_mkdocs_admonitions_and_definition_lists(tmp_path: Path) -> None:
    title, paragraphs, _ = _prose(MKDOCS, "uploads.md", tmp_path)
    assert title == "Uploads"
    assert paragraphs == [
        "Uploads are retried 3 times before the client gives up. "
        "Files above 2 GB are split into parts of 64 MB.",
        "The part size cannot be changed.",
        "Term",
        "A definition list term is described here at length.",
    ]


def test_docusaurus_mdx_components_dropped_and_their_prose_kept(tmp_path: Path) -> None:
    title, paragraphs, _ = _prose(DOCUSAURUS, "install.mdx", tmp_path)
    assert title == "Installing Harbor"
    assert paragraphs == [
        "Harbor needs Python 3.10 or newer on every node. Harbor runs on Linux and macOS only.",
        # A GitHub alert qualifies the statement before it.
        "The pip package is named harbor-server on the package index. "
        "The installer never changes the system Python.",
    ]


def test_hugo_toml_front_matter_and_shortcodes(tmp_path: Path) -> None:
    title, paragraphs, _ = _prose(HUGO, "menus.md", tmp_path)
    assert title == "Menus"
    assert paragraphs == [
        "Hugo menus are defined in the site configuration file. "
        "A page may belong to several menus at once."
    ]


def test_chinese_page_anchor_and_container_label_left_out(tmp_path: Path) -> None:
    title, paragraphs, headings = _prose(ZH, "routing.md", tmp_path)
    assert (title, headings) == ("路由", ["基于文件的路由"])
    assert paragraphs == [
        "VitePress 使用基于文件的路由，生成的页面与源文件的目录结构一一对应。"
        "链接中的 `base` 会自动添加。"
    ]


def test_title_falls_back_to_first_h1_then_file_name(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "docs",
        {
            "a.md": "## Usage\n\nThe tool reads 3 files.\n\n# Real title\n\nMore text here.\n",
            "retry_rules.md": "## Usage\n\nThe tool retries 3 times before it stops.\n",
        },
    )
    titles = {document.key: document.title for document in read_documents([str(folder)])}
    assert titles == {"a.md": "Real title", "retry_rules.md": "Retry rules"}


def test_bad_front_matter_names_file_and_line(tmp_path: Path) -> None:
    folder = _write(tmp_path / "docs", {"bad.md": "---\ntitle: [unclosed\n---\n\nText.\n"})
    with pytest.raises(Exception) as raised:
        read_documents([str(folder)])
    message = str(raised.value)
    assert "bad.md:" in message and "front matter is not YAML" in message


def _synth(tmp_path: Path, docs: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / "golden.jsonl"
    status = main(["synth", str(docs), "-o", str(out), "--judge", "offline", *extra])
    rows = (
        [json.loads(line) for line in out.read_text("utf-8").splitlines()] if out.exists() else []
    )
    return status, rows


def test_licence_changelog_and_code_files_give_no_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    statement = "The Harbor server keeps snapshots for 14 days and runs them every 6 hours.\n"
    docs = _write(
        tmp_path / "docs",
        {
            "LICENSE.md": "# Harbor terms\n\n" + statement,
            "CHANGES.rst": "Harbor\n======\n\n" + statement,
            "example.py.txt": statement,
            "guide.md": VITEPRESS,
        },
    )
    status, rows = _synth(tmp_path, docs, "--n", "8", "--mix", "single=1")
    assert status == 0, capsys.readouterr().err
    tags = {tag for row in rows for tag in row["tags"] if tag.endswith((".md", ".rst", ".txt"))}
    assert rows and tags == {"guide.md"}
    questions = " ".join(row["question"] for row in rows)
    assert "{#" not in questions and ":::" not in questions and "Overview" not in questions


SPHINX = """\
.. _sessions:

Sessions
========

.. module:: harbor.sessions

A :class:`~harbor.Session` keeps cookies for 14 days, see :ref:`the API <api>`.

.. note:: Unless the session is closed first.

.. versionadded:: 2.1
   Sessions can be shared between threads.

.. autoclass:: harbor.Session
   :members:

.. toctree::

   api
"""


def test_sphinx_roles_read_as_text_and_directives_without_prose_left_out(
    tmp_path: Path,
) -> None:
    pytest.importorskip("docutils")
    title, paragraphs, _ = _prose(SPHINX, "sessions.rst", tmp_path)
    assert title == "Sessions"
    assert paragraphs == [
        "A `Session` keeps cookies for 14 days, see the API. Unless the session is closed first.",
        "Sessions can be shared between threads.",
    ]


def test_a_short_admonition_still_qualifies_its_statement(tmp_path: Path) -> None:
    page = (
        "# Uploads\n\nUploads are retried 3 times before they fail.\n\n"
        ":::caution\nUnless sandboxed.\n:::\n"
    )
    _, paragraphs, _ = _prose(page, "uploads.md", tmp_path)
    assert paragraphs == ["Uploads are retried 3 times before they fail. Unless sandboxed."]
