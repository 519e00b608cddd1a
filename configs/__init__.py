"""Rules tables (``<game>.yaml``) and training configs (``train/<game>.yaml``), as package data."""
