"""The keyless writer writes only what it is sure of: each misreading found by reading
drafts of real documentation gives no question, or a repaired one, and the critic drops it
when another writer hands it in."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_ragas_gate.cli import main
from pytest_ragas_gate.synth.offline import OfflineSynthJudge, chunk_facts
from pytest_ragas_gate.synth.offline import _reference as offline_reference
from pytest_ragas_gate.synth.requests import Candidate, CritiqueQuestions

NAMES = frozenset({"Tilde"})


def questions(chunk: str, title: str) -> list[str]:
    return [fact.question for fact in chunk_facts(chunk, title, False)]


def synth(docs: Path, out: Path, *options: str) -> int:
    """``rag-gate synth`` with the offline writer and no cache, as a keyless user runs it."""
    return main(
        ["synth", str(docs), "-o", str(out), "--judge", "offline", "--cache", "off", *options]
    )


def write_fact_pages(docs: Path, names: tuple[str, ...]) -> None:
    """One page per name, four facts each."""
    for name in names:
        facts = [
            f"The {name} number {number} was built by Tom Baker in Leeds." for number in range(4)
        ]
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\n" + "\n\n".join(facts) + "\n")


def verdicts(chunk: str, title: str, cases: list[tuple[str, str, str]]) -> list[bool]:
    candidates = [
        Candidate(
            kind=kind,  # type: ignore[arg-type]
            question=question,
            reference=reference,
            chunks=[0] if kind == "single" else [0, 1],
        )
        for kind, question, reference in cases
    ]
    chunks = [chunk, chunk]
    reply = OfflineSynthJudge(chunks, [title, title]).critique(
        CritiqueQuestions(chunks=chunks, titles=[title, title], candidates=candidates)
    )
    return [verdict.keep for verdict in reply.verdicts]


def test_a_question_stopping_at_an_infinitive_asks_what_it_does_or_is_not_written() -> None:
    chunk = (
        "Design\nThe gzip format was designed to accommodate several compression algorithms. "
        "Adduser is intended to be used in maintainer scripts. "
        "The compression method is chosen to the best that is available."
    )
    asked = questions(chunk, "gzip README")

    assert [question for question in asked if question.endswith(" to?")] == []
    assert "What was the gzip format designed to do?" in asked


def test_a_what_in_question_whose_answer_is_a_date_or_version_asks_when_or_which() -> None:
    chunk = (
        "History\nThe code base was started in the 1990s. "
        "Debconf support was removed in adduser 3.125."
    )
    asked = questions(chunk, "adduser")

    assert "In adduser, when was the code base started?" in asked
    assert "In adduser, in which version was debconf support removed?" in asked
    assert not [question for question in asked if question.endswith(" in?")]


def test_the_pages_own_voice_and_pointing_words_in_the_reference_give_no_question() -> None:
    chunk = (
        "Testing\nThe introduction of our test suite has made changes to adduser much easier. "
        "Bug reports usually include this information in the template. "
        "The port field is the port number to use for this service. "
        "The gzip header format is deliberately different from that of pkzip to avoid such a "
        "constraint. The file /etc/deluser.conf contains defaults for deluser(8)."
    )
    asked = questions(chunk, "adduser")

    assert [question.split(", ")[-1] for question in asked] == [
        "what does the file /etc/deluser.conf contain?"
    ]


def test_an_amount_of_a_second_clause_is_not_asked_of_the_first_clauses_subject() -> None:
    chunk = (
        "Testing\nThe test suite has made changes to adduser much easier, but the code is still "
        "25 years old. Guided tours last 45 minutes."
    )
    asked = questions(chunk, "adduser")

    assert not [question for question in asked if "test suite" in question]
    assert "In adduser, how long do guided tours last?" in asked


def test_a_noun_read_as_a_verb_gives_no_question() -> None:
    asked = questions("Bugs\nBug reports usually include the version in the template.", "APT")

    assert [question for question in asked if "bug report" in question.lower()] == []


def test_a_condition_the_question_leaves_out_gives_no_question() -> None:
    chunk = (
        "Shell\nBash removes an exited background process's status from the list after the "
        "'wait' builtin is used to obtain it. For pack, gunzip checks the uncompressed length. "
        "After the global parameters you should define a number of modules. "
        "By default, the ownership of the terminal is set to the user's primary group."
    )
    asked = questions(chunk, "Bash POSIX Mode")

    assert [q for q in asked if "remove" in q or "gunzip" in q or "global" in q] == []
    assert "In Bash POSIX Mode, what is the ownership of the terminal set to by default?" in asked


def test_a_tables_row_is_no_reference() -> None:
    chunk = "login.defs\nMAX_MEMBERS_PER_GROUP\ngroupmems\nSYSLOG_SG_ENAB\nnewusers\n"
    asked = questions(chunk, "login.defs")

    assert not [question for question in asked if "MAX_MEMBERS_PER_GROUP" in question]


def test_the_critic_drops_each_misreading_and_each_misread_half_of_a_multi_question() -> None:
    chunk = (
        "adduser\nAdduser is intended to be used in maintainer scripts. adduser is developed on "
        "Salsa. Bug reports usually include this information in the template. The file "
        "/etc/deluser.conf contains defaults for deluser(8). MAX_MEMBERS groupmems."
    )
    kept = verdicts(
        chunk,
        "adduser",
        [
            ("single", "What is adduser intended to?", "Adduser is intended to be used."),
            (
                "single",
                "In adduser, what do bug reports include?",
                "Bug reports usually include this information in the template.",
            ),
            ("single", "What is MAX_MEMBERS in adduser?", "MAX_MEMBERS groupmems."),
            (
                "multi",
                "What is adduser intended to, and what is adduser developed on?",
                "Adduser is intended to be used in maintainer scripts. adduser is developed on "
                "Salsa.",
            ),
            (
                "single",
                "What does the file /etc/deluser.conf contain?",
                "The file /etc/deluser.conf contains defaults for deluser(8).",
            ),
        ],
    )

    assert kept == [False, False, False, False, True]


def test_a_near_miss_swaps_no_placeholder_no_numbered_sibling_and_no_options_amount() -> None:
    from pytest_ragas_gate.synth.offline import Corpus, _swapped

    chunks = [
        "nsswitch\nLibraries called /lib/libnss_SERVICE.so.X will provide the named SERVICE. "
        "Known ones are libnss_dns and libnss_files.",
        "jpeg\nThe JFIF version 1 has been adopted as ISO/IEC 10918-5. It runs on Linux version 2.",
        "ssh\nThe ServerAliveInterval option will be set to 30 seconds by default. "
        "The Hostname option is read first.",
    ]
    corpus = Corpus(chunks, ["demo"], ["demo"] * 3)

    swapped = [
        question for chunk in chunks for question, _ in _swapped(chunk, "demo", False, corpus)
    ]

    assert swapped == [], swapped


KEYBOARD_OPTIONS = """\
OPTIONS
       The following variables can be set.

       XKBMODEL
              Specifies the XKB keyboard model name.  Default: pc105  on  most
              platforms.

       XKBLAYOUT
              Specifies the XKB keyboard layout name. This is usually the
              country or language type of the keyboard. Default:  us  on  most
              platforms.

       XKBVARIANT
              Specifies the XKB keyboard variant components.  Default: not set.

       XKBOPTIONS
              Specifies the XKB keyboard option components.
