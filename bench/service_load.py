"""Load on a live `audit serve`: concurrent submitters and readers; no 5xx, no lost run, latency per request kind.

    python bench/service_load.py [--clients 20] [--seconds 60] [--database URL | --postgresql]

Starts `audit serve` on a free loopback port (SQLite in a temporary data dir by default; `--database URL` uses
that PostgreSQL database, `--postgresql` a throwaway cluster made with initdb/pg_ctl), uploads a small report
made from sample_data/video_frames, then runs the clients for the given time. A quarter of the clients
(at least one) submit runs (POST a report upload); the others read: list runs, get a run, get a report as
HTML, diff two runs. Every request goes to 127.0.0.1 only. At the end every run whose POST was acknowledged
(201) must be in the project's list; any 5xx, lost run or transport error exits 1.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.service.harness import LiveServer, PgCluster  # noqa: E402

PROJECT = "load"
KINDS = ("submit", "list", "get", "report_html", "diff")


class Tally:
    """Latencies and statuses of every request, per kind; shared by the client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.status: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self.transport_errors: list[str] = []
        self.acknowledged: list[int] = []

    def record(self, kind: str, seconds: float, status: int) -> None:
        with self.lock:
            self.latency[kind].append(seconds)
            self.status[kind][status] += 1


def make_report(folder: Path) -> dict:  # type: ignore[type-arg]
    """A real report.json of the video-frames sample (a few kB), made by `audit run` on this machine."""
    audit = [sys.executable, "-m", "auditor.cli", "run", str(REPO / "sample_data" / "video_frames" / "audit.yaml")]
    subprocess.run([*audit, "--out", str(folder), "--format", "json", "-q"], cwd=REPO, check=False)
    return json.loads((folder / "report.json").read_text())  # type: ignore[no-any-return]


def client(server: LiveServer, token: str, role: str, report: dict, tally: Tally, until: float, seed: int) -> None:  # type: ignore[type-arg]
    rng = random.Random(seed)
    runs = f"/api/projects/{PROJECT}/runs"
    with server.client(token) as c:
        while time.monotonic() < until:
            if role == "submit":
                kind, method, path, body = "submit", "POST", runs, {"report": report}
            else:
                with tally.lock:
                    known = tally.acknowledged[-200:]
                a, b = rng.choice(known), rng.choice(known)
                kind = rng.choice(KINDS[1:])
                method, body = "GET", None
                path = {
                    "list": f"{runs}?limit=20",
                    "get": f"{runs}/{a}",
                    "report_html": f"{runs}/{a}/report?format=html",
                    "diff": f"{runs}/{a}/diff?against={b}",
                }[kind]
            began = time.perf_counter()
            try:
                response = c.request(method, path, json=body)
            except httpx.HTTPError as exc:
                with tally.lock:
                    tally.transport_errors.append(f"{kind}: {exc!r}")
                continue
            tally.record(kind, time.perf_counter() - began, response.status_code)
            if kind == "submit" and response.status_code == 201:
                with tally.lock:
                    tally.acknowledged.append(response.json()["id"])


def listed_ids(server: LiveServer, token: str) -> set[int]:
    """Every run of the project, page by page (newest first)."""
    ids: set[int] = set()
    before = None
    with server.client(token) as c:
        while True:
            params = {"limit": 500, **({"before": before} if before else {})}
            page = c.get(f"/api/projects/{PROJECT}/runs", params=params).json()
            if not page:
                return ids
            ids.update(r["id"] for r in page)
            before = min(r["id"] for r in page)


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def run(args: argparse.Namespace, database: str | None, label: str) -> int:
    with tempfile.TemporaryDirectory(prefix="audit-load-") as tmp:
        report = make_report(Path(tmp) / "report")
        server = LiveServer(Path(tmp) / "service", database=database, extra=list(args.serve_arg)).start()
        try:
            token = server.admin_token
            assert token is not None
            tally = Tally()
            with server.client(token) as c:
                c.post("/api/projects", json={"name": PROJECT}).raise_for_status()
                for _ in range(2):
                    made = c.post(f"/api/projects/{PROJECT}/runs", json={"report": report})
                    made.raise_for_status()
                    tally.acknowledged.append(made.json()["id"])
            submitters = max(1, args.clients // 4)
            began = time.monotonic()
            until = began + args.seconds
            threads = [
                threading.Thread(
                    target=client,
                    args=(server, token, "submit" if i < submitters else "read", report, tally, until, i),
                )
                for i in range(args.clients)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - began
            missing = set(tally.acknowledged) - listed_ids(server, token)
        finally:
            server.stop()
    total = sum(len(v) for v in tally.latency.values())
    print(f"\n{label}: {args.clients} clients ({submitters} submitting) for {elapsed:.1f} s")
    print(f"{'kind':<12} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}  statuses")
    for kind in KINDS:
        values = tally.latency.get(kind)
        if not values:
            continue
        p50, p95, p99 = (percentile(values, q) * 1000 for q in (50, 95, 99))
        statuses = " ".join(f"{s}:{n}" for s, n in sorted(tally.status[kind].items()))
        print(
            f"{kind:<12} {len(values):>9} {len(values) / elapsed:>8.1f} {p50:>8.1f} {p95:>8.1f} {p99:>8.1f}  {statuses}"
        )
    print(f"{'all':<12} {total:>9} {total / elapsed:>8.1f}")
    server_errors = sum(n for kind in tally.status.values() for s, n in kind.items() if s >= 500)
    print(
        f"acknowledged runs: {len(tally.acknowledged)}, missing from the list: {len(missing)}; "
        f"5xx: {server_errors}; transport errors: {len(tally.transport_errors)}"
    )
    for line in tally.transport_errors[:5]:
        print(f"  {line}")
    return 1 if missing or server_errors or tally.transport_errors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database", help="a PostgreSQL URL (postgresql+psycopg://...); default: SQLite")
    where.add_argument("--postgresql", action="store_true", help="start a throwaway PostgreSQL cluster for the run")
    parser.add_argument("--serve-arg", action="append", default=[], help="an extra argument for `audit serve`")
    args = parser.parse_args()
    if args.postgresql:
        cluster = PgCluster.start()
        try:
            return run(args, cluster.new_database(), "PostgreSQL (throwaway cluster)")
        finally:
            cluster.stop()
    return run(args, args.database, "PostgreSQL" if args.database else "SQLite")


if __name__ == "__main__":
    sys.exit(main())
