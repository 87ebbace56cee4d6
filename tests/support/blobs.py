"""An in-memory `BlobStore` (the claim checks' object store) for unit tests."""

from __future__ import annotations


class MemoryBlobs:
    """Objects by name; a missing name raises KeyError, a LookupError, as the port says."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}

    async def put(self, name: str, data: bytes) -> None:
        self.objects[name] = data

    async def get(self, name: str) -> bytes:
        return self.objects[name]
