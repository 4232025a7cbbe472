"""One measurement in a fresh interpreter; prints one JSON object on stdout. Used by run_bench.py.

    python bench/_worker.py read   MANIFEST.parquet
    python bench/_worker.py pandas MANIFEST.parquet
    python bench/_worker.py audit  audit.yaml

Imports are timed separately (`import_s`) and are not part of `elapsed_s`. For the read, that includes
pyarrow.dataset, which pq.read_table would otherwise import (with pandas, ~0.3 s) inside its first call, so
`elapsed_s` is the read alone. For the audit, only `from auditor import run_audit` is outside the timing:
whatever run_audit imports lazily (stage entry points, pyarrow.dataset) counts as audit time.
`peak_rss_kib` is ru_maxrss of this process at the end (KiB on Linux): imports, reading and the work.
"""

from __future__ import annotations

import json
import resource
import sys
from time import perf_counter

COLUMNS = ["sample_id", "split", "writer", "source_document"]


def _peak_rss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def read(path: str) -> dict[str, object]:
    t0 = perf_counter()
    import pyarrow.dataset  # noqa: F401  read_table imports it (and pandas) lazily on its first call
    import pyarrow.parquet as pq

    import_s = perf_counter() - t0

    t0 = perf_counter()
    table = pq.read_table(path, columns=COLUMNS)
    elapsed = perf_counter() - t0
    return {
        "elapsed_s": elapsed,
        "import_s": import_s,
        "rows": table.num_rows,
        "peak_rss_kib": _peak_rss_kib(),
    }


def pandas_groupby(path: str) -> dict[str, object]:
    t0 = perf_counter()
    import pandas as pd
    import pyarrow.dataset  # noqa: F401
    import pyarrow.parquet as pq

    import_s = perf_counter() - t0

    t0 = perf_counter()
    df = pq.read_table(path, columns=COLUMNS).to_pandas()
    read_s = perf_counter() - t0

    t0 = perf_counter()
    nunique = df.groupby("writer")["split"].nunique()
    elapsed = perf_counter() - t0
    return {
        "elapsed_s": elapsed,
        "import_s": import_s,
        "read_to_pandas_s": read_s,
        "pandas_version": pd.__version__,
        "writers": len(nunique),
        "writers_in_2plus_splits": int((nunique > 1).sum()),
        "peak_rss_kib": _peak_rss_kib(),
    }


def audit(config: str) -> dict[str, object]:
    t0 = perf_counter()
    from auditor import __version__, run_audit

    import_s = perf_counter() - t0

    t0 = perf_counter()
    report = run_audit(config, only=["split_integrity", "group_overlap"])
    elapsed = perf_counter() - t0

    findings = [f for s in report.stages for f in s.findings]
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return {
        "elapsed_s": elapsed,
        "import_s": import_s,
        "auditor_version": __version__,
        "rows": report.manifest.rows if report.manifest else None,
        "stages": {
            s.stage: {
                "status": s.status,
                "duration_s": s.duration_s,
                "error": None if s.error is None else f"{s.error.type}: {s.error.message}",
            }
            for s in report.stages
        },
        "codes": counts,
        "leaks": {
            f"{f.code}:{f.evidence.get('key', 'id')}": f.evidence.get("groups", f.evidence.get("ids"))
            for f in findings
            if f.code in ("GRP001", "SPL001")
        },
        "peak_rss_kib": _peak_rss_kib(),
    }


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    fn = {"read": read, "pandas": pandas_groupby, "audit": audit}[mode]
    try:
        result = fn(path)
    except Exception as exc:  # report, do not hide: the caller prints it
        import traceback

        result = {
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(),
            "peak_rss_kib": _peak_rss_kib(),
        }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
