"""The keyless writer's drafts a reviewer keeps: standalone questions, exact references,
prose found where it is, every kind asked for or a plain "could not", more with --n."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.synth.offline import OfflineSynthJudge
from pytest_ragas_gate.synth.requests import Candidate, CritiqueQuestions, SynthTurn


def run(
    tmp_path: Path, docs: Path, *extra: str, out_name: str = "golden.jsonl"
) -> tuple[int, list[dict[str, Any]], list[dict[str, Any]]]:
    out, chunks = tmp_path / out_name, tmp_path / f"chunks-{out_name}"
    status = main(
        [
            "synth",
            str(docs),
            "-o",
            str(out),
            "--judge",
            "offline",
            "--cache",
            "off",
            "--chunks-out",
            str(chunks),
            "--chunk-tokens",
            "80",
            *extra,
        ]
    )
    rows = (
        [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        if out.exists()
        else []
    )
    chunk_rows = [json.loads(line) for line in chunks.read_text(encoding="utf-8").splitlines()]
    return status, rows, chunk_rows


def folder(tmp_path: Path, files: dict[str, str]) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


HARBOR = """\
The harbor museum opened in 1987 in the old customs house. The museum keeps a fleet of
twelve historic boats. Guided tours last 45 minutes. A day pass costs $14.

The Sea Dragon was built in 1846 in Bristol. But now the Sea Dragon is moored at pier 3
for restoration. After all, the Sea Dragon sails twice a year because its hull is fragile.

