"""The service's test-exposure ledger: each project's holdout sets (by fingerprint) and the evaluations on them.

The server stores what clients sketched locally; `ServiceLedger` is the client side, so `audit evaluated
--submit` records through the same `Ledger` protocol as a local file, and `audit run --submit` copies the
project's ledger into a temporary local one for the `test_exposure` stage.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, Field, field_validator, model_validator
from sqlalchemy import Engine, func, insert, select
from sqlalchemy.exc import IntegrityError

from auditor.exposure.fingerprint import K, SetSketch
from auditor.exposure.ledger import Evaluation, LedgerSet, SqliteLedger
from auditor.service.auth import Principal
from auditor.service.client import Client, ServiceError
from auditor.service.db import reading, writing
from auditor.service.inputs import Instant, RequestBody
from auditor.service.store import Conflict, Project, Then, now
from auditor.service.tables import exposure_evaluations, exposure_set_ids, exposure_sets

MAX_METRICS = 100
MAX_IDS = 16  # ids sketches sent with one set (a set's copy in a local ledger may carry several)
# A clock a little ahead of the server's is not an error; an evaluation dated in the future is.
CLOCK_SKEW = dt.timedelta(minutes=5)

Metric = Annotated[float, Field(allow_inf_nan=False)]


class IdsSketchIn(RequestBody):
    """A set's rows by their sample ids, sent beside its content sketch: digest, size and bottom-K id hashes."""

    digest: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of the set's sorted distinct id hashes")
    n_rows: int = Field(ge=0, le=2**63 - 1, description="distinct ids in the set")
    hashes: str = Field(
        max_length=4 * math.ceil(8 * K / 3),
        description=f"base64 of the smallest id hashes (little-endian uint64, ascending, at most {K})",
    )

    @model_validator(mode="after")
    def _consistent(self) -> IdsSketchIn:
        _check_hashes(self.digest, self.n_rows, self.hashes)
        return self

    def to_sketch(self) -> SetSketch:
        return SetSketch(self.digest, self.n_rows, "ids", decode_hashes(self.hashes))


class SketchIn(RequestBody):
    """A holdout set as the client sketched it: its exact digest, size, basis and bottom-K row hashes."""

    digest: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of the set's sorted distinct row hashes")
    basis: Literal["content", "ids"]
    n_rows: int = Field(ge=0, le=2**63 - 1, description="distinct rows in the set")
    hashes: str = Field(
        max_length=4 * math.ceil(8 * K / 3),
        description=f"base64 of the smallest row hashes (little-endian uint64, ascending, at most {K})",
    )
    ids: list[IdsSketchIn] = Field(
        default_factory=list,
        max_length=MAX_IDS,
        description="a set by content: its rows by sample ids too, so that an audit by ids alone finds it",
    )

    @model_validator(mode="after")
    def _consistent(self) -> SketchIn:
        _check_hashes(self.digest, self.n_rows, self.hashes)
        if self.ids and self.basis != "content":
            raise ValueError("ids: only a set recorded by content has its ids beside it")
        return self

    def to_sketch(self) -> SetSketch:
        return SetSketch(self.digest, self.n_rows, self.basis, decode_hashes(self.hashes))


def _check_hashes(digest: str, n_rows: int, hashes: str) -> None:
    """ValueError unless the hashes are a sketch of n_rows rows (and, for a set sent whole, of this digest)."""
    values = decode_hashes(hashes)
    if len(values) != min(n_rows, K):
        raise ValueError(f"hashes: {len(values)} values for {n_rows} rows; expected {min(n_rows, K)}")
    if len(values) > 1 and not bool(np.all(values[1:] > values[:-1])):
        raise ValueError("hashes: not strictly ascending (sorted, each row once)")
    if n_rows <= K and hashlib.sha256(values.astype("<u8").tobytes()).hexdigest() != digest:
        # A set of up to K rows is sent whole, so its digest can be checked: a wrong one would poison the ledger.
        raise ValueError("digest: not the sha256 of the hashes given")


class EvaluationIn(RequestBody):
    split: str = Field(min_length=1, max_length=200, description="the split's name where it was evaluated")
    source: str = Field(default="", max_length=1000, description="the config or manifest it was read from")
    metrics: dict[Annotated[str, Field(min_length=1, max_length=100)], Metric] = Field(default_factory=dict)
    note: str = Field(default="", max_length=10_000)
    at: Instant | None = Field(default=None, description="when (default: when the server receives it)")

    @field_validator("metrics")
    @classmethod
    def _few(cls, value: dict[str, float]) -> dict[str, float]:
        if len(value) > MAX_METRICS:
            raise ValueError(f"at most {MAX_METRICS} metrics")
        return value

    @field_validator("at")
    @classmethod
    def _past(cls, value: dt.datetime | None) -> dt.datetime | None:
        if value is not None and _aware(value) > now() + CLOCK_SKEW:
            raise ValueError("lies in the future")
        return value


class EvaluationPost(RequestBody):
    sketch: SketchIn
    evaluation: EvaluationIn


