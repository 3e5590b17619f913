"""Typed settings of the web app (no module globals: the app carries them in ``app.state``)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from fabrictwin.errors import SpecError

_REPO_EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
"""``examples/`` of a source checkout (src/fabrictwin/web -> repo root)."""


def default_examples_dir() -> Path:
    """``./examples`` when it exists, else the examples of the source checkout."""
    here = Path.cwd() / "examples"
    return here if here.is_dir() else _REPO_EXAMPLES


@dataclass(frozen=True)
class WebSettings:
    """What the web app needs to know at start."""

    store_url: str | None = None
    """Fleet store database URL; ``None``: the fleet CLI's default SQLite file in the data dir."""
    examples_dir: Path = field(default_factory=default_examples_dir)
    """Folder of example scenario YAML files offered on the ``/simulate`` page."""
    max_body_bytes: int = 1_000_000
    """Largest scenario text accepted (bytes); scenarios are a few KiB, this bounds parsing work."""

    def examples(self) -> list[Path]:
        """Example scenario files (``*.yaml`` directly in ``examples_dir``), by name."""
        if not self.examples_dir.is_dir():
            return []
        return sorted(self.examples_dir.glob("*.yaml"))


def check_host(host: str, allow_remote: bool = False) -> str:
    """``host`` when it is loopback (or ``allow_remote``); the app has no authentication.

    Raises:
        SpecError: a non-loopback host without ``allow_remote``, saying why.
    """
    if allow_remote or host == "localhost":
        return host
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise SpecError(
            f"refusing to listen on {host!r}: the web app has no authentication and shows fleet "
            "state, so it listens on loopback (127.0.0.1, ::1, localhost) only; pass "
            "--allow-remote to expose it anyway (behind your own proxy and auth)"
        )
    return host
