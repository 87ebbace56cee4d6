"""The FastAPI application factory. For now it serves `GET /health`; the REST endpoints of
the managed API are added as routers here, each taking its dependencies from `app.state`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from bench_api.projector import ProjectorStatus


def projector_status(request: Request) -> ProjectorStatus:
    """The running projector's status (set by the composition root)."""
    status: ProjectorStatus = request.app.state.projector_status
    return status


health_router = APIRouter()


@health_router.get("/health")
async def health(status: Annotated[ProjectorStatus, Depends(projector_status)]) -> JSONResponse:
    """Liveness plus the projection's position; 503 while MySQL is unreachable.

    No authentication, like the original's `/health`.
    """
    ok = status.ready and status.last_error is None
    body: dict[str, Any] = {
        "ok": ok,
        "projection": {
            "position": status.position,
            "pending": status.pending,
            "eventsFolded": status.events_folded,
            "lastBatchAt": status.last_batch_at,
            "error": status.last_error,
        },
    }
    return JSONResponse(body, status_code=200 if ok else 503)


def create_app(*, projector: ProjectorStatus) -> FastAPI:
    """The api's FastAPI app; add routers here as endpoints arrive."""
    app = FastAPI(title="bench api", version="0.1.0")
    app.state.projector_status = projector
    app.include_router(health_router)
    return app
