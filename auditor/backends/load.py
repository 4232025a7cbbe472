"""Open the config's manifest on the engine the settings and its size call for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.backends.engines import EngineSettings, choose
from auditor.backends.size import projected_bytes
from auditor.core.config import LoadedConfig
from auditor.core.errors import AuditError
from auditor.manifest.table import Manifest, check_split_count, load_manifest

if TYPE_CHECKING:
    from auditor.backends.files import FileManifest


def load_for(loaded: LoadedConfig, settings: EngineSettings) -> tuple[Manifest, str]:
    """The manifest and the name of the engine holding it; refused at once when it has too many splits."""
    manifest, engine = _load(loaded, settings)
    try:
        check_split_count(manifest, loaded)
    except BaseException:
        manifest.close(wait=False)
        raise
    return manifest, engine


def _load(loaded: LoadedConfig, settings: EngineSettings) -> tuple[Manifest, str]:
    if loaded.source is not None:  # rows given in code are an Arrow table in memory already
        if settings.engine not in ("auto", "memory"):
            raise AuditError(
                f"{loaded.source.name}: rows given in code are held in memory; the {settings.engine} engine reads "
                "manifest files (write the rows to a Parquet file and name it in manifest.path)"
            )
        return load_manifest(loaded), "memory"
    engine, _ = choose(settings, projected_bytes(loaded) if settings.engine == "auto" else None)
    if engine == "duckdb":
        from auditor.backends.duck import load_duck_manifest

        return _checked(load_duck_manifest(loaded, settings)), engine
    if engine == "dask":
        from auditor.backends.cluster import load_dask_manifest

        return _checked(load_dask_manifest(loaded, settings)), engine
    return load_manifest(loaded), engine


def _checked(manifest: FileManifest) -> FileManifest:
    """``manifest`` once no row repeats the column names (the in-memory engine's readers check as they read);
    closed when one does."""
    try:
        manifest.reject_header_rows()
    except BaseException:
        manifest.close(wait=False)
        raise
    return manifest
