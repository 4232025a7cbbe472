"""The reviewers' web pages (server-rendered)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse


def build_ui() -> APIRouter:
    ui = APIRouter(include_in_schema=False)

    @ui.get("/healthz")
    def healthz() -> JSONResponse:
        return JSONResponse({"ok": True})

    return ui