class IdsSketchOut(BaseModel):
    """A set's rows by sample ids, kept beside its content sketch."""

    digest: str
    n_rows: int
    hashes: str


class SketchOut(BaseModel):
    digest: str
    basis: Literal["content", "ids"]
    n_rows: int
    hashes: str
    first_seen: dt.datetime
    # Absent from an older server's answer: its sets are then compared by the basis they were recorded on.
    ids: list[IdsSketchOut] = Field(
        default_factory=list, description="a set by content: each sketch of its sample ids it was recorded with"
    )


class EvaluationOut(BaseModel):
    id: int
    at: dt.datetime
    split: str
    source: str
    metrics: dict[str, float]
    note: str
    who: str
    token_id: int | None


class Recorded(BaseModel):
    evaluation: EvaluationOut
    digest: str
    basis: str
    n_rows: int
    evaluations: int = Field(description="evaluations the project's ledger now holds for this exact set")


class ExposureSet(BaseModel):
    sketch: SketchOut
    evaluations: list[EvaluationOut]


def decode_hashes(text: str) -> np.ndarray:
    """The uint64 hashes of a base64 string; ValueError for anything that is not whole 8-byte values."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError("hashes: not base64") from None
    if len(raw) % 8:
        raise ValueError("hashes: not a whole number of 8-byte values")
    if len(raw) > 8 * K:
        raise ValueError(f"hashes: more than {K} values")
    return np.frombuffer(raw, dtype="<u8").astype(np.uint64)


def encode_sketch(sketch: SetSketch, ids: Iterable[SetSketch] = ()) -> dict[str, Any]:
    """The body's `sketch`: the set, and its ids beside it when it is by content (left out when there are none,
    so that a server that predates them takes the body)."""
    body: dict[str, Any] = {
        "digest": sketch.digest,
        "basis": sketch.basis,
        "n_rows": sketch.n_rows,
        "hashes": base64.b64encode(sketch.to_bytes()).decode("ascii"),
    }
    companions = [{"digest": i.digest, "n_rows": i.n_rows, "hashes": _b64(i)} for i in ids]
    if companions:
        body["ids"] = companions
    return body


def _b64(sketch: SetSketch) -> str:
    return base64.b64encode(sketch.to_bytes()).decode("ascii")


def _aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


# --- store ---------------------------------------------------------------------------------------------


def record(
    engine: Engine, project: Project, who: Principal, body: EvaluationPost, then: Then[Recorded] = None
) -> Recorded:
    """Append one evaluation (and the set, the first time the project sees it) in one transaction."""
    # In UTC: SQLite keeps the wall time only, so an offset would otherwise be lost.
    at = _aware(body.evaluation.at).astimezone(dt.UTC) if body.evaluation.at is not None else now()
    s = body.sketch
    blob = s.to_sketch().to_bytes()
    with writing(engine) as conn:
        key = (exposure_sets.c.project_id == project.id, exposure_sets.c.digest == s.digest)
        find = select(exposure_sets).where(*key, exposure_sets.c.basis == s.basis)
        row = conn.execute(find).first()
        if row is None:
            try:
                with conn.begin_nested():  # another submitter may add the same set at the same moment
                    conn.execute(
                        insert(exposure_sets).values(
                            project_id=project.id,
                            digest=s.digest,
                            basis=s.basis,
                            n_rows=s.n_rows,
                            sketch=blob,
                            first_seen=at,
                        )
                    )
            except IntegrityError:
                pass
            row = conn.execute(find).one()
        elif row.n_rows != s.n_rows or bytes(row.sketch) != blob:
            raise Conflict(f"set {s.digest[:16]}: the ledger holds another sketch under this fingerprint")
        for ids in s.ids:
            _keep_ids(conn, project, row.id, ids)
        metrics = json.dumps(body.evaluation.metrics, sort_keys=True)
        values = {
            "project_id": project.id,
            "set_id": row.id,
            "at": at,
            "split": body.evaluation.split,
            "source": body.evaluation.source,
            "metrics": metrics,
            "note": body.evaluation.note,
            "who": who.name,
            "token_id": who.token_id,
        }
        new_id = conn.execute(insert(exposure_evaluations).values(**values)).inserted_primary_key[0]  # type: ignore[index]
        count = conn.execute(
            select(func.count()).select_from(exposure_evaluations).where(exposure_evaluations.c.set_id == row.id)
        ).scalar_one()
        out = EvaluationOut(id=int(new_id), **{**values, "metrics": body.evaluation.metrics})
        recorded = Recorded(evaluation=out, digest=s.digest, basis=s.basis, n_rows=s.n_rows, evaluations=int(count))
        if then is not None:
            then(conn, recorded)
    return recorded


def _keep_ids(conn: Any, project: Project, set_id: int, ids: IdsSketchIn) -> None:
    """Keep one ids sketch of a set (once): a set recorded under other ids keeps each."""
    blob = ids.to_sketch().to_bytes()
    find = select(exposure_set_ids).where(exposure_set_ids.c.set_id == set_id, exposure_set_ids.c.digest == ids.digest)
    row = conn.execute(find).first()
    if row is None:
        try:
            with conn.begin_nested():  # another submitter may add the same ids at the same moment
                conn.execute(
                    insert(exposure_set_ids).values(
                        project_id=project.id, set_id=set_id, digest=ids.digest, n_rows=ids.n_rows, sketch=blob
                    )
                )
        except IntegrityError:
            pass
        row = conn.execute(find).one()
    if row.n_rows != ids.n_rows or bytes(row.sketch) != blob:
        raise Conflict(f"ids {ids.digest[:16]}: the ledger holds another sketch under this fingerprint")


def project_exposure(engine: Engine, project: Project) -> list[ExposureSet]:
    """Every set of the project's ledger with its evaluations, oldest first."""
    with reading(engine) as conn:
        sets = conn.execute(
            select(exposure_sets).where(exposure_sets.c.project_id == project.id).order_by(exposure_sets.c.id)
        ).all()
        evaluations = conn.execute(
            select(exposure_evaluations)
            .where(exposure_evaluations.c.project_id == project.id)
            .order_by(exposure_evaluations.c.at, exposure_evaluations.c.id)
        ).all()
        companions = conn.execute(
            select(exposure_set_ids).where(exposure_set_ids.c.project_id == project.id).order_by(exposure_set_ids.c.id)
        ).all()
    ids: dict[int, list[IdsSketchOut]] = {}
    for c in companions:
        ids.setdefault(c.set_id, []).append(
            IdsSketchOut(digest=c.digest, n_rows=c.n_rows, hashes=base64.b64encode(bytes(c.sketch)).decode("ascii"))
        )
    by_set: dict[int, list[EvaluationOut]] = {r.id: [] for r in sets}
    for e in evaluations:
        by_set.setdefault(e.set_id, []).append(
            EvaluationOut(
                id=e.id,
                at=_aware(e.at),
                split=e.split,
                source=e.source,
                metrics=json.loads(e.metrics),
                note=e.note,
                who=e.who,
                token_id=e.token_id,
            )
        )
    return [
        ExposureSet(
            sketch=SketchOut(
                digest=r.digest,
                basis=r.basis,
                n_rows=r.n_rows,
                hashes=base64.b64encode(bytes(r.sketch)).decode("ascii"),
                first_seen=_aware(r.first_seen),
                ids=ids.get(r.id, []),
            ),
            evaluations=by_set[r.id],
        )
        for r in sets
    ]


