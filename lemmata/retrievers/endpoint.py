"""Where a model endpoint is and which model it serves: one record for every HTTP model a retriever calls (the
OpenAI-compatible embeddings endpoint, ``LEMMATA_EMBEDDINGS_*``, and the Cohere/Jina-style rerank endpoint,
``LEMMATA_RERANK_*``), read from the environment at the edge."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lemmata.core.errors import LemmataError


@dataclass(frozen=True)
class EndpointConfig:
    """An endpoint's address, model, key and bounds."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 5

    @classmethod
    def from_env(cls, prefix: str, what: str, model: str | None = None,
                 environ: Mapping[str, str] | None = None) -> "EndpointConfig":
        """The endpoint set by ``{prefix}BASE_URL``, ``{prefix}API_KEY``, ``{prefix}TIMEOUT_S`` and ``model`` (else
        ``{prefix}MODEL`` where that setting exists); ``what`` names the endpoint in the error when one is missing.

        >>> EndpointConfig.from_env("LEMMATA_RERANK_", "a rerank endpoint", "m",
        ...                         {"LEMMATA_RERANK_BASE_URL": "http://h/v1/", "LEMMATA_RERANK_TIMEOUT_S": "5"})
        EndpointConfig(base_url='http://h/v1', model='m', api_key=None, timeout_s=5.0, max_retries=5)
        """
        from lemmata.core.settings import declared, read

        base = read(f"{prefix}BASE_URL", environ)
        name = model or (read(f"{prefix}MODEL", environ) if declared(f"{prefix}MODEL") else None)
        if not base or not name:
            needs = f"{prefix}BASE_URL" + ("" if model else f" and a model ({prefix}MODEL or NAME in the spec)")
            raise LemmataError(f"{what} needs {needs}")
        timeout = read(f"{prefix}TIMEOUT_S", environ)
        return cls(base_url=base.rstrip("/"), model=name, api_key=read(f"{prefix}API_KEY", environ),
                   timeout_s=float(timeout) if timeout else 120.0)