Such boats can be boarded for up to 20 minutes. Its deck is closed in winter.
"""


def test_discourse_openers_are_stripped_from_questions(tmp_path: Path) -> None:
    ferry = (
        "# Ferry\n\nIn that case, the harbor ferry waits for 10 minutes.\n\n"
        "But now the Sea Dragon is moored at pier 3 for restoration.\n"
    )
    _, rows, _ = run(tmp_path, folder(tmp_path, {"ferry.md": ferry}), "--n", "4")

    questions = [row["question"] for row in rows]
    for question in questions:
        assert not re.search(r"\b(?:but now|in that case|after all)\b", question, re.I), question
    assert any(q.lower().endswith("how long does the harbor ferry wait?") for q in questions)
    assert "What is the Sea Dragon moored at?" in questions


@pytest.mark.slow
def test_a_dangling_such_or_its_gives_no_question(tmp_path: Path) -> None:
    _, rows, _ = run(tmp_path, folder(tmp_path, {"harbor_museum.txt": HARBOR}), "--n", "12")

    for row in rows:
        assert not re.search(r"\b(?:such|its)\b", row["question"], re.I), row["question"]


def test_the_critic_drops_dangling_and_empty_questions(tmp_path: Path) -> None:
    chunk = (
        "Uploads\nSuch files can be up to 4 GB. The OpenSSH server uses the file /etc/keys to "
        "restrict clients. The spec allows three retries."
    )
    candidates = [
        Candidate(kind="single", question=question, reference=reference, chunks=[0])
        for question, reference in [
            ("How large can such files be?", "Such files can be up to 4 GB."),
            ("What does the OpenSSH server use?", "The OpenSSH server uses the file /etc/keys."),
            ("How many retries does the spec allow?", "The spec allows three retries."),
        ]
    ]
    verdicts = OfflineSynthJudge([chunk]).critique(
        CritiqueQuestions(chunks=[chunk], titles=["Skyfile"], candidates=candidates)
    )

    assert [verdict.keep for verdict in verdicts.verdicts] == [False, False, False]
    assert [verdict.problem for verdict in verdicts.verdicts] == [
        "not_standalone",
        "trivial",
        "not_standalone",
    ]


def test_a_light_verb_question_whose_point_is_in_the_answer_is_not_written(
    tmp_path: Path,
) -> None:
    text = (
        "# Tunnels\n\nThe OpenSSH server simply uses the file ~/.ssh/authorized_keys to "
        "restrict the client. Most cache types will use atomic replacement.\n\n"
        "The tunnel device is created by the Foo daemon.\n"
    )
    _, rows, _ = run(tmp_path, folder(tmp_path, {"tun.md": text}), "--n", "6")

    for row in rows:
        assert not re.search(r"\bwhat (?:does|will) .* use\?$", row["question"], re.I)


def test_a_file_without_a_title_is_named_by_its_stem_as_words(tmp_path: Path) -> None:
    _, rows, chunks = run(tmp_path, folder(tmp_path, {"harbor_museum.txt": HARBOR}), "--n", "12")

    assert {chunk["title"] for chunk in chunks} == {"Harbor museum"}
    assert not any("harbor_museum" in row["question"] for row in rows)


def test_the_reference_is_the_answering_clause_not_the_whole_sentence(tmp_path: Path) -> None:
    text = (
        "# Plans\n\nThe Solo plan costs $6 per month, while the Team plan adds shared folders "
        "for every member.\n"
    )
    _, rows, _ = run(tmp_path, folder(tmp_path, {"plans.md": text}), "--n", "2")

    solo = [row for row in rows if "Solo plan cost" in row["question"]]
    assert solo and solo[0]["reference"] == "The Solo plan costs $6 per month."


def test_a_chinese_reference_is_split_on_clause_punctuation(tmp_path: Path) -> None:
    text = (
        "# 票务\n\n年票在购买后14天内可以退款，月票不退款。日票的价格是30元，季票的价格是200元。\n"
    )
    _, rows, _ = run(tmp_path, folder(tmp_path, {"票务.md": text}), "--n", "3", "--kinds", "single")

    references = {row["question"]: row["reference"] for row in rows}
    assert references
    for question, reference in references.items():
        # One clause answers; the sibling clause of the same sentence is not copied in.
        assert reference.count("，") == 0, (question, reference)
    assert "季票的价格是200元。" in references.values()


def test_link_density_not_a_class_name_makes_navigation(tmp_path: Path) -> None:
    page = (
        "<html><head><title>Harbor guide</title></head><body>"
        '<div class="toctree-wrapper compound"><h2>Boats</h2>'
        "<p>The Sea Dragon was built in 1846 in Bristol. Guided tours last 45 minutes.</p>"
        "</div>"
        '<div class="body"><ul><li><a href="a.html">Boats</a></li><li><a href="b.html">Tours'
        '</a></li><li><a href="c.html">Tickets and opening hours</a></li></ul></div>'
        "</body></html>"
    )
    status, rows, chunks = run(tmp_path, folder(tmp_path, {"guide.html": page}), "--n", "3")

    assert status == 0 and rows
    text = "\n".join(chunk["text"] for chunk in chunks)
    assert "Sea Dragon" in text and "Tickets and opening hours" not in text


def test_templates_and_exercise_steps_are_left_out(tmp_path: Path, capsys: Any) -> None:
    text = (
        "# Messages\n\nThe job started at @REALTIME@ and will take @DURATION@ minutes.\n\n"
        "Hello {{ user.name }}, your plan renews in 30 days.\n\n"
        "Exercise 3: write a loop that prints the numbers 1 to 10 and run it twice.\n\n"
        "Backups are kept for 90 days on the Team plan.\n"
    )
    _, _, chunks = run(tmp_path, folder(tmp_path, {"messages.md": text}), "--n", "2")

    corpus = "\n".join(chunk["text"] for chunk in chunks)
    assert "@REALTIME@" not in corpus and "{{" not in corpus and "Exercise 3" not in corpus
    assert "Backups are kept for 90 days" in corpus
    assert "template 2" in capsys.readouterr().out


def test_a_kind_the_corpus_cannot_support_is_named_with_its_reason_and_the_rest_written(
    tmp_path: Path, capsys: Any
) -> None:
    text = (
        "# Museum\n\nThe harbor museum is run by the Port Trust. Guided tours start at the pier.\n"
    )
    status, rows, _ = run(
        tmp_path, folder(tmp_path, {"museum.md": text}), "--n", "4", "--kinds", "single,reasoning"
    )

    out = capsys.readouterr().out
    assert status == 0 and rows
    assert {row["tags"][1] for row in rows} == {"single"}
    assert re.search(
        r"short: reasoning 0/2: could not — no document states two comparable amounts or dates",
        out,
    )
    assert re.search(r"the documents offer \d+ facts", out)


def test_reasoning_compares_two_dates_of_one_document_across_its_chunks(tmp_path: Path) -> None:
    status, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"harbor_museum.txt": HARBOR}),
        "--n",
        "2",
        "--kinds",
        "reasoning",
    )

    assert status == 0 and rows
    dated = [row for row in rows if "1987" in row["reference"] and "1846" in row["reference"]]
    assert dated, [row["question"] for row in rows]
    assert "141 years" in dated[0]["reference"]
    assert len({i.split("#")[0] for i in dated[0]["relevant_context_ids"]}) == 1


def test_a_conversation_follow_up_never_asks_what_turn_one_answered() -> None:
    chunk = "Passes\nDay passes are valid for 24 hours. Day passes cost $9."
    candidate = Candidate(
        kind="conversation",
        question="How long are day passes valid?",
        reference="Day passes are valid for 24 hours.",
        chunks=[0],
        follow_ups=[
            SynthTurn(
                question="And how long do they last?",
                reference="Day passes are valid for 24 hours.",
                chunks=[0],
            )
        ],
    )
    verdict = (
        OfflineSynthJudge([chunk])
        .critique(CritiqueQuestions(chunks=[chunk], titles=["Rail"], candidates=[candidate]))
        .verdicts[0]
    )

    assert not verdict.keep and verdict.problem == "trivial"


@pytest.mark.slow
@pytest.mark.parametrize("sizes", [(4, 8, 16)])
def test_yield_rises_with_n_until_the_corpus_runs_out(
    tmp_path: Path, sizes: tuple[int, ...], capsys: Any
) -> None:
    docs = folder(tmp_path, {"harbor_museum.txt": HARBOR})
    counts = []
    for n in sizes:
        _, rows, _ = run(tmp_path, docs, "--n", str(n), out_name=f"golden-{n}.jsonl")
        counts.append(len(rows))

    assert counts == sorted(counts) and counts[0] > 0 and counts[-1] > counts[0]
    assert re.search(r"the documents offer \d+ facts", capsys.readouterr().out)


MANUAL = """\
DEMO.CONF(5)              File Formats Manual              DEMO.CONF(5)

