"""Profile one in-process audit with cProfile, the background manifest jobs run inline so they are seen too.

    python bench/profile_audit.py CONFIG [--only STAGE ...] [--top 10] [--sort cumulative] [--save FILE]

The manifest's prefetch jobs normally run on a two-thread pool that cProfile (main thread only) does not
see; here the pool is replaced by one that runs each job when it is submitted. The total is therefore the
sequential CPU time of the audit, not its wall time on two cores.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from concurrent.futures import Future
from pathlib import Path
from time import perf_counter
from typing import Any


class InlineExecutor:
    """A stand-in for ThreadPoolExecutor that runs each job at submit time, in the calling thread."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the caller through the future, as a pool would
            future.set_exception(exc)
        return future

    def shutdown(self, *args: object, **kwargs: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument(
        "--only",
        nargs="+",
        default=["split_integrity", "group_overlap", "shared_upstream", "duplicate_content", "temporal_order"],
    )
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--save", type=Path, help="also dump the raw stats here (for pstats / snakeviz)")
    args = parser.parse_args()

    import auditor.manifest.table as table
    from auditor import run_audit

    table.ThreadPoolExecutor = InlineExecutor  # type: ignore[misc,assignment]
    profile = cProfile.Profile()
    t0 = perf_counter()
    report = profile.runcall(run_audit, args.config, only=args.only)
    print(f"audit {perf_counter() - t0:.1f} s (inline, under cProfile)")
    for s in report.stages:
        if s.stage in args.only:
            print(f"  {s.stage}: {s.duration_s:.2f} s{' ERROR ' + s.error.message if s.error else ''}")
    if args.save:
        profile.dump_stats(args.save)
    pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
