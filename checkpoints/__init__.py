"""Shipped agents (package data): ``<env id>/`` holds a checkpoint, its config, reports and curve."""