NAME
       demo.conf - configuration file for demo(8)

DESCRIPTION
       DHOME
              The directory in which new home directories should be created.
              Defaults to /home.

       SKEL_MODE
              The permissions mode for copied skeleton files.  Defaults to 0644.

       UID_POOL and GID_POOL
              specify a file or a directory containing UID and GID pool files.

       QUOTA_USER
              The user whose quotas are copied to new users.

Demo 1.0                         2024-01-01                   DEMO.CONF(5)
"""


def test_a_manual_page_gives_option_and_default_questions_under_its_own_title(
    tmp_path: Path,
) -> None:
    _, rows, chunks = run(
        tmp_path, folder(tmp_path, {"demo.conf.5.txt": MANUAL}), "--n", "4", "--kinds", "single"
    )

    assert {chunk["title"] for chunk in chunks} == {"demo.conf: configuration file for demo(8)"}
    references = {row["question"]: row["reference"] for row in rows}
    assert (
        references.get("What is the default of DHOME in demo.conf?") == "DHOME defaults to /home."
    )
    assert not any("DEMO.CONF(5)" in chunk["text"] for chunk in chunks)
    # The option's name is a heading of its own, never glued to its description.
    assert not any(re.search(r"\bDHOME The directory", chunk["text"]) for chunk in chunks)


def test_a_near_miss_asks_the_default_of_an_option_whose_default_is_not_given(
    tmp_path: Path,
) -> None:
    _, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"demo.conf.5.txt": MANUAL}),
        "--n",
        "2",
        "--kinds",
        "unanswerable",
    )

    questions = {row["question"] for row in rows}
    assert questions and questions <= {
        "What is the default of UID_POOL in demo.conf?",
        "What is the default of GID_POOL in demo.conf?",
        "What is the default of QUOTA_USER in demo.conf?",
    }


SSH_MANUAL = """\
SSH_DEMO(5)               File Formats Manual               SSH_DEMO(5)

NAME
     ssh_demo - demo client configuration file

DESCRIPTION
     ForwardAgent
             Specifies whether the connection to the agent is forwarded.
             The argument may be yes, no (the default), or a socket path.

     LogLevel
             Gives the verbosity level of messages.  The default is INFO.

     Port    Specifies the port number to connect on the remote host.  The
             default is 22.

     RevokedHostKeys
             Specifies revoked host public keys.

     SendEnv
             Specifies which variables from the local environ are sent.

             Variables are matched by name.  The default is not to send any.

Demo 1.0                         2024-01-01                   SSH_DEMO(5)
"""


FROBD_MANUAL = """\
FROBD.CONF(5)                 File Formats                 FROBD.CONF(5)

NAME
       frobd.conf - frobd configuration file

SECTION [SERVER]
       use-frob=  Takes a boolean value ("yes" or "no"). If set to "no" frobd
       will not use frob sockets. Default is "yes".

       frob-name=  Set the host name frobd tries to register on the LAN. If
       omitted defaults to the system host name.

       cache-size=  Takes an unsigned integer. Sets the size of the frob cache
       in entries. This option defaults to 4096.

       ratelimit-burst=  Takes an unsigned integer. Sets the burst of packets
       frobd sends in one interval.

