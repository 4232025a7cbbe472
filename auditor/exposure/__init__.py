"""The test-exposure ledger: how often each holdout set (renamed and edited copies included) was evaluated."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor.exposure.recording import record as record

__all__ = ["record"]


def __getattr__(name: str) -> Any:
    # Lazy: `import auditor.exposure` stays light; `auditor.exposure.record(...)` loads the manifest machinery.
    if name == "record":
        from auditor.exposure.recording import record

        return record
    raise AttributeError(name)
