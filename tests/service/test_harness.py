"""The live-server harness itself: a server that did not start is never mistaken for one that did."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

import pytest

from tests.service.harness import LiveServer


class _Healthy(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"ok": true}')

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_another_process_answering_on_the_port_is_not_taken_for_the_server(tmp_path: Path) -> None:
    other = http.server.HTTPServer(("127.0.0.1", 0), _Healthy)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        server = LiveServer(tmp_path / "service", port=other.server_address[1])
        with pytest.raises(RuntimeError, match="exited 2"):
            server.start()
        assert "another process listens there" in server.text
    finally:
        other.shutdown()
        other.server_close()


def test_port_zero_learns_the_port_the_server_bound(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "service").start()
    try:
        assert server.port > 0
        assert f"split-auditor service on http://127.0.0.1:{server.port} " in server.text + " "
        with server.client() as client:
            assert client.get("/healthz").json() == {"ok": True, "database": "ok", "workers": 2, "dead": []}
    finally:
        server.stop()
