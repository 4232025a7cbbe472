"""The live server's OpenAPI schema, fuzzed with schemathesis: no 5xx, answers as documented, auth never ignored."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    response_schema_conformance,
    status_code_conformance,
)

from tests.service.harness import LiveServer
from tests.service.test_authz import sample_report

EXAMPLES = 10  # per operation: bounded, and derandomized so every run sends the same requests


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One SQLite server with a project `demo` holding a run: the fuzzer reaches past the 404s too."""
    # The fuzzer sends made-up bearer tokens by the hundred from this one address: more than a client may by default.
    server = LiveServer(tmp_path_factory.mktemp("fuzz") / "service", extra=["--auth-failures", "100000"]).start()
    try:
        with server.client(server.admin_token) as c:
            assert c.post("/api/projects", json={"name": "demo"}).status_code == 201
            assert c.post("/api/projects/demo/runs", json={"report": sample_report()}).status_code == 201
        yield server
    finally:
        server.stop()


def operations(live: LiveServer) -> list[Any]:
    api = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    found = [result.ok() for result in api.get_all_operations()]
    assert found
    return found


def cases(operation: Any) -> st.SearchStrategy[Any]:
    """Valid and invalid requests, half of them on the existing project so they get past the 404."""
    own = {"project": "demo"} if "{project}" in operation.path else None
    return st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
        operation.as_strategy(GenerationMode.POSITIVE, path_parameters=own),
        operation.as_strategy(GenerationMode.NEGATIVE, path_parameters=own),
    )


FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is reported as found
)
# ignored_auth: the schema declares bearer auth on every /api route; each case is sent again without it.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    ignored_auth,
]


@pytest.mark.slow  # the schema-driven fuzz of every operation runs in CI; the 401 fuzz below runs everywhere
def test_the_api_answers_as_documented_without_5xx(live: LiveServer) -> None:
    auth = {"Authorization": f"Bearer {live.admin_token}"}
    for operation in operations(live):

        @given(case=cases(operation))
        @FUZZ
        def fuzz(case: Any) -> None:
            response = case.call(base_url=live.url, headers=auth)
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            case.validate_response(response, checks=CHECKS, headers=auth)

        fuzz()


def test_the_api_is_401_without_a_token(live: LiveServer) -> None:
    for operation in operations(live):

        @given(case=operation.as_strategy(GenerationMode.POSITIVE))
        @settings(FUZZ, max_examples=3)
        def fuzz(case: Any) -> None:
            response = case.call(base_url=live.url)
            assert response.status_code == 401, (case.method, case.formatted_path, response.status_code, response.text)

        fuzz()