Frobd 1.0                        2024-01-01                 FROBD.CONF(5)
"""


def test_a_manual_page_option_written_name_equals_its_text_gives_its_default_and_use(
    tmp_path: Path,
) -> None:
    docs = folder(tmp_path, {"frobd.conf.5.txt": FROBD_MANUAL})
    _, rows, chunks = run(tmp_path, docs, "--n", "8", "--kinds", "single")

    # "SECTION [SERVER]" is the section's heading, not a line left out as boilerplate.
    assert any("Section [server]\nuse-frob=\n" in chunk["text"] for chunk in chunks), chunks

    references = {row["question"]: row["reference"] for row in rows}
    assert references.get("What is the default of use-frob in frobd.conf?") == (
        'use-frob defaults to "yes".'
    ), references
    assert references.get("What is the default of frob-name in frobd.conf?") == (
        "frob-name defaults to the system host name."
    ), references
    assert references.get("What is the default of cache-size in frobd.conf?") == (
        "cache-size defaults to 4096."
    ), references
    assert references.get("What is frob-name in frobd.conf?") == (
        "frob-name sets the host name frobd tries to register on the LAN."
    ), references
    # "Takes a boolean value" says what it takes, not what it is for.
    assert not any("takes a" in reference.lower() for reference in references.values())


def test_no_near_miss_asks_the_default_of_an_option_written_name_equals_that_states_one(
    tmp_path: Path,
) -> None:
    docs = folder(tmp_path, {"frobd.conf.5.txt": FROBD_MANUAL})
    _, rows, _ = run(tmp_path, docs, "--n", "4", "--kinds", "unanswerable")

    asked = {row["question"] for row in rows}
    assert asked == {"What is the default of ratelimit-burst in frobd.conf?"}


def test_a_default_given_in_parentheses_is_asked_and_never_a_near_miss(tmp_path: Path) -> None:
    docs = folder(tmp_path, {"ssh_demo.5.txt": SSH_MANUAL})
    _, single, chunks = run(tmp_path, docs, "--n", "8", "--kinds", "single")
    # "Port    Specifies …": the option on the line of its text is a heading of its own.
    assert any(
        chunk["text"].startswith("Port\nSpecifies") or "\nPort\nSpecifies" in chunk["text"]
        for chunk in chunks
    )
    _, missing, _ = run(
        tmp_path, docs, "--n", "3", "--kinds", "unanswerable", out_name="missing.jsonl"
    )

    references = {row["question"]: row["reference"] for row in single}
    assert references.get("What is the default of ForwardAgent in ssh_demo?") == (
        "ForwardAgent defaults to no."
    )
    assert references.get("What is RevokedHostKeys in ssh_demo?") == (
        "RevokedHostKeys specifies revoked host public keys."
    )
    # A default stated in a later paragraph of the option's description counts too.
    assert not any(re.search("ForwardAgent|SendEnv", row["question"]) for row in missing)


def test_the_following_previous_and_quantified_subjects_are_dropped_by_the_critic() -> None:
    chunk = (
        "Benchmarks\nThe following tests were run on a Core i7 server. "
        "A few other algorithms can produce higher compression ratios."
    )
    candidates = [
        Candidate(kind="single", question=question, reference=reference, chunks=[0])
        for question, reference in [
            ("What were the following tests run on?", "The tests were run on a Core i7 server."),
            (
                "What can a few other algorithms produce?",
                "A few other algorithms can produce higher compression ratios.",
            ),
        ]
    ]
    verdicts = OfflineSynthJudge([chunk]).critique(
        CritiqueQuestions(chunks=[chunk], titles=["zstd README"], candidates=candidates)
    )

    assert [(v.keep, v.problem) for v in verdicts.verdicts] == [
        (False, "not_standalone"),
        (False, "trivial"),
    ]


def test_a_readme_whose_first_heading_follows_its_prose_is_titled_by_its_file_name(
    tmp_path: Path,
) -> None:
    readme = (
        "Zstandard, or zstd as short version, is a fast lossless compression algorithm, "
        "targeting real-time compression scenarios at zlib-level and better ratios.\n\n"
        "## Benchmarks\n\nThe reference library was released in 2016 by Yann Collet.\n"
    )
    _, rows, chunks = run(tmp_path, folder(tmp_path, {"zstd-README.md": readme}), "--n", "2")

    assert {chunk["title"] for chunk in chunks} == {"zstd README"}
    assert not any(row["question"].startswith("In Benchmarks") for row in rows)


def test_asking_for_more_never_gives_fewer_when_few_chunks_state_values(tmp_path: Path) -> None:
    # One chunk states two values (a reasoning candidate); the rest state one fact each.
    files = {
        f"team{number}.md": f"# Team {number}\n\nThe Team{number} service is maintained by "
        f"Harbor Office {number}.\n"
        for number in range(10)
    }
    files["prices.md"] = "# Prices\n\nA day pass costs $14. A season pass costs $90.\n"
    docs = folder(tmp_path, files)
    counts = []
    for n in (10, 40):
        _, rows, _ = run(tmp_path, docs, "--n", str(n), out_name=f"golden-{n}.jsonl")
        counts.append(sum(1 for row in rows if row["tags"][1] == "single"))

    assert counts[1] >= counts[0] >= 5


def test_guessed_verbs_such_objects_and_objectless_passives_give_no_question(
    tmp_path: Path,
) -> None:
    text = (
        "# Overview\n\nThe routines also manipulate known hosts files using hostfile.c. "
        "A project normally includes such .gitignore files in its repository. "
        "Two different file formats are allowed as described in the next two sections.\n\n"
        "## NIS\n\nSites that use NIS use the host table as input to the NIS database.\n"
    )
    _, rows, _ = run(tmp_path, folder(tmp_path, {"overview.md": text}), "--n", "4")

    for row in rows:
        assert not re.search(
            r"manipulate known host|what does a project include|allowed as\?|What is NIS",
            row["question"],
        ), row["question"]


def test_a_present_perfect_passive_asks_what_it_was_changed_to(tmp_path: Path) -> None:
    text = "# Forwarding\n\nThe ForwardX11 default of OpenSSH has been changed to no.\n"
    _, rows, _ = run(tmp_path, folder(tmp_path, {"forwarding.md": text}), "--n", "1")

    assert [row["question"] for row in rows] == [
        "What has the ForwardX11 default of OpenSSH been changed to?"
    ]


def test_multi_pairs_the_chunks_whose_facts_share_an_entity(tmp_path: Path) -> None:
    files = {
        "boats.md": "# Boats\n\nThe Sea Dragon was built in 1846 in Bristol.\n",
        "tours.md": "# Tours\n\nThe Sea Dragon is maintained by the Harbor Trust.\n",
    }
    # Chunks that share many words with the first but no entity with a fact in it.
    for number in range(4):
        files[f"notes{number}.md"] = (
            f"# Notes {number}\n\nBoats built in Bristol harbor docks were built of oak in the "
            f"old docks of Bristol, and old harbor boats of oak {number} were kept afloat.\n"
        )
    status, rows, _ = run(tmp_path, folder(tmp_path, files), "--n", "2", "--kinds", "multi")

    assert status == 0 and rows
    for row in rows:
        assert "Sea Dragon" in row["question"]
        assert {i.split("#")[0] for i in row["relevant_context_ids"]} == {"boats.md", "tours.md"}


CACHE_PAGE = """CACHE.CONF(5)              File Formats Manual              CACHE.CONF(5)

