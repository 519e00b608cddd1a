"""Training configs per game (``<game>.yaml``; ``default.yaml`` for games without one)."""