"""


def test_a_near_miss_is_never_a_question_the_documents_answer() -> None:
    from pytest_ragas_gate.synth.offline import Corpus, _swapped

    corpus = Corpus([KEYBOARD_OPTIONS], ["keyboard"], ["keyboard"])
    answered = {
        fact.question for fact in chunk_facts(KEYBOARD_OPTIONS, "keyboard", False, corpus.names)
    }

    # "Default: pc105" states a default as "defaults to" does.
    assert corpus.terms_without_default("XKBLAYOUT", "keyboard") == ["XKBOPTIONS"]
    swapped = [question for question, _ in _swapped(KEYBOARD_OPTIONS, "keyboard", False, corpus)]
    assert not set(swapped) & answered, set(swapped) & answered
    assert not any(re.search("XKBMODEL|XKBVARIANT|XKBLAYOUT", q) for q in swapped), swapped


def test_single_questions_are_asked_of_the_chunks_stating_facts_not_of_chatty_ones(
    tmp_path: Path,
) -> None:
    chatty = " ".join(["Readers often wonder about things, and talk about them at length."] * 6)
    docs = tmp_path / "docs"
    docs.mkdir()
    for number in range(30):
        (docs / f"chat{number:02}.md").write_text(f"# Chat {number}\n\n{chatty}\n\n{chatty}\n")
    write_fact_pages(docs, ("ferry", "tram", "bus"))
    out = tmp_path / "golden.jsonl"

    status = synth(docs, out, "--n", "10", "--kinds", "single", "--chunk-tokens", "20")

    assert status == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 10


def test_a_terms_description_agrees_with_its_one_term() -> None:
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = (
        "BACKUP_SUFFIX\nSelect compression algorithm for a home directory backup.\n"
        "-no-del\nDisable rsync's --delete* and --remove* options.\n"
        "ForwardX11Timeout\nSpecify a timeout for untrusted X11 forwarding.\n"
    )
    references = [fact.sentence for fact in term_facts(chunk, "demo")]

    assert references == [
        "BACKUP_SUFFIX selects compression algorithm for a home directory backup.",
        "-no-del disables rsync's --delete* and --remove* options.",
        "ForwardX11Timeout specifies a timeout for untrusted X11 forwarding.",
    ]


def test_a_titles_section_number_and_leading_article_stay_out_of_the_question() -> None:
    from pytest_ragas_gate.synth.wh_english import short_name

    assert short_name("6.11 Bash POSIX Mode") == "Bash POSIX Mode"
    assert short_name("The man-db manual pager suite") == "the man-db manual pager suite"


def test_a_markdown_link_in_a_reference_reads_as_text_and_address() -> None:
    chunk = "Development\nadduser is developed on [Salsa](https://salsa.debian.org/adduser)."
    kept = [
        (fact.question, fact.sentence)
        for fact in chunk_facts(chunk, "adduser", False)
        if "developed" in fact.question
    ]
    from pytest_ragas_gate.synth.offline import _reference
    from pytest_ragas_gate.synth.wh_english import Fact

    fact = Fact("What is adduser developed on?", "[Salsa]", kept[0][1], "what", "adduser")
    assert _reference(fact) == "adduser is developed on Salsa (https://salsa.debian.org/adduser)."


def test_the_default_for_this_option_is_a_stated_default_so_no_near_miss() -> None:
    from pytest_ragas_gate.synth.offline import Corpus

    chunk = (
        "DESCRIPTION\nPubkeyAlgorithms\nSpecifies the signature algorithms.  The default for "
        "this option is: ssh-ed25519.\n\nSetEnv\nDirectly specify one or more variables.\n"
        "\nPortNumber\nSpecifies the port number.  The default is 22.\n"
    )
    corpus = Corpus([chunk], ["ssh_config"], ["ssh_config"])

    assert corpus.terms_without_default("PortNumber", "ssh_config") == ["SetEnv"]


def test_a_reference_stops_before_a_second_sentence_opening_with_a_lowercase_name() -> None:
    from pytest_ragas_gate.synth.offline import _reference
    from pytest_ragas_gate.synth.wh_english import Fact

    cases = [
        (
            "The file fstab contains descriptive information about the filesystems. fstab is "
            "only read by programs, and not written.",
            "descriptive information about the filesystems",
        ),
        (
            "Port numbers are assigned by the IANA, and their current policy is to assign both "
            "TCP and UDP protocols.",
            "the IANA",
        ),
    ]
    references = [
        _reference(Fact("What does it hold?", answer, sentence, "what", "x"))
        for sentence, answer in cases
    ]

    assert references == [
        "The file fstab contains descriptive information about the filesystems.",
        "Port numbers are assigned by the IANA.",
    ]


def test_two_terms_default_agrees_and_a_copula_gives_no_what_question() -> None:
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = "UID_POOL and GID_POOL\nspecify pool files.  Defaults to empty.\n"
    defaults = [fact.sentence for fact in term_facts(chunk, "adduser.conf")]
    asked = questions(
        "Speed\nDecompression speed remains roughly the same at all settings.", "zstd README"
    )

    assert "UID_POOL and GID_POOL default to empty." in defaults
    assert [question for question in asked if "remain" in question] == []


def test_the_share_of_a_kind_the_documents_cannot_support_is_written_as_single(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write_fact_pages(docs, ("ferry", "tram", "bus", "boat"))
    out = tmp_path / "golden.jsonl"

    status = synth(docs, out, "--n", "10", "--kinds", "single,reasoning", "--chunk-tokens", "20")

    printed = capsys.readouterr().out
    assert status == 0
    assert "short: reasoning 0/5: could not" in printed
    assert "single 10/5" in printed
    assert "the 5 of reasoning the documents cannot support are written as single" in printed
    assert len(out.read_text(encoding="utf-8").splitlines()) == 10


def test_a_subject_that_is_only_a_value_or_a_counted_set_gives_no_question() -> None:
    chunk = (
        "Modules\nA negative value disables the module. A value of zero means no timeout. "
        "The 3 supported levels are the same as for the --human-readable option. "
        "A standalone plus sign is a wildcard character."
    )
    asked = questions(chunk, "rsyncd.conf")

    assert asked == ["In rsyncd.conf, what is a standalone plus sign?"]


def test_an_and_their_noun_phrase_stays_and_a_glued_sentence_inside_the_answer_goes() -> None:
    from pytest_ragas_gate.synth.offline import _reference
    from pytest_ragas_gate.synth.wh_english import Fact

    listing = (
        "services is a plain ASCII file providing a mapping between textual names for internet "
        "services, and their underlying assigned port numbers."
    )
    glued = (
        "zip is an archiver: it compresses several files into a single archive file. gzip is a "
        "simple compressor: each file is compressed separately."
    )

    assert _reference(Fact("What is services?", listing[12:], listing, "what", "x")) == listing
    assert _reference(Fact("What is zip?", glued[7:], glued, "what", "zip")) == (
        "zip is an archiver: it compresses several files into a single archive file."
    )


def test_a_numbered_sections_questions_name_the_section_and_a_faq_heading_is_no_title(
    tmp_path: Path,
) -> None:
    from pytest_ragas_gate.synth.documents import read_documents

    chunk = "6.11 Bash POSIX Mode\nTilde expansion is performed on assignments before a command."
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "man-db-FAQ.txt").write_text(
        "Frequently Asked Questions\n==========================\n\nman-db has no search engine.\n"
    )

    asked = [fact.question for fact in chunk_facts(chunk, "6.11 Bash POSIX Mode", False, NAMES)]

    assert asked == ["In Bash POSIX Mode, what is Tilde expansion performed on?"]
    assert [document.title for document in read_documents([docs])] == ["man db FAQ"]


def test_in_particular_is_a_discourse_opener_left_out_of_the_reference() -> None:
    from pytest_ragas_gate.synth.standalone import strip_discourse

    assert strip_discourse("In particular, mail servers are started from boot scripts.") == (
        "Mail servers are started from boot scripts."
    )


def test_a_manual_page_name_line_gives_the_name_as_title_never_cut_at_a_comma(
    tmp_path: Path,
) -> None:
    from pytest_ragas_gate.synth.documents import read_documents
    from pytest_ragas_gate.synth.wh_english import short_name

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "man8_rotor.txt").write_text(
        "ROTOR(8)            System Administrator's Manual            ROTOR(8)\n\n"
        "NAME\n       rotor \u2010 rotates, compresses, and mails system logs\n\n"
        "DESCRIPTION\n       rotor is designed to ease administration of systems that "
        "generate\n       large numbers of log files.\n"
    )

    title = read_documents([docs])[0].title

    assert short_name(title) == "rotor"
    assert short_name("rotor \u2010 rotates, compresses, and mails system logs") == "rotor"
    assert short_name("rotates, compresses, and mails system logs") == (
        "rotates, compresses, and mails system logs"
    )


def test_an_option_item_whose_sentence_does_not_name_it_carries_its_name_or_is_refused() -> None:
    chunk = (
        "olddir directory\nLogs are moved into directory for rotation. The directory must be "
        "on the same physical device as the log file being rotated. Old versions are kept "
        "for 4 weeks."
    )
    asked = questions(chunk, "rotor")

    assert asked, "the item still gives a question"
    assert all("olddir" in question for question in asked)
    assert not [question for question in asked if question.endswith("moved into?")]


def test_an_amount_or_date_governed_by_a_condition_is_not_asked_without_it() -> None:
    chunk = (
        "Rotation\nLog files are rotated once each weekday, or if the date is advanced by at "
        "least 7 days since the last rotation. Archives are removed when they are older than "
        "30 days. Reports are mailed unless the job ran for 2 hours."
    )
    asked = questions(chunk, "rotor")

    assert not [question for question in asked if re.search(r"how (?:many|long)", question)]


def test_a_date_is_never_cut_out_of_its_day_and_month() -> None:
    chunk = "Clock\nThe system clock must be set past Sep 9th 2001 for the format to work."
    facts = chunk_facts(chunk, "rotor", False)

    assert [fact.answer for fact in facts if fact.wh == "when"] in ([], ["Sep 9th 2001"])
    assert not [fact.question for fact in facts if "Sep" in fact.question]


def test_a_relative_clause_is_never_read_as_the_subject() -> None:
    chunk = (
        "Comments\nLines whose first non-space character is a pound-sign are comments. "
        "Files which the daemon reads are kept for 3 days."
    )
    asked = questions(chunk, "crontab")

    assert not [question for question in asked if re.search(r"\b(?:whose|which)\b", question)]


def test_a_sentence_tied_by_in_this_case_to_the_one_before_gives_no_question_about_it() -> None:
    chunk = (
        "Debug\nWhen the function returns, the same information is logged. In this case, the "
        "return value is a string."
    )

    assert not [
        question for question in questions(chunk, "sudo.conf") if "return value" in question
    ]


def test_an_object_question_keeps_the_complement_that_says_where_it_goes() -> None:
    chunk = "Groups\nSudo passes the user's group list to the policy plugin."

    assert [q.lower() for q in questions(chunk, "sudo.conf")] == [
        "what does sudo pass to the policy plugin?"
    ]


def test_a_question_ending_in_a_preposition_to_is_asked_as_a_value_not_to_do() -> None:
    chunk = "Renaming\nThe log file is renamed to temporary filename in the same directory."

    assert not [q for q in questions(chunk, "rotor") if q.endswith("to do?")]


def test_derived_kinds_use_only_facts_whose_single_question_is_kept(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rotor.md").write_text(
        "# Rotor\n\nRotor is a log rotation tool. Rotor was written by Ann Lee in 2003. Rotor "
        "keeps old logs for 4 weeks. Rotor sends reports to the system administrator.\n\n"
        "## Weekly\n\nLog files are rotated once each weekday, or if the date is "
        "advanced by at least 7 days since the last rotation.\n\n## Monthly\n\nConversion "
        "files are rotated once each month, or if the date is advanced by at least 31 days.\n"
    )
    out = tmp_path / "golden.jsonl"

    status = synth(
        docs, out, "--n", "8", "--kinds", "single,multi,unanswerable,reasoning,conversation"
    )

    assert status == 0
    written = out.read_text(encoding="utf-8") if out.exists() else ""
    assert "how many days" not in written


def test_an_ellipsis_follow_up_only_when_the_second_fact_asks_the_same_of_another_subject() -> None:
    import asyncio

    from pytest_ragas_gate.synth.requests import WriteQuestions
    from pytest_ragas_gate.synth.wh_english import short_name

    chunk = (
        "Description\nThe /etc/security/pam_env.conf file specifies the environment variables "
        "to be set, unset or modified by pam_env(8). Each line starts with the variable name, "
        "there are then two possible options for each variable DEFAULT and OVERRIDE. DEFAULT "
        "allows an administrator to set the value of the variable to some default value, if "
        "none is supplied then the empty string is assumed.\nThe /etc/environment file "
        "specifies the environment variables to be set."
    )
    title = "pam_env.conf, environment: the environment variables config files"
    written = [
        case
        for slot in range(3)
        for case in asyncio.run(
            OfflineSynthJudge().ask(
                WriteQuestions(
                    chunks=[chunk], titles=[title], kinds=["conversation"], avoid=["x"] * slot
                )
            )
        ).reply.questions
    ]

    assert [turn.question for case in written for turn in case.follow_ups] == []
    assert short_name(title) == "pam_env.conf"


def test_a_manual_page_items_description_ends_where_the_sections_text_resumes(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "nsswitch.conf.txt").write_text(
        "NSSWITCH.CONF(5)         Linux Programmer's Manual         NSSWITCH.CONF(5)\n\n"
        "NAME\n       nsswitch.conf - Name Service Switch configuration file\n\n"
        "DESCRIPTION\n"
        "       shadow     Shadow user passwords, used by getspnam(3) and related\n"
        "                  functions.\n\n"
        "       The GNU C Library ignores databases with unknown names.  Some\n"
        "       applications use this to implement special handling.\n"
    )
    out = tmp_path / "golden.jsonl"

    status = synth(docs, out, "--n", "4")

    asked = [json.loads(line)["question"] for line in out.read_text().splitlines()]
    assert status == 0
    assert any("GNU C Library" in question for question in asked)
    assert not [question for question in asked if "shadow" in question and "GNU" in question]


def test_a_negated_purpose_gives_no_why_question() -> None:
    chunk = "Format\nThe 'compress' format was not designed to allow consistency checks."

    assert not [q for q in questions(chunk, "gzip README") if q.startswith(("Why", "In gzip"))]


def test_a_table_row_of_names_or_an_example_above_is_no_reference() -> None:
    from pytest_ragas_gate.synth.unsure import reference_leans_on, verbless_reference

    assert verbless_reference("MAX_MEMBERS_PER_GROUP groupmems MAX_MEMBERS_PER_GROUP.")
    assert reference_leans_on("In the example above, ssh-keygen will print the fingerprint.")


def test_a_capitalised_readme_section_is_no_item_to_name_in_questions() -> None:
    chunk = "REFERENCES\nThe original JPEG standard is divided into two parts."

    assert not [q for q in questions(chunk, "libjpeg README") if "REFERENCES" in q]


def test_an_infinitive_whose_complement_is_a_time_asks_when_and_a_judgement_defines_nothing() -> (
    None
):
    chunk = (
        "Schedule\nWeekly scripts are scheduled to run on Sundays. Preferences are a strong "
        "power in the hands of an administrator, but they can become a nightmare."
    )
    asked = questions(chunk, "anacron")

    assert "In anacron, when are weekly scripts scheduled to run?" in asked
    assert not [q for q in asked if "Preferences" in q or "preferences" in q]


def test_a_second_clause_about_other_names_stays_out_of_the_reference() -> None:
    from pytest_ragas_gate.synth.offline import _reference

    chunk = "Env\nSHELL is set to /bin/sh, and LOGNAME and HOME are set from the /etc/passwd line."
    fact = chunk_facts(chunk, "crontab", False)[0]

    assert _reference(fact) == "SHELL is set to /bin/sh."


RSYSLOG_OUTCHANNEL = (
    "OUTPUT CHANNELS\nOutput channels are defined via an $outchannel directive.  It's syntax\n"
    "is as follows:\n\n    $outchannel name,file-name,max-size,action-on-max-size\n\n"
    "name is the name of the output channel (not the file), file-name is the\n"
    "file name to be written to, max-size the maximum allowed size  and ac-\n"
    "tion-on-max-size a command to be issued when the max size is reached.\n"
)


def test_a_syntax_placeholder_is_no_subject_a_question_asks_about() -> None:
    asked = questions(RSYSLOG_OUTCHANNEL, "rsyslog.conf")

    assert not [q for q in asked if re.search(r"\bwhat is name\?", q, re.I)]
    assert "In rsyslog.conf, what are output channels defined via?" in asked
    assert verdicts(
        RSYSLOG_OUTCHANNEL,
        "rsyslog.conf",
        [
            ("single", "In rsyslog.conf, what is name?", "name is the name of the output channel."),
            ("single", "In /etc/updatedb.conf, what is VARIABLE?", "VARIABLE is a string."),
        ],
    ) == [False, False]


def test_a_row_of_a_property_list_is_not_read_as_a_sentence() -> None:
    chunk = (
        "Available Properties\nmsg the MSG part of the message.\n\n"
        "rawmsg the message exactly as it was received from the socket. "
        "Should be useful for debugging."
    )

    assert not [q for q in questions(chunk, "rsyslog.conf") if "rawmsg" in q]
    assert verdicts(
        chunk,
        "rsyslog.conf",
        [
            (
                "single",
                "In rsyslog.conf, what was rawmsg the message exactly as it received from?",
                "rawmsg the message exactly as it was received from the socket.",
            )
        ],
    ) == [False]


def test_a_bare_name_and_a_verb_ask_nothing_the_answer_does_not_say() -> None:
    chunk = (
        "QUEUED OPERATIONS\nRsyslogd supports queued operations to handle offline outputs. "
        "Output channels support template definitions like all other actions."
    )
    asked = questions(chunk, "rsyslog.conf")

    assert not [q for q in asked if "rsyslogd support?" in q.lower()]
    assert "In rsyslog.conf, what do output channels support?" in asked
    assert verdicts(
        chunk,
        "rsyslog.conf",
        [
            (
                "single",
                "In rsyslog.conf, what does rsyslogd support?",
                "Rsyslogd supports queued operations to handle offline outputs.",
            ),
            ("single", "What does Sudo pass?", "Sudo passes the user's group list."),
        ],
    ) == [False, False]


def test_a_vague_noun_phrase_of_the_passage_is_no_subject() -> None:
    chunk = (
        "Socket directory\nThe socket directory must be owned by the user. "
        "The actual test is a bit more complicated."
    )

    assert not [q for q in questions(chunk, "Screen Information") if "actual test" in q]
    assert verdicts(
        chunk,
        "Screen Information",
        [
            ("single", "In sudo.conf, what is the return value?", "The return value is 0."),
            (
                "single",
                "In Screen Information, what is the actual test?",
                "The actual test is a bit more complicated.",
            ),
        ],
    ) == [False, False]


def test_an_infinitive_clause_is_not_read_as_a_subject() -> None:
    chunk = (
        "Configuration\nTo override the configuration it is recommended to create an other "
        "APT configuration file fragment which overrides the shipped default value."
    )

    assert not [q for q in questions(chunk, "Unattended upgrades") if "to override" in q]
    assert verdicts(
        chunk,
        "Unattended upgrades",
        [
            (
                "single",
                "In Unattended upgrades, what is to override the configuration it recommended to?",
                "To override the configuration it is recommended to create a fragment.",
            )
        ],
    ) == [False]


def test_a_fronted_by_default_without_its_comma_ends_the_question() -> None:
    chunk = "Schedule\nBy default unattended-upgrades runs an update every day."

    asked = questions(chunk, "Unattended upgrades")

    assert "What does unattended-upgrades run by default?" in asked
    assert not [q for q in asked if "by default unattended" in q.lower()]


def test_a_verb_clause_or_a_negation_is_no_subject() -> None:
    options = (
        "GatewayPorts\nSpecifies whether remote hosts are allowed to connect to local "
        "forwarded ports. The argument must be yes or no."
    )
    formats = (
        "Formats\nNeither man nor man-db includes a converter for the HTML format. "
        "No direct support is provided for the info format."
    )

    assert not [q for q in questions(options, "ssh_config") if "specifies" in q.lower()]
    assert questions(formats, "man-db FAQ") == []


def test_a_value_generic_noun_or_question_heading_names_nothing_without_its_item() -> None:
    chunk = (
        "PASS_MAX_DAYS\nThe maximum number of days a password may be used. "
        "A zero means the password never expires. The format is a text string. "
        "Valid arguments are any and inet. Per-cpu stats are disabled by default to save memory."
    )
    cases = [
        ("In login.defs, what does a zero mean?", "A zero means the password never expires."),
        ("In rsyncd.conf, what is the format?", "The format is a text string."),
        ("In ssh_config, what are valid arguments?", "Valid arguments are any and inet."),
        (
            "In Why does \"ps -aux\" complain about a bogus '-'?, why are per-cpu stats "
            "disabled by default?",
            "Per-cpu stats are disabled by default to save memory.",
        ),
        (
            "In login.defs, with PASS_MAX_DAYS, what does a zero mean?",
            "A zero means the password never expires.",
        ),
    ]

    assert "In login.defs, with PASS_MAX_DAYS, what does a zero mean?" in questions(
        chunk, "login.defs"
    )
    kept = verdicts(chunk, "login.defs", [("single", q, r) for q, r in cases])
    assert kept == [False, False, False, False, True]


def test_a_syntax_argument_or_a_one_word_who_is_no_answer() -> None:
    from pytest_ragas_gate.synth.specific import misread_answer

    chunk = "Scripts\nLogs are moved into directory for rotation."

    assert questions(chunk, "logrotate") == []
    assert misread_answer("who", "Dir") is not None  # "Dir::Bin" cut at its colons
    assert misread_answer("who", "the IANA") is None
    assert misread_answer("who", "IANA") is None


def test_the_whole_or_new_thing_is_asked_only_under_its_option_item() -> None:
    chunk = (
        "SCRIPTS\nThe whole pattern is passed to the script as its first argument. "
        "Later config files may override the options given in earlier files."
    )
    reference = "The whole pattern is passed to the script as its first argument."

    assert not [q for q in questions(chunk, "logrotate") if "whole pattern" in q]
    assert verdicts(
        chunk,
        "logrotate",
        [
            ("single", "In logrotate, what is the whole pattern passed to?", reference),
            (
                "single",
                "In logrotate, with firstaction, what is the whole pattern passed to?",
                reference,
            ),
        ],
    ) == [False, True]


def test_a_reference_stops_before_an_and_it_can_clause_without_a_comma() -> None:
    from pytest_ragas_gate.synth.offline import _reference

    chunk = (
        "Properties\nProperties are accessed via the property replacer and it can for "
        "example pick a substring or do date-specific formatting."
    )
    facts = chunk_facts(chunk, "rsyslog.conf", False)

    assert [_reference(fact) for fact in facts] == [
        "Properties are accessed via the property replacer."
    ]


def test_a_page_question_is_no_subject_and_a_purpose_gives_no_why() -> None:
    chunk = (
        "Questions\nIt answers questions such as:\n\n"
        "        What files include this header file?\n\n"
        "It has been released by The Santa Cruz Operation, Inc as Open Source under the BSD "
        "license.\n\nThe purpose of the left- and rightcodes is merely to reduce the amount "
        "of typing necessary."
    )
    asked = questions(chunk, "cscope")

    assert not [q for q in asked if "What files" in q or "merely" in q], asked
    assert verdicts(
        chunk,
        "dir_colors",
        [
            (
                "single",
                "In dir_colors, why is the purpose of the left- and rightcodes merely?",
                "The purpose of the left- and rightcodes is merely to reduce the amount of "
                "typing necessary.",
            )
        ],
    ) == [False]


def test_an_objects_infinitive_gives_no_why_question() -> None:
    chunk = "Building\nThe Makefile contains rules to make sbc. The bc program reads files."

    assert not [q for q in questions(chunk, "bc") if q.startswith(("Why", "In bc, why"))]


def test_a_section_of_the_page_is_no_answer() -> None:
    chunk = (
        "CONFIGURATION DIRECTORIES AND PRECEDENCE\nConfiguration files are read from "
        "directories in /etc/, /run/, /usr/local/lib/, and /lib/, in order of precedence, as "
        "listed in the SYNOPSIS section above."
    )

    assert questions(chunk, "binfmt.d") == []


def test_an_amount_of_a_which_clause_and_an_ownerless_default_are_not_asked() -> None:
    chunk = (
        "Lines\nA line cannot be longer than LINE_MAX, which should be more than 2000 bytes "
        "on all platforms. The default is true in order to keep the store nearly empty."
    )
    reference = "The default is true in order to keep the store nearly empty."

    assert questions(chunk, "netconfig") == []
    assert verdicts(
        chunk,
        "pstore.conf",
        [
            ("single", "In pstore.conf, why is the default true?", reference),
            ("single", "In pstore.conf, with Unlink=, why is the default true?", reference),
        ],
    ) == [False, True]


def test_a_bare_kind_is_no_answer_and_a_reference_link_reads_as_its_text() -> None:
    from pytest_ragas_gate.synth.offline import _reference

    vague = "Configure\nThe configure script provides a non-standard option."
    linked = (
        "History\nVersions 1.x of AT-SPI were based on [CORBA][CORBA] for inter-process "
        "communication."
    )

    assert questions(vague, "Gettext readme") == []
    assert [_reference(fact) for fact in chunk_facts(linked, "AT-SPI", False)] == [
        "Versions 1.x of AT-SPI were based on CORBA for inter-process communication."
    ]


# Parses the writer is unsure of give no case, and the critic drops them from any writer.
# Each sentence below is made up in the shape of a case a reader rejected.


def test_a_purpose_infinitive_is_not_asked_as_a_preposition() -> None:
    chunk = (
        "Naming\nThe naming of the slot was introduced to capture possible future extensions "
        "of the parser. The parser map is consulted to set up managed mount points when the "
        "daemon starts. The backup file is renamed to a temporary name in the same folder."
    )
    asked = questions(chunk, "widget.conf")

    assert not [question for question in asked if "introduced to" in question]
    assert not [question for question in asked if "consulted to" in question]
    assert verdicts(
        chunk,
        "widget.conf",
        [
            (
                "single",
                "In widget.conf, what was the naming of the slot introduced to?",
                "The naming of the slot was introduced to capture possible future extensions "
                "of the parser.",
            ),
            (
                "single",
                "In widget.conf, what is the backup file renamed to?",
                "The backup file is renamed to a temporary name in the same folder.",
            ),
        ],
    ) == [False, True]


def test_a_passive_or_a_role_is_not_asked_as_a_definition() -> None:
    chunk = (
        "Maps\nThe contents of files under the given folder are included to the main map. "
        "TCP/IPv4 is the transport to be used. Frobnicator is a daemon that watches folders."
    )
    asked = questions(chunk, "widget.conf")

    assert not [question for question in asked if "contents of files" in question]
    assert not [question for question in asked if question.endswith("TCP/IPv4?")]
    assert "What is Frobnicator?" in [question.split(", ")[-1] for question in asked] or any(
        "frobnicator?" in question.lower() for question in asked
    )
    assert verdicts(
        chunk,
        "widget.conf",
        [
            (
                "single",
                "In widget.conf, what are the contents of files under the given folder?",
                "The contents of files under the given folder are included to the main map.",
            ),
            (
                "single",
                "In widget.conf, what is TCP/IPv4?",
                "TCP/IPv4 is the transport to be used.",
            ),
            ("single", "What is Frobnicator?", "Frobnicator is a daemon that watches folders."),
        ],
    ) == [False, False, True]


def test_a_verb_coordinated_inside_an_infinitive_is_not_given_to_the_subject() -> None:
    chunk = (
        "Devices\nThe word devices will cause frobd to read /proc/devices and include all disks "
        "and volumes found there."
    )
    asked = questions(chunk, "widget.conf")

    assert not [question for question in asked if question.endswith("include?")]


def test_a_vague_quantity_is_no_answer() -> None:
    chunk = (
        "Tools\nThe home page lists a handful of tools that have been proposed. "
        "The web page lists a bunch that have been suggested. "
        "The device line may contain a number of different devices."
    )
    asked = questions(chunk, "widget")

    assert not [question for question in asked if "page list" in question]
    assert verdicts(
        chunk,
        "widget",
        [
            (
                "single",
                "In widget, what does the home page list?",
                "The home page lists a handful of tools that have been proposed.",
            ),
            (
                "single",
                "In widget, what may the device line contain?",
                "The device line may contain a number of different devices.",
            ),
        ],
    ) == [False, True]


def test_a_relative_clause_inside_a_question_is_dropped_by_the_critic() -> None:
    chunk = "Comments\nEntries whose first character is a semicolon are comments and are ignored."

    assert verdicts(
        chunk,
        "widget.conf",
        [
            (
                "single",
                "In widget.conf, what is entries whose first character?",
                "Entries whose first character is a semicolon are comments.",
            )
        ],
    ) == [False]


def test_a_comment_of_a_manual_pages_example_gives_no_question(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "widget.conf.5.txt").write_text(
        "WIDGET.CONF(5)                File Formats                WIDGET.CONF(5)\n\n"
        "NAME\n       widget.conf - configuration file of the frob daemon\n\n"
        "DESCRIPTION\n       The file widget.conf holds the defaults of the frob daemon.\n"
        "       The frob daemon reads the file at start-up.\n\n"
        'EXAMPLES\n       [ Server "files.example.org" ]\n'
        "       # TCP/IPv4 is the transport that the server understands\n"
        "       proto=tcp\n"
        "       # Frobd is a daemon that watches folders\n"
        "       watch=/srv\n"
    )
    out = tmp_path / "golden.jsonl"

    assert synth(docs, out, "--n", "6") == 0
    asked = [json.loads(line)["question"] for line in out.read_text().splitlines()]
    assert asked
    assert not [question for question in asked if "TCP/IPv4" in question or "frobd" in question]


def test_a_reference_pointing_back_with_therein_is_dropped() -> None:
    chunk = "Devices\nThe device list includes all disks and volumes found therein."
    asked = questions(chunk, "widget.conf")

    assert not [question for question in asked if "device list" in question]
    assert verdicts(
        chunk,
        "widget.conf",
        [
            (
                "single",
                "In widget.conf, what does the device list include?",
                "The device list includes all disks and volumes found therein.",
            )
        ],
    ) == [False]


def test_the_summary_counts_the_facts_refused_as_unsure_by_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "widget.md").write_text(
        "# Widget\n\n"
        "The naming of the slot was introduced to capture possible future extensions. "
        "The home page lists a handful of tools that have been proposed. "
        "The cache folder keeps all files found therein for seven days. "
        "Guided tours of the widget factory last 45 minutes.\n"
    )
    out = tmp_path / "golden.jsonl"

    assert synth(docs, out, "--n", "3", "--kinds", "single") == 0
    printed = capsys.readouterr().out
    refused = re.search(r"refused (\d+) facts the writer was unsure of: (.*)", printed)
    assert refused is not None, printed
    assert int(refused.group(1)) >= 3
    assert "1 misread sentence (a clause, list row or purpose" in refused.group(2)
    assert "1 reference leaning on its page (this, such, therein" in refused.group(2)
    asked = [json.loads(line)["question"] for line in out.read_text().splitlines()]
    # "tours of": a plural noun before "of" heads the subject, it is not the verb.
    assert asked == ["How long do guided tours of the widget factory last?"]


def test_a_hash_inside_wrapped_prose_of_a_manual_page_stays_prose(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "widget.conf.5.txt").write_text(
        "WIDGET.CONF(5)                File Formats                WIDGET.CONF(5)\n\n"
        "NAME\n       widget.conf - configuration file of the frob daemon\n\n"
        "DESCRIPTION\n       The syntax of the file resembles the syntax of shell scripts.\n"
        "       Lines starting with\n"
        "       # are treated as comments by the frob daemon.\n"
    )
    out = tmp_path / "golden.jsonl"

    assert synth(docs, out, "--n", "4", "--kinds", "single") == 0
    asked = [json.loads(line)["question"] for line in out.read_text().splitlines()]
    assert any("lines starting with #" in question for question in asked), asked


def test_an_answer_that_points_elsewhere_in_the_page_is_no_answer() -> None:
    chunk = (
        "Options\nArguments to Widgetd accept the tokens described in the PATTERNS section. "
        "The four log levels are the same as for the --verbose option. "
        "Arguments to Frobd accept a comma-separated list of host names."
    )
    asked = questions(chunk, "widget.conf")

    assert not [question for question in asked if "Widgetd" in question or "levels" in question]
    assert any("Frobd" in question for question in asked), asked
    assert verdicts(
        chunk,
        "widget.conf",
        [
            (
                "single",
                "In widget.conf, what do arguments to Widgetd accept?",
                "Arguments to Widgetd accept the tokens described in the PATTERNS section.",
            )
        ],
    ) == [False]


def test_the_critic_drops_an_amount_or_date_asked_of_the_wrong_clause() -> None:
    chunk = (
        "Limits\nIn version 2.1 and earlier, the cache is limited to four folders with a total "
        "of 200 files. The reader uses a buffer size of 4096 bytes for the '-r' and '-w' "
        "options. Archives are pruned once each night, or if the clock is advanced by at least "
        "5 hours since the last pruning. The clock must be set past Mar 3rd 1999 for the import "
        "to work. The widget cache holds 300 files. The widget cache was first released in "
        "March 2012. Presets are a strong tool in the hands of an administrator, but they can "
        "become a burden."
    )
    cases = [
        (
            "In widget.conf, how many files is the cache limited to four folders with a total "
            "in version 2.1 and earlier?",
            "In version 2.1 and earlier, the cache is limited to four folders with a total of "
            "200 files.",
        ),
        (
            "In widget.conf, how many bytes does the reader use a buffer size for the '-r'?",
            "The reader uses a buffer size of 4096 bytes for the '-r' and '-w' options.",
        ),
        (
            "In widget.conf, at least by how many hours are archives pruned once each night?",
            "Archives are pruned once each night, or if the clock is advanced by at least 5 "
            "hours since the last pruning.",
        ),
        (
            "In widget.conf, when must the clock be set past Mar 3rd for the import?",
            "The clock must be set past Mar 3rd 1999 for the import to work.",
        ),
        (
            "In widget.conf, what are presets?",
            "Presets are a strong tool in the hands of an administrator, but they can become a "
            "burden.",
        ),
        (
            "In widget.conf, how many files does the widget cache hold?",
            "The widget cache holds 300 files.",
        ),
        (
            "When was the widget cache first released?",
            "The widget cache was first released in March 2012.",
        ),
    ]

    kept = verdicts(chunk, "widget.conf", [("single", q, r) for q, r in cases])

    assert kept == [False, False, False, False, False, True, True]


def test_a_question_whose_verb_does_not_agree_with_its_subject_is_dropped() -> None:
    chunk = "Policies\nA POLICY-LINE line identify the path to one or more disk devices."

    assert not [question for question in questions(chunk, "widget.conf") if " do a " in question]
    assert verdicts(
        chunk,
        "widget.conf",
        [
            (
                "single",
                "In widget.conf, what do a POLICY-LINE line identify?",
                "A POLICY-LINE line identify the path to one or more disk devices.",
            )
        ],
    ) == [False]


def test_a_pronoun_subject_is_named_in_the_reference() -> None:
    chunk = (
        "Frobnicator\nFrobnicator is a small tool that archives log files. "
        "It was written by Jane Doe in 2019."
    )
    facts = chunk_facts(chunk, "Frobnicator", False)
    asked = {fact.question: offline_reference(fact) for fact in facts}

    when = [reference for question, reference in asked.items() if question.startswith("When")]
    assert when == ["Frobnicator was written by Jane Doe in 2019."], asked


def test_a_reference_stops_before_a_second_verb_phrase_with_its_own_auxiliary() -> None:
    chunk = (
        "History\nFrobd was originally written by John Smith in 1998 and is now maintained by "
        "the Widget team. The frobd timeout is measured in seconds and defaults to 30."
    )
    facts = chunk_facts(chunk, "frobd", False)
    references = {fact.question: offline_reference(fact) for fact in facts}

    assert "Frobd was originally written by John Smith in 1998." in references.values(), references
    assert "The frobd timeout is measured in seconds." in references.values(), references


def test_a_multi_question_whose_half_needs_an_option_item_is_dropped() -> None:
    chunks = [
        "ServerAliveInterval\nServerAliveInterval sets a timeout interval in seconds.",
        "BatchMode\nIf BatchMode is set, the ServerAliveInterval option will be set to 300 "
        "seconds by default.",
    ]
    candidates = [
        Candidate(
            kind="multi",
            question=question,
            reference="ServerAliveInterval sets a timeout interval in seconds. The "
            "ServerAliveInterval option will be set to 300 seconds by default.",
            chunks=[0, 1],
        )
        for question in (
            "What is ServerAliveInterval in ssh_config, and with BatchMode, to how many "
            "seconds will the ServerAliveInterval option be set by default?",
            "What is ServerAliveInterval in ssh_config, and to how many seconds will the "
            "ServerAliveInterval option be set by default?",
        )
    ]
    titles = ["ssh_config", "ssh_config"]
    reply = OfflineSynthJudge(chunks, titles).critique(
        CritiqueQuestions(chunks=chunks, titles=titles, candidates=candidates)
    )

    assert [verdict.keep for verdict in reply.verdicts] == [False, True]


def test_a_value_read_as_a_subject_gives_no_question() -> None:
    chunk = (
        "MaxConnections\nLimits the number of simultaneous connections to the upstream server. "
        "The default of 4 is suitable for most servers."
    )
    asked = questions(chunk, "quuxd.conf")

    assert not [question for question in asked if "of 4" in question], asked
    assert verdicts(
        chunk,
        "quuxd.conf",
        [
            (
                "single",
                "In quuxd.conf, with MaxConnections, what is the default of 4?",
                "The default of 4 is suitable for most servers.",
            )
        ],
    ) == [False]


def test_a_reference_stops_before_a_second_passive_participle() -> None:
    chunk = "Logs\nZork logs are written to /var/log/zork.log and rotated weekly by logrotate."
    references = [offline_reference(fact) for fact in chunk_facts(chunk, "zork", False)]

    assert "Zork logs are written to /var/log/zork.log." in references, references


def test_an_faq_answer_label_is_no_part_of_its_sentence() -> None:
    chunk = (
        "Thumbnails\nQ: Where does plinth keep its thumbnails?\n"
        "A: Plinth thumbnails are stored in ~/.cache/plinth."
    )

    assert questions(chunk, "plinth FAQ") == ["What are plinth thumbnails stored in?"]


def test_a_term_whose_paragraph_says_anything_of_its_default_or_absence_is_no_near_miss() -> None:
    from pytest_ragas_gate.synth.offline import Corpus

    chunk = (
        "DESCRIPTION\nMailTo\nSends a report to an address after each run. If no address is "
        "given, no report is sent.\n\nLogLevel\nSets the log level. Unless set, only errors "
        "are logged.\n\nNiceLevel\nSets the priority; the defaults differ per platform.\n"
        "\nPortNumber\nSpecifies the port number.  The default is 22.\n\nHostAlias\n"
        "Specifies another name for the host.\n"
    )
    corpus = Corpus([chunk], ["frob.conf"], ["frob.conf"])

    assert corpus.terms_without_default("PortNumber", "frob.conf") == ["HostAlias"]


def test_a_word_after_a_preposition_is_never_read_as_the_verb() -> None:
    chunk = "Names\nDots in host names must be escaped with a backslash."
    asked = questions(chunk, "frobd")

    assert not [question for question in asked if question.endswith(" in host?")], asked
    assert verdicts(
        chunk,
        "frobd",
        [
            (
                "single",
                "In frobd, what do dots in host?",
                "Dots in host names must be escaped with a backslash.",
            )
        ],
    ) == [False]


def test_a_default_of_yes_or_a_file_name_is_an_answer_not_a_repeat_of_the_question() -> None:
    chunk = (
        "Options\nPasswordAuthentication\nSpecifies whether to use password authentication. "
        "The argument must be yes or no. The default is yes.\n\nProtocol\n"
        "The frob packet protocol is implemented in packet.c."
    )
    asked = questions(chunk, "frob_config")

    assert "What is the default of PasswordAuthentication in frob_config?" in asked, asked
    assert any(question.endswith("protocol implemented in?") for question in asked), asked


def test_a_verb_without_an_object_is_not_asked_what_it_takes() -> None:
    chunk = "Tips\nLarge collections index faster on an SSD. Small widget files load quickly."
    asked = questions(chunk, "plinth")

    assert not [question for question in asked if question.endswith(("index?", "load?"))], asked
    assert verdicts(
        chunk,
        "plinth",
        [
            (
                "single",
                "In plinth, what do large collections index?",
                "Large collections index faster on an SSD.",
            )
        ],
    ) == [False]


def test_a_limit_or_a_maximum_of_nothing_named_gives_no_question() -> None:
    chunk = "Limits\nThe limit is 100 jobs per user. The maximum is 8 workers."
    asked = questions(chunk, "frobd")

    assert asked == [], asked


def test_an_option_with_a_placeholder_gives_its_default_and_a_described_option_its_use() -> None:
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = (
        "OPTIONS\n-t seconds\nWait at most seconds for an answer. The default is 10.\n"
        "FROB_SOCKET\nOverrides the socket path. Takes precedence over -c.\n"
    )
    facts = {fact.question: fact.sentence for fact in term_facts(chunk, "frobctl")}

    assert facts == {
        "What is the default of -t in frobctl?": "-t defaults to 10.",
        "What is FROB_SOCKET in frobctl?": "FROB_SOCKET overrides the socket path.",
    }


def test_an_option_written_with_its_equals_sign_and_its_text_on_one_line_is_an_item() -> None:
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = (
        'Server\nuse-frob= Takes a boolean value ("yes" or "no"). If set to "no" frobd '
        'will not use frob sockets. Default is "yes".\n'
        "frob-name= Set the host name frobd tries to register on the LAN. If omitted defaults "
        "to the system host name.\n"
    )
    facts = {fact.question: fact.sentence for fact in term_facts(chunk, "frobd.conf")}

    assert facts == {
        "What is the default of use-frob in frobd.conf?": 'use-frob defaults to "yes".',
        "What is the default of frob-name in frobd.conf?": (
            "frob-name defaults to the system host name."
        ),
        "What is frob-name in frobd.conf?": (
            "frob-name sets the host name frobd tries to register on the LAN."
        ),
    }


def test_a_type_sentence_is_no_use_unless_it_says_what_the_value_specifies() -> None:
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = (
        "Server\nentries-max= Takes an unsigned integer specifying how many frobs are kept "
        "per interface. Bigger values cost memory. Defaults to 4096.\n"
        "use-wide= Takes a boolean value. If set frobd spreads wide.\n"
    )
    facts = {fact.question: fact.sentence for fact in term_facts(chunk, "frobd.conf")}

    assert facts == {
        "What is the default of entries-max in frobd.conf?": "entries-max defaults to 4096.",
        "What is entries-max in frobd.conf?": (
            "entries-max specifies how many frobs are kept per interface."
        ),
    }


def test_if_omitted_and_this_option_defaults_to_state_a_default() -> None:
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = (
        "OPTIONS\nFROB_CACHE\nSets the size of the frob cache. This option defaults to 4096.\n"
        "FROB_HOST\nNames the host to register. If omitted defaults to the system host name.\n"
        "FROB_WIDE\nSpreads frobs wide. Defaults to no.\n"
    )
    facts = {fact.question: fact.sentence for fact in term_facts(chunk, "frobd.conf")}

    assert facts["What is the default of FROB_CACHE in frobd.conf?"] == (
        "FROB_CACHE defaults to 4096."
    )
    assert facts["What is the default of FROB_HOST in frobd.conf?"] == (
        "FROB_HOST defaults to the system host name."
    )
    assert facts["What is the default of FROB_WIDE in frobd.conf?"] == "FROB_WIDE defaults to no."


def test_an_option_with_its_equals_sign_whose_paragraph_gives_a_default_is_no_near_miss() -> None:
    from pytest_ragas_gate.synth.offline import Corpus

    chunk = (
        'Server\nuse-frob=\nTakes a boolean value. Default is "yes".\n\n'
        "frob-name=\nSet the host name to register. If omitted defaults to the system host "
        "name.\n\ncache-size=\nSets the size of the frob cache. This option defaults to 4096."
        "\n\nratelimit-burst=\nSets the burst of packets frobd sends in one interval.\n"
    )
    corpus = Corpus([chunk], ["frobd.conf"], ["frobd.conf"])

    assert corpus.terms_without_default("use-frob", "frobd.conf") == ["ratelimit-burst"]


def test_an_option_of_two_spellings_is_one_term_and_a_flag_is_no_near_miss() -> None:
    from pytest_ragas_gate.synth.offline import Corpus
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = (
        "OPTIONS\n-v, --verbose\nPrint each command before it is sent.\n"
        "-q, --quiet\nPrint nothing but errors.\nFROB_SOCKET\nOverrides the socket path.\n"
        "FROB_TIMEOUT\nSets the timeout. The default is 10.\n"
    )
    facts = {fact.question: fact.sentence for fact in term_facts(chunk, "frobctl")}
    corpus = Corpus([chunk], ["frobctl"], ["frobctl"])

    assert facts["What is --verbose in frobctl?"] == (
        "--verbose prints each command before it is sent."
    ), facts
    assert corpus.terms_without_default("FROB_TIMEOUT", "frobctl") == ["FROB_SOCKET"]


def test_a_mode_or_a_function_word_is_no_amount() -> None:
    chunk = "Socket\nThe frobd socket is created with mode 0600 for security reasons."
    asked = questions(chunk, "frobd")

    assert not [question for question in asked if "how many" in question.lower()], asked
    assert verdicts(
        chunk,
        "frobd",
        [
            (
                "single",
                "In frobd, how many for security reasons is the frobd socket created with mode?",
                "The frobd socket is created with mode 0600 for security reasons.",
            )
        ],
    ) == [False]


def test_an_amount_of_a_named_resource_and_a_second_verb_in_es_read_cleanly() -> None:
    chunk = (
        "Needs\nFrobd needs 2 GB of RAM on large mirrors. "
        "The frobd rotator keeps 7 rotated logs and compresses all but the newest."
    )
    facts = {fact.question: offline_reference(fact) for fact in chunk_facts(chunk, "frobd", False)}

    assert "How much RAM does frobd need on large mirrors?" in facts, facts
    assert "The frobd rotator keeps 7 rotated logs." in facts.values(), facts


def test_a_verb_coordinated_with_an_infinitive_stays_in_the_reference() -> None:
    chunk = (
        "Methods\nThe frob method invokes FROBSH to connect to a remote host and access the "
        "files as a given user."
    )
    references = [offline_reference(fact) for fact in chunk_facts(chunk, "frob", False)]

    assert all(reference.endswith("as a given user.") for reference in references), references
    assert references


def test_a_subject_pointing_back_with_further_or_latter_is_dropped() -> None:
    chunk = "Queue\nThe queue holds 500 jobs; further jobs are rejected with error 503."

    assert not [q for q in questions(chunk, "frobd") if "further" in q]
    assert verdicts(
        chunk,
        "frobd",
        [
            (
                "single",
                "In frobd, what are further jobs rejected with?",
                "Further jobs are rejected with error 503.",
            )
        ],
    ) == [False]


def test_the_critic_keeps_a_default_of_yes_it_would_have_written_itself() -> None:
    chunk = (
        "PubkeyAuthentication\nSpecifies whether to try public key authentication. "
        "The default is yes.\n"
    )

    assert verdicts(
        chunk,
        "frob_config",
        [
            (
                "single",
                "What is the default of PubkeyAuthentication in frob_config?",
                "PubkeyAuthentication defaults to yes.",
            )
        ],
    ) == [True]


def test_a_file_name_title_keeps_the_names_it_spells(tmp_path: Path) -> None:
    from pytest_ragas_gate.synth.documents import read_documents

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("frobd_README.Debian.txt", "harbor_museum.txt", "Harbor_Museum_Guide.txt"):
        (docs / name).write_text("The ferry leaves at noon every day.\n", encoding="utf-8")

    titles = sorted(document.title for document in read_documents([docs]))

    assert titles == ["Frobd README Debian", "Harbor museum", "Harbor museum guide"]


def test_an_html_page_without_a_declared_charset_is_read_as_browsers_read_it(
    tmp_path: Path,
) -> None:
    from pytest_ragas_gate.synth.documents import read_documents

    docs = tmp_path / "docs"
    docs.mkdir()
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html">'
        "<title>Frob notes</title></head><body><p>Fix typos (Jan Pokorn\xfd), "
        "and the ferry leaves at noon \u201cevery\u201d day.</p></body></html>"
    )
    (docs / "notes.html").write_bytes(page.encode("cp1252"))
    (docs / "plain.txt").write_text("The ferry leaves at noon.\n", encoding="utf-8")

    texts = {document.title: document for document in read_documents([docs])}

    body = " ".join(chunk for chunk in texts["Frob notes"].text.split())
    assert "Jan Pokorn\u00fd" in body
    assert "\u201cevery\u201d" in body


def test_a_purpose_after_used_or_designed_is_asked_what_for_and_a_cause_stays_why() -> None:
    chunk = (
        "Frobsite\nThe frobsite helper can be used to enable a site. "
        "The frobdump tool may be used to dump the queue. "
        "The frobctl command is used to restart the daemon. "
        "The frobgate module is designed to enable remote sites. "
        "The frobd daemon must be restarted because the cache is stale."
    )
    facts = chunk_facts(chunk, "frob", False)
    asked = {fact.question: offline_reference(fact) for fact in facts}

    assert asked["In frob, what can the frobsite helper be used for?"] == (
        "The frobsite helper can be used to enable a site."
    )
    assert asked["In frob, what may the frobdump tool be used for?"] == (
        "The frobdump tool may be used to dump the queue."
    )
    assert asked["In frob, what is the frobctl command used for?"] == (
        "The frobctl command is used to restart the daemon."
    )
    assert "In frob, what is the frobgate module designed to do?" in asked
    assert "In frob, why must the frobd daemon be restarted?" in asked
    assert verdicts(
        chunk,
        "frob",
        [
            (
                "single",
                "In frob, why can the frobsite helper be used?",
                "The frobsite helper can be used to enable a site.",
            ),
            (
                "single",
                "In frob, what can the frobsite helper be used for?",
                "The frobsite helper can be used to enable a site.",
            ),
            (
                "single",
                "In frob, why must the frobd daemon be restarted?",
                "The frobd daemon must be restarted because the cache is stale.",
            ),
        ],
    ) == [False, True, True]
    assert not [
        question for question in asked if re.search(r"why \w+ .* (?:used|designed)\?", question)
    ]


def test_a_default_stated_without_its_option_under_an_option_item_names_the_option() -> None:
    chunk = (
        "frob.conf\nGROUP_NOTE\n    Default value is a general note using SUPPORT.\n"
        "FROB_ECHO\n    Default value is the quiet echo.\n"
    )
    asked = {
        fact.question: offline_reference(fact) for fact in chunk_facts(chunk, "frob.conf", False)
    }

    assert asked == {
        "What is the default of GROUP_NOTE in frob.conf?": (
            "GROUP_NOTE defaults to a general note using SUPPORT."
        ),
        "What is the default of FROB_ECHO in frob.conf?": "FROB_ECHO defaults to the quiet echo.",
    }


def test_a_subject_pointing_back_with_corresponding_or_respective_is_refused_and_dropped() -> None:
    from pytest_ragas_gate.synth.offline import _chunk_reading

    chunk = "Sites\nThe corresponding .conf files contain configuration directives for each site."
    facts, refused = _chunk_reading(chunk, "frob", False, frozenset())

    assert [fact.question for fact in facts if "corresponding" in fact.question] == []
    assert "vague" in refused
    assert verdicts(
        chunk,
        "frob",
        [
            (
                "single",
                "In frob, what do the corresponding .conf files contain?",
                "The corresponding .conf files contain configuration directives for each site.",
            ),
            (
                "single",
                "In frob, what do the respective .conf files contain?",
                "The respective .conf files contain configuration directives for each site.",
            ),
            (
                "single",
                "In frob, what must the named script contain?",
                "The named script must contain configuration directives for each site.",
            ),
            (
                "single",
                "In frob, what do the corresponding .conf files of a site contain?",
                "The corresponding .conf files contain configuration directives for each site.",
            ),
        ],
    ) == [False, False, False, True]


def test_a_default_that_is_an_infinitive_is_stated_without_a_doubled_to() -> None:
    from pytest_ragas_gate.synth.terms import term_facts

    chunk = (
        "AskAfterFetch\n"
        "    If true the fetch step of frobctl will always ask to continue. "
        "The default is to ask only on error."
    )

    references = [fact.sentence for fact in term_facts(chunk, "frob.conf")]

    assert "The default of AskAfterFetch is to ask only on error." in references
    assert not any("to to" in reference for reference in references)


def test_a_files_row_is_a_term_and_its_description_no_sentence() -> None:
    from pytest_ragas_gate.synth.offline import _chunk_reading

    for chunk in (
        "FILES\n       $HOME/frobbox\n              The user's archive of read messages.",
        "FILES\n       $HOME/frobbox  The user's archive of read messages.",
    ):
        facts, _ = _chunk_reading(chunk, "frobbox", False, frozenset())

        assert [(fact.question, offline_reference(fact)) for fact in facts] == [
            (
                "What is $HOME/frobbox in frobbox?",
                "$HOME/frobbox is the user's archive of read messages.",
            )
        ]


def test_a_capitals_heading_over_advice_is_no_subject_and_advice_no_fact() -> None:
    from pytest_ragas_gate.synth.offline import _chunk_reading

    chunk = "GENERAL\nMake sure to adapt /etc/frob.conf to your needs."
    facts, refused = _chunk_reading(chunk, "frob for Debian", False, frozenset())

    assert facts == ()
    assert "misread" in refused
    assert verdicts(
        chunk,
        "frob for Debian",
        [("single", "What is GENERAL in frob?", "GENERAL makes sure to adapt /etc/frob.conf.")],
    ) == [False]


def test_a_multi_question_of_two_kept_single_cases_or_of_a_page_citation_is_dropped() -> None:
    from pytest_ragas_gate.synth.entities import named_things

    chunks = [
        "Frobproxy config file\nThe Frobproxy config file is /etc/frobproxy.conf, read at start.",
        "Manual\nThe frobproxy(8) manual page contains the list of signals frobproxy handles.",
    ]
    titles = ["frobproxy", "frobproxy"]
    single_a = "What is the Frobproxy config file?"
    single_b = "What does the frobproxy(8) manual page contain?"
    candidates = [
        Candidate(kind="single", question=single_a, reference=chunks[0].split("\n")[1], chunks=[0]),
        Candidate(kind="single", question=single_b, reference=chunks[1].split("\n")[1], chunks=[1]),
        Candidate(
            kind="multi",
            question="What is the Frobproxy config file, and what does the frobproxy(8) manual "
            "page contain?",
            reference=chunks[0].split("\n")[1] + " " + chunks[1].split("\n")[1],
            chunks=[0, 1],
        ),
    ]
    reply = OfflineSynthJudge(chunks, titles).critique(
        CritiqueQuestions(chunks=chunks, titles=titles, candidates=candidates)
    )

    assert [verdict.keep for verdict in reply.verdicts][2] is False
    assert "frobproxy" not in named_things(single_b, {"frobproxy"})
    assert "frobproxy" in named_things("What does frobproxy handle?", {"frobproxy"})


def test_a_reference_that_only_restates_the_name_is_vague() -> None:
    from pytest_ragas_gate.synth.offline import _chunk_reading

    for chunk in ("LogLevel\nSets the log level.", "LogLevel\nLogLevel sets the log levels."):
        facts, refused = _chunk_reading(chunk, "frob.conf", False, frozenset())

        assert facts == ()
        assert "vague" in refused
    assert questions("LogLevel\nSets the level of detail of the frob log.", "frob.conf") == [
        "What is LogLevel in frob.conf?"
    ]
    assert verdicts(
        "LogLevel\nSets the log level.",
        "frob.conf",
        [("single", "What is LogLevel in frob.conf?", "LogLevel sets the log level.")],
    ) == [False]


def test_a_rendered_link_target_is_stripped_from_the_reference() -> None:
    from pytest_ragas_gate.synth.offline import _chunk_reading

    for anchor in ("<#std-iscman-frobd>", "<https://frob.example/frobd>"):
        chunk = f"Rules\nThe frobd {anchor} daemon was written by Jane Doe in 2019."
        facts, _ = _chunk_reading(chunk, "frob", False, frozenset())

        references = [offline_reference(fact) for fact in facts]
        assert references
        assert all("<" not in reference for reference in references)
        assert "The frobd daemon was written by Jane Doe in 2019." in references


def test_an_html_page_declaring_utf8_that_is_not_is_an_error_naming_the_byte(
    tmp_path: Path,
) -> None:
    from pytest_ragas_gate.synth.documents import DocumentError, read_documents

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.html").write_bytes(
        b'<html><head><meta charset="utf-8"><title>Frob</title></head>'
        b"<body><p>Jan Pokorn\xfd fixed typos.</p></body></html>"
    )

    with pytest.raises(DocumentError, match=r"notes\.html: not UTF-8 text \(byte 79\)"):
        read_documents([docs])