NAME
       cache.conf - settings of the cache daemon

DESCRIPTION
       The cache daemon reads its settings from /etc/cache.conf at startup.

OPTIONS
       Cache-Start
\t   Cache-Start is the amount of memory the daemon requests at
\t   startup. The default value is 20971520 bytes (~20 MB).

       MaxReleaseFileSize
\t   The maximum file size of Release files. The default is 10MB.

       Retry-Delay
\t   The time the daemon waits before it retries a failed download. The
\t   default is 30 seconds.
"""


def test_reasoning_compares_two_option_defaults_of_one_page_with_the_same_unit(
    tmp_path: Path, capsys: Any
) -> None:
    status, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"cache.conf.5.txt": CACHE_PAGE}),
        "--n",
        "2",
        "--kinds",
        "reasoning",
    )

    out = capsys.readouterr().out
    assert status == 0 and rows, out
    row = rows[0]
    assert "Cache-Start" in row["question"] and "MaxReleaseFileSize" in row["question"]
    assert "larger" in row["question"]
    # Both values and the comparison, in the reference; seconds never compared with sizes.
    assert "20 MB" in row["reference"] and "10MB" in row["reference"]
    assert "is larger than that of MaxReleaseFileSize, by 10 MB" in row["reference"]
    assert "30 seconds" not in row["reference"]


def test_a_short_reasoning_kind_says_what_the_documents_state_instead(
    tmp_path: Path, capsys: Any
) -> None:
    page = CACHE_PAGE.replace("The default is 10MB.", "It is checked after download.")
    status, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"cache.conf.5.txt": page}),
        "--n",
        "4",
        "--kinds",
        "single,reasoning",
    )

    out = capsys.readouterr().out
    assert status == 0 and rows
    # One size and one duration: amounts, but none two of one unit.
    assert re.search(
        r"could not — the offline writer reads 2 amounts or dates as facts, and no document "
        r"gives it two of one kind \(cache.conf.5.txt: 1 size, 1 duration\)",
        out,
    ), out


def test_each_default_of_a_shared_option_paragraph_belongs_to_the_option_it_names(
    tmp_path: Path,
) -> None:
    page = CACHE_PAGE.replace(
        "       Cache-Start\n",
        "       Cache-Start, Cache-Grow\n",
    ).replace(
        "(~20 MB).",
        "(~20 MB). Cache-Grow defines in bytes with the default of 1048576 (~1 MB) how much\n"
        "\t   the cache grows when the space defined by Cache-Start is not enough.",
    )
    status, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"cache.conf.5.txt": page}),
        "--n",
        "6",
        "--kinds",
        "single,reasoning",
    )

    assert status == 0
    references = {row["reference"] for row in rows}
    grown = [r for r in references if "Cache-Grow" in r and "1 MB" in r]
    assert grown, references
    # Cache-Start's 20 MB is never said to be Cache-Grow's, nor the pair line's.
    assert not any("Cache-Start, Cache-Grow defaults" in r for r in references)
    assert not any(re.search(r"Cache-Grow defaults to 20971520", r) for r in references)


def test_the_summary_names_each_document_without_a_case_and_why(
    tmp_path: Path, capsys: Any
) -> None:
    chatty = (
        "# Thoughts\n\nWe really like how this turned out, and we hope you will enjoy playing "
        "with it as much as we did. Have fun and let us know what you think of it!\n"
    )
    status, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"harbor_museum.txt": HARBOR, "thoughts.md": chatty}),
        "--n",
        "3",
        "--kinds",
        "single",
    )

    out = capsys.readouterr().out
    assert status == 0 and rows
    assert re.search(
        r"no case from 1 document: thoughts\.md \(no fact: none of its sentences states an "
        r"amount, a date or a definition, and the writer found no name or option's default "
        r"to ask about\)",
        out,
    ), out


#: A page whose only facts are of shapes the keyless writer refuses as unsure.
UNSURE_ONLY = (
    "# Widget\n\nThe naming of the slot was introduced to capture possible future extensions. "
    "The home page lists a handful of tools that have been proposed. "
    "The cache folder keeps all files found therein for seven days.\n"
)


def test_a_document_whose_facts_were_all_refused_is_not_said_to_state_none(
    tmp_path: Path, capsys: Any
) -> None:
    status, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"harbor_museum.txt": HARBOR, "widget.md": UNSURE_ONLY}),
        "--n",
        "3",
        "--kinds",
        "single",
    )

    out = capsys.readouterr().out
    assert status == 0 and rows
    line = re.search(r"no case from 1 document: (.*)", out)
    assert line is not None, out
    assert line.group(1) == (
        "widget.md (3 facts refused as unsure: 1 vague question, 1 misread sentence, "
        "1 reference leaning on its page)"
    ), out
    assert "no fact" not in out


def test_a_document_whose_facts_all_repeat_kept_cases_is_said_so_with_the_count(
    tmp_path: Path, capsys: Any
) -> None:
    docs = folder(
        tmp_path,
        {
            "museum.md": "The harbor museum opened in 1987 in the old customs house. "
            "Guided tours last 45 minutes.\n",
            "tours.md": "Guided tours last 45 minutes.\n",
        },
    )
    status, rows, _ = run(tmp_path, docs, "--n", "6", "--kinds", "single")

    out = capsys.readouterr().out
    assert status == 0 and rows
    assert (
        "no case from 1 document: tours.md (1 fact, none kept: 1 near-duplicate of a kept case)"
        in out
    ), out


def test_a_kind_short_because_every_fact_was_refused_says_so(tmp_path: Path, capsys: Any) -> None:
    status, _, _ = run(
        tmp_path, folder(tmp_path, {"widget.md": UNSURE_ONLY}), "--n", "3", "--kinds", "single"
    )

    out = capsys.readouterr().out
    assert status == 1
    assert (
        "short: single 0/3: could not — the writer found 3 facts and refused all of them as "
        "unsure (by reason above)" in out
    ), out
    assert "no sentence states a fact" not in out
    assert "widget.md (3 facts refused as unsure:" in out


def test_the_plan_visits_each_document_in_proportion_to_its_prose() -> None:
    from pytest_ragas_gate.synth.chunking import Chunk
    from pytest_ragas_gate.synth.plan import interleaved

    def chunks(document: str, count: int) -> list[Chunk]:
        return [
            Chunk(f"{document}#{i}", document, document, i, f"{document} text {i}.", False)
            for i in range(count)
        ]

    order = interleaved(chunks("guide.md", 6) + chunks("notes.md", 2) + chunks("faq.md", 1))

    first = [chunk.document for chunk in order[:3]]
    # Every document early on, then six of guide.md's chunks to notes.md's two.
    assert sorted(first) == ["faq.md", "guide.md", "notes.md"]
    head = [chunk.document for chunk in order[:6]]
    assert head.count("guide.md") == 4 and head.count("notes.md") == 1, head


def test_a_long_chatty_page_with_one_fact_still_gets_its_case(tmp_path: Path) -> None:
    chatter = "We really hope you enjoy it, and we would love to hear what you think of it."
    page = "# Notes\n\n" + "\n\n".join(
        [f"## Part {i}\n\n{chatter} " * 3 for i in range(1, 7)]
        + ["## Limits\n\nThe upload service keeps backups for 90 days."]
        + [f"## More {i}\n\n{chatter} " * 3 for i in range(1, 7)]
    )
    status, rows, _ = run(
        tmp_path,
        folder(tmp_path, {"harbor_museum.txt": HARBOR, "notes.md": page}),
        "--n",
        "2",
        "--kinds",
        "single",
    )

    assert status == 0
    assert any("90 days" in row["reference"] for row in rows), [r["question"] for r in rows]


def test_two_options_of_one_family_are_no_multi_question_without_a_thing_both_describe() -> None:
    import asyncio

    from pytest_ragas_gate.synth.requests import WriteQuestions

    first = (
        "EXTRA_GROUPS\nThis is the space-separated list of groups that new non-system users "
        "will be added to. Defaults to users.\nFIRST_SYSTEM_GID and LAST_SYSTEM_GID\nspecify "
        "an inclusive range of GIDs from which GIDs for system groups can be dynamically "
        "allocated. Defaults to 100 - 999."
    )
    second = (
        "USERS_GID and USERS_GROUP\nDefines the groupname or GID of the group all "
        "newly-created nonsystem users are placed into."
    )
    request = WriteQuestions(
        chunks=[first, second], titles=["adduser.conf", "adduser.conf"], kinds=["multi"]
    )
    reply = asyncio.run(OfflineSynthJudge().ask(request)).reply.questions

    # GID options beside each other, but each chunk describes other options: a question
    # joining them asks two things, not two properties of one.
    assert [question.question for question in reply] == []


ADDUSER_PAGE = """ADDUSER.CONF(5)              File Formats Manual              ADDUSER.CONF(5)

