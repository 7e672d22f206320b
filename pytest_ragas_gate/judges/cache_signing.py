"""Ed25519 signatures on judge-cache entries, so that a pull request cannot forge a reply.

A cache entry is a JSON file anybody with write access to the repository can edit; in
``read`` mode (forks, keyless CI) the gate would replay whatever it finds. A team that
runs ``rag-gate keygen`` keeps the private key as a CI secret (``RAG_GATE_SIGNING_KEY``)
and commits the public key (``cache_public_key``): the runs with the secret sign every
entry they write, and every run, with or without the secret, replays only entries that
verify against the public key. Without a public key nothing is verified (trust on first
use): whatever is in the cache directory is replayed.

The signature covers the entry's canonical JSON (its key, reply, usage and descriptive
fields) without the ``signature`` field itself; the entry names the signer by the
fingerprint of its public key, so a foreign key is told apart from an edit. The private
key is read from the environment only and never written anywhere: not to an entry, a
report, a log line or an error message.

``cryptography`` (the ``signing`` extra) is imported only when a key is used.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from typing import Any

from ..exceptions import ConfigError, UsageError
from ..text_safety import json_text
from .cache_integrity import CacheIntegrity

__all__ = [
    "SIGNING_KEY_ENV",
    "CacheIntegrity",
    "EntrySigner",
    "EntryVerifier",
    "check_public_key",
    "generate_key_pair",
    "signer_from_env",
]

#: The environment variable that holds the private key (a CI secret).
SIGNING_KEY_ENV = "RAG_GATE_SIGNING_KEY"

#: Raw Ed25519 keys are 32 bytes.
KEY_BYTES = 32

#: Why an entry was not replayed, as the summary says it.
UNSIGNED = "unsigned"
EDITED = "edited after signing"
FOREIGN = "signed by another key"

_INSTALL_HINT = "install it with `pip install 'pytest-ragas-gate[signing]'`"


def _decode_key(text: str) -> bytes | None:
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == KEY_BYTES else None


def check_public_key(value: Any) -> Any:
    """Validate ``cache_public_key``: None, or the base64 of a 32-byte Ed25519 public key.

    >>> check_public_key(None) is None
    True
    >>> check_public_key("A" * 43 + "=")[:4]
    'AAAA'
    >>> check_public_key("not a key")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cache.public_key is not an Ed25519 public key: ...
    """
    if value is None:
        return None
    if not isinstance(value, str) or _decode_key(value) is None:
        raise ValueError(
            "cache.public_key is not an Ed25519 public key: expected the base64 of 32 "
            "bytes, as `rag-gate keygen` prints it"
        )
    return value.strip()


def fingerprint(public_key: str) -> str:
    """A short, stable name of a public key (hex of the sha256 of its raw bytes).

    >>> fingerprint("A" * 43 + "=")
    '66687aadf862bd77'
    """
    raw = _decode_key(public_key)
    assert raw is not None, "fingerprint() takes a validated public key"
    return hashlib.sha256(raw).hexdigest()[:16]


def _cryptography() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as error:
        raise UsageError(
            f"Signed judge-cache entries need the cryptography package: {_INSTALL_HINT}."
        ) from error
    return ed25519


def generate_key_pair() -> tuple[str, str]:
    """A new Ed25519 key pair as ``(private key, public key)``, each base64 of 32 bytes."""
    private = _cryptography().Ed25519PrivateKey.generate()
    # The *_raw methods, not private_bytes(Encoding.Raw, …): no serialization enums whose
    # classes a re-import (pytester restores sys.modules) would make unrecognisable.
    private_raw = private.private_bytes_raw()
    public_raw = private.public_key().public_bytes_raw()
    return base64.b64encode(private_raw).decode("ascii"), base64.b64encode(public_raw).decode(
        "ascii"
    )


def signed_bytes(entry: Mapping[str, Any]) -> bytes:
    """What the signature covers: the entry's canonical JSON without its signature."""
    unsigned = {name: value for name, value in entry.items() if name != "signature"}
    return json_text(unsigned, sort_keys=True, separators=(",", ":")).encode("utf-8")


class EntrySigner:
    """Signs cache entries with the private key of ``RAG_GATE_SIGNING_KEY``.

    The key object is kept; its text is not, and ``repr`` shows only the fingerprint.
    """

    def __init__(self, private_key: str) -> None:
        raw = _decode_key(private_key)
        if raw is None:
            # The value itself is a secret: the message never quotes it.
            raise UsageError(
                f"{SIGNING_KEY_ENV} is not an Ed25519 private key: expected the base64 of "
                "32 bytes, as `rag-gate keygen` prints it; set the secret again from its output."
            )
        self._key = _cryptography().Ed25519PrivateKey.from_private_bytes(raw)
        public_raw = self._key.public_key().public_bytes_raw()
        self.public_key = base64.b64encode(public_raw).decode("ascii")
        self.signed_by = fingerprint(self.public_key)

    def __repr__(self) -> str:
        return f"EntrySigner(signed_by={self.signed_by!r})"

    def sign(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """``entry`` with its ``signature`` field: the signer's fingerprint and signature."""
        signature = self._key.sign(signed_bytes(entry))
        return {
            **entry,
            "signature": {
                "signed_by": self.signed_by,
                "ed25519": base64.b64encode(signature).decode("ascii"),
            },
        }


class EntryVerifier:
    """Checks cache entries against ``cache_public_key``."""

    def __init__(self, public_key: str) -> None:
        raw = _decode_key(public_key)
        if raw is None:
            raise ConfigError(
                "cache.public_key is not an Ed25519 public key: expected the base64 of 32 "
                "bytes, as `rag-gate keygen` prints it."
            )
        self._key = _cryptography().Ed25519PublicKey.from_public_bytes(raw)
        self.public_key = public_key
        self.fingerprint = fingerprint(public_key)

    def __repr__(self) -> str:
        return f"EntryVerifier(fingerprint={self.fingerprint!r})"

    def problem(self, entry: Mapping[str, Any]) -> str | None:
        """Why ``entry`` must not be replayed, or None when it carries a valid signature."""
        signature = entry.get("signature")
        if not isinstance(signature, dict) or not isinstance(signature.get("ed25519"), str):
            return UNSIGNED
        if signature.get("signed_by") != self.fingerprint:
            return FOREIGN
        try:
            raw = base64.b64decode(signature["ed25519"], validate=True)
            self._key.verify(raw, signed_bytes(entry))
        except Exception:
            # InvalidSignature, bad base64, a wrong length: whatever the reason, a signature
            # that does not verify is never replayed. (Not `except InvalidSignature`: a
            # re-imported cryptography.exceptions would hold another class of that name.)
            return EDITED
        return None


def signer_from_env(env: Mapping[str, str], public_key: str | None) -> EntrySigner | None:
    """The signer of ``RAG_GATE_SIGNING_KEY``, or None when it is not set.

    Raises:
        UsageError: the key is malformed, or it does not belong to ``cache_public_key``
            (its entries would all be rejected by the next run).
    """
    private_key = env.get(SIGNING_KEY_ENV)
    if not private_key:
        return None
    signer = EntrySigner(private_key)
    if public_key is not None and fingerprint(public_key) != signer.signed_by:
        raise UsageError(
            f"{SIGNING_KEY_ENV} does not belong to cache.public_key (its public key has "
            f"fingerprint {signer.signed_by}, cache.public_key has {fingerprint(public_key)}): "
            "every entry this run wrote would be rejected. Set the secret and the key "
            "from the same `rag-gate keygen` output."
        )
    return signer
