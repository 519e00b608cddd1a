"""Build hook for the optional C kernels (envs/_accel.c); all metadata is in pyproject.toml.

``optional=True``: where the extension cannot be compiled (no C compiler), the install goes on
and the engines use their pure-Python code (same results, slower; see envs/core/accel.py).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("tabletop_arena.envs._accel", ["envs/_accel.c"], optional=True,
                             extra_compile_args=["-O2"])])