NAME
       adduser.conf - configuration file for adduser(8) and addgroup(8)

DESCRIPTION
       The file /etc/adduser.conf contains defaults for the programs adduser(8)
       and addgroup(8).

VALID CONFIGURATION OPTIONS
       DIR_MODE
\t   Permissions for directories that are created. Defaults to 0700.

       EXTRA_GROUPS
\t   This is the space-separated list of groups that new non-system users
\t   will be added to. Defaults to users.

       FIRST_SYSTEM_GID and LAST_SYSTEM_GID
\t   specify an inclusive range of GIDs from which GIDs for system groups
\t   can be dynamically allocated. Defaults to 100 - 999.

       SYS_DIR_MODE
\t   Permissions for system directories that are created. Defaults to 0755.

       USERS_GID and USERS_GROUP
\t   Defines the groupname or GID of the group all newly-created nonsystem
\t   users are placed into.

       UID_POOL and GID_POOL
\t   specify a file or a directory containing UID and GID pool files. Both
\t   default to empty.
"""


@pytest.mark.slow
def test_the_same_documents_give_the_same_draft_whatever_the_hash_seed(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    docs = folder(tmp_path, {"adduser.conf.5.txt": ADDUSER_PAGE, "cache.conf.5.txt": CACHE_PAGE})
    drafts = set()
    for seed in ("0", "1", "2", "3"):
        out = tmp_path / f"golden-{seed}.jsonl"
        code = (
            "import sys; from pytest_ragas_gate.cli import main; "
            f"sys.exit(main(['synth', {str(docs)!r}, '-o', {str(out)!r}, '--judge', 'offline', "
            "'--cache', 'off', '--chunk-tokens', '40', '--n', '12']))"
        )
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
        drafts.add(out.read_text(encoding="utf-8"))
    assert len(drafts) == 1


def test_an_amount_that_sizes_a_noun_gives_no_how_many_question() -> None:
    from pytest_ragas_gate.synth.wh_english import sentence_facts

    garbled = [
        fact.question
        for sentence, name in [
            (
                "The 'ulimit' builtin uses a block size of 512 bytes for the '-c' and '-f' "
                "options.",
                "Bash POSIX Mode",
            ),
            (
                "In glibc 2.25 and earlier, the search list is limited to six domains with a "
                "total of 256 characters.",
                "resolv.conf",
            ),
        ]
        for fact in sentence_facts(sentence, name)
    ]
    kept = [fact.question for fact in sentence_facts("The cache keeps 90 days of events.", "Cache")]
    kept += [fact.question for fact in sentence_facts("The list holds 6 domains.", "resolv.conf")]

    assert not [question for question in garbled if "how many" in question.lower()], garbled
    assert [question.lower().split(", ")[-1] for question in kept] == [
        "how many days of events does the cache keep?",
        "how many domains does the list hold?",
    ]


def test_the_critic_drops_cut_parentheses_cut_addresses_and_why_is_it_a_noun() -> None:
    chunk = (
        "fstab\nDefaults to zero (don't check the filesystem) if not present. "
        "In 2002, Albert moved procps to http://procps.sourceforge.net. "
        "Getopt(1) is a program to help shell scripts parse command-line parameters. "
        "ssh-agent is setgid to _ssh in order to prevent ptrace attacks. "
        "The first column (on the left) specifies the database name."
    )
    candidates = [
        Candidate(kind="single", question=question, reference=reference, chunks=[0])
        for question, reference in [
            (
                "In fstab, what do defaults to zero (don't check?",
                "Defaults to zero (don't check the filesystem) if not present.",
            ),
            ("When does Albert moved procp to http?", "In 2002, Albert moved procps."),
            (
                "Why is getopt(1) a program?",
                "Getopt(1) is a program to help shell scripts parse command-line parameters.",
            ),
            (
                "Why is ssh-agent setgid to _ssh?",
                "ssh-agent is setgid to _ssh in order to prevent ptrace attacks.",
            ),
            (
                "In fstab, what does the first column (on the left) specify?",
                "The first column (on the left) specifies the database name.",
            ),
        ]
    ]
    verdicts = OfflineSynthJudge([chunk]).critique(
        CritiqueQuestions(chunks=[chunk], titles=["fstab"], candidates=candidates)
    )

    assert [(v.keep, v.problem) for v in verdicts.verdicts] == [
        (False, "trivial"),
        (False, "trivial"),
        (False, "trivial"),
        (True, "ok"),
        (True, "ok"),
    ], [v.reason for v in verdicts.verdicts]


def test_a_condition_read_as_a_subject_gives_no_question() -> None:
    from pytest_ragas_gate.synth.offline import question_problem
    from pytest_ragas_gate.synth.wh_english import sentence_facts

    garbled = sentence_facts(
        "Non-interactive shells exit if there is a syntax error in a script read with the "
        "'.' or 'source' builtins.",
        "Bash POSIX Mode",
    )
    kept = sentence_facts(
        "The domain directive is an obsolete name for the search directive.", "resolv.conf"
    )

    assert [fact.question for fact in garbled if " if there" in fact.question] == []
    assert [fact.question for fact in kept][:1] == ["In resolv.conf, what is the domain directive?"]
    assert question_problem("In Bash POSIX Mode, what is non-interactive shells exit if there?")
    assert question_problem("In Bash POSIX Mode, what is tilde expansion performed on?") is None


def test_it_never_stands_for_a_quantified_subject_like_many_people() -> None:
    from pytest_ragas_gate.synth.offline import chunk_facts

    chunk = (
        "AUTHOR\nRsync was originally written by Andrew Tridgell and Paul Mackerras. "
        "Many people have later contributed to it. It is currently maintained by Wayne Davison."
    )
    questions = [fact.question for fact in chunk_facts(chunk, "rsyncd.conf", False)]

    assert not [question for question in questions if "many people" in question.lower()]
    assert "In rsyncd.conf, who was rsync originally written by?" in questions


def test_a_kind_that_used_all_the_documents_offer_says_so_in_its_own_unit() -> None:
    from pytest_ragas_gate.synth.offer import CorpusOffer

    offer = CorpusOffer(counts={"multi": 3, "reasoning": 1})
    # One entity shared by three chunks gives more than one pair: 4 written of 3 counted.
    assert offer.why_short("multi", 4, 5) == (
        "multi 4/5: the documents offer no more (3 entities shared by two chunks, all used)"
    )
    assert offer.why_short("reasoning", 1, 3) == (
        "reasoning 1/3: the documents offer no more (1 comparison, all used)"
    )


def test_the_critics_drop_share_says_what_the_writer_refused_before_writing(
    tmp_path: Path, capsys: Any
) -> None:
    docs = folder(
        tmp_path,
        {
            "museum.md": "The harbor museum opened in 1987 in the old customs house. "
            "Guided tours last 45 minutes.\n",
            "tours.md": "Guided tours last 45 minutes.\n",
            "widget.md": UNSURE_ONLY,
        },
    )
    status, rows, _ = run(tmp_path, docs, "--n", "6", "--kinds", "single")

    out = capsys.readouterr().out
    assert status == 0 and rows
    line = re.search(r"  dropped \d+: .*", out)
    assert line is not None, out
    assert line.group(0).endswith(
        "of those it reviewed; the writer refused 3 more on the same checks before writing (below)"
    ), out
    assert re.search(r"\n  refused 3 facts the writer was unsure of: ", out), out
