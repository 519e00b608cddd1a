"""Files shipped as package data (rules tables, training configs, shipped agents).

They are read through ``importlib.resources`` so that an installed wheel finds them in
``site-packages/tabletop_arena/`` exactly as an editable install finds them in the checkout.
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path

_ROOT = __name__.rsplit(".", 3)[0]  # "tabletop_arena"


def data_path(package: str, *parts: str) -> Path:
    """The file ``parts`` inside ``tabletop_arena.<package>`` as a filesystem path."""
    return Path(str(resources.files(f"{_ROOT}.{package}").joinpath(*parts)))


def config_path(*parts: str) -> Path:
    """A file under ``configs/`` (e.g. ``config_path("zaka.yaml")``)."""
    return data_path("configs", *parts)


def checkpoints_dir() -> Path:
    """The folder of shipped agents (``checkpoints/``)."""
    return data_path("checkpoints")
