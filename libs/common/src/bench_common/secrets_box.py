"""Crypto-shredding of run credentials.

Each run gets a random 256-bit data key. Credentials are sealed with AES-256-GCM under it and
only the ciphertext is ever published. The data key lives in memory-backed storage (a NATS KV
bucket with memory storage) and is deleted when the run finishes, after which every copy of
the ciphertext in the event log is unrecoverable. The run id is bound as associated data, so a
ciphertext cannot be replayed into another run.
"""

from __future__ import annotations

import base64
import os

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bench_common.events import SealedSecret
from bench_common.ids import new_id


def new_data_key() -> bytes:
    """A fresh random 256-bit key."""
    return AESGCM.generate_key(bit_length=256)


def seal(secret: str, *, key: bytes, key_id: str, run_id: str) -> SealedSecret:
    """Encrypt `secret` for `run_id`."""
    nonce = os.urandom(12)
    ciphertext = AESGCM(key).encrypt(nonce, secret.encode(), run_id.encode())
    return SealedSecret(
        key_id=key_id,
        nonce=base64.b64encode(nonce).decode(),
        ciphertext=base64.b64encode(ciphertext).decode(),
    )


def unseal(sealed: SealedSecret, *, key: bytes, run_id: str) -> str:
    """Decrypt a sealed secret.

    Raises:
        cryptography.exceptions.InvalidTag: wrong key, wrong run, or tampered ciphertext.
    """
    nonce = base64.b64decode(sealed.nonce)
    plain = AESGCM(key).decrypt(nonce, base64.b64decode(sealed.ciphertext), run_id.encode())
    return plain.decode()


def new_key_id() -> str:
    """An id naming a data key (the KV entry name)."""
    return new_id().replace("-", "")
