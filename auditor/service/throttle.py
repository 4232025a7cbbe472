"""Failed authentications per client: a client that keeps presenting wrong tokens is made to wait (429), so a
token cannot be guessed at the server's speed. Memory is bounded: the clients seen last, at most MAX_CLIENTS."""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

BURST = 20  # failed authentications a client may make in a row
REFILL_S = 6.0  # after them, one more each this many seconds
MAX_CLIENTS = 10_000  # clients remembered (two floats each); the one seen longest ago is forgotten first


def client_of(scope: Any) -> str:
    """The client's address (a trusted proxy's X-Forwarded-For has set it already); an IPv6 address by its /64
    network, which one host usually holds whole."""
    client = scope.get("client") if hasattr(scope, "get") else None
    host = str(client[0]) if client else ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class Throttle:
    """A leaky bucket of failures per client: ``burst`` failures pass, then one each ``refill_s`` seconds; while
    the bucket is full the client waits, and no token it sends is checked."""

    def __init__(
        self,
        burst: int = BURST,
        refill_s: float = REFILL_S,
        max_clients: int = MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst, self.refill_s, self.max_clients, self.clock = burst, refill_s, max_clients, clock
        self._level: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (failures, when)
        self._lock = threading.Lock()

    def _now_level(self, client: str, moment: float) -> float:
        level, at = self._level.get(client, (0.0, moment))
        return max(0.0, level - (moment - at) / self.refill_s)

    def wait(self, client: str) -> float:
        """Seconds before ``client`` may try a token again (0: now)."""
        with self._lock:
            level = self._now_level(client, self.clock())
        return 0.0 if level + 1 <= self.burst else (level + 1 - self.burst) * self.refill_s

    def failed(self, client: str) -> None:
        """Count one failed authentication of ``client``."""
        moment = self.clock()
        with self._lock:
            self._level[client] = (self._now_level(client, moment) + 1, moment)
            self._level.move_to_end(client)
            while len(self._level) > self.max_clients:
                self._level.popitem(last=False)

    def __len__(self) -> int:
        return len(self._level)