# --- client side ---------------------------------------------------------------------------------------


@dataclass
class ServiceLedger:
    """A project's ledger on an audit server, through the `Ledger` protocol."""

    client: Client
    project: str
    last: dict[str, Any] | None = None  # the server's answer to the latest record

    def record(self, sketch: SetSketch, evaluation: Evaluation, ids: Sequence[SetSketch] = ()) -> int:
        """POST one evaluation (with the set's ids beside its content, if given); returns its id on the server."""
        body = {
            "sketch": encode_sketch(sketch, ids),
            "evaluation": {
                "split": evaluation.split,
                "source": evaluation.source,
                "metrics": dict(evaluation.metrics),
                "note": evaluation.note,
                "at": _aware(evaluation.at).isoformat(),
            },
        }
        self.last = self.client.record_evaluation(self.project, body)
        return int(self.last["evaluation"]["id"])

    def sets(self) -> list[LedgerSet]:
        """The project's ledger (ServiceError for a project the token cannot see: never taken as empty)."""
        found = self.client.exposure(self.project)
        try:
            return [_ledger_set(ExposureSet.model_validate(item)) for item in found]
        except ValueError as exc:
            raise ServiceError(f"{self.client.base_url}: the exposure ledger it sent is not valid ({exc})") from None


def _ledger_set(item: ExposureSet) -> LedgerSet:
    s = item.sketch
    sketch = SetSketch(s.digest, s.n_rows, s.basis, decode_hashes(s.hashes))
    evaluations = tuple(
        Evaluation(at=e.at, split=e.split, source=e.source, metrics=e.metrics, note=e.note, who=e.who, id=e.id)
        for e in item.evaluations
    )
    ids = tuple(SetSketch(i.digest, i.n_rows, "ids", decode_hashes(i.hashes)) for i in s.ids)
    return LedgerSet(sketch, evaluations, ids)


def copy_into(sets: Iterable[LedgerSet], path: Path) -> int:
    """Write ``sets`` into a new local ledger at ``path`` (oldest evaluation first); returns how many."""
    target = SqliteLedger(path)
    entries = sorted(
        ((e, s) for s in sets for e in s.evaluations), key=lambda pair: (_aware(pair[0].at), pair[0].id or 0)
    )
    for evaluation, entry in entries:
        # Each record carries the set's ids sketches (kept once): the copy compares by ids as the server's would.
        target.record(entry.sketch, evaluation, entry.ids)
    return len(entries)
