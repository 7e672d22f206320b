"""Small corpora for the rag-gate synth tests, written by the tests themselves."""

from __future__ import annotations

from pathlib import Path


def pdf_bytes(pages: list[list[str]], title: str | None = None) -> bytes:
    """A PDF with one text line per entry of each page (Helvetica), written by hand.

    A page given as an empty list has no text at all (an image-only scan looks like this).
    """
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    font = 3
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for lines in pages:
        commands = ["BT /F1 11 Tf 14 TL 72 740 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            commands.append(f"({escaped}) Tj T*")
        commands.append("ET")
        stream = "\n".join(commands).encode("latin-1") if lines else b""
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (content, font)
        )
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    info = None
    if title is not None:
        objects.append(b"<< /Title (%s) >>" % title.encode("latin-1"))
        info = len(objects)
    body = b"%PDF-1.4\n"
    offsets = []
    for number, content_bytes in enumerate(objects, 1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + content_bytes + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    body += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"<< /Size %d /Root 1 0 R" % (len(objects) + 1)
    if info is not None:
        trailer += b" /Info %d 0 R" % info
    body += b"trailer\n" + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return body


RAIL_GUIDE = """\
# River Valley Rail: passenger guide

## Tickets

Single tickets are valid for 3 hours after purchase. Day passes are valid for 24 hours
from the first journey. It costs $4 to replace a lost card.

## History

The line was founded by Anna Berg. The first station was opened in 1921. The company
archive is stored in Geneva.
The night service was stopped because the old carriages were too loud for residents.

## Bikes

A folding bike is a bicycle that folds to the size of a suitcase. Folding bikes travel
free on every train.
"""

RAIL_CARDS = """\
# River Valley Rail: cards

## Season cards

Season cards are valid for 30 days and cost $90. Single tickets can also be loaded onto
a season card. Season cards must be renewed at a ticket office.
"""

RAIL_ZH = """\
# 河谷铁路乘客指南

## 车票

单程票在购买后3小时内有效。日票自首次乘车起24小时内有效。

## 历史

该线路由河谷交通公司运营。公司档案保存在日内瓦。
"""


def write_rail_corpus(folder: Path) -> Path:
    """English and Chinese rail documents with amounts, dates, names, places and causes."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "guide.md").write_text(RAIL_GUIDE, encoding="utf-8")
    (folder / "cards.md").write_text(RAIL_CARDS, encoding="utf-8")
    (folder / "zh").mkdir(exist_ok=True)
    (folder / "zh" / "指南.md").write_text(RAIL_ZH, encoding="utf-8")
    return folder
