"""Why ``torch.load(weights_only=True)`` refused a file, in a few words a user can act on.

Both kinds of checkpoint the arena reads hold their tensors as torch files loaded with
``weights_only=True`` (agents/checkpoint.py, a ``ppo:`` zip's members; agents/lookahead.py, a
``vlook:`` value.pt). When torch refuses one, its message is a paragraph that ends by suggesting
``weights_only=False`` ("will likely succeed"), which for a file from elsewhere means running the
code it carries: the arena's errors give the reason without that advice.
"""
from __future__ import annotations

import re

#: how much of an unexpected error's text a reason keeps
MAX_REASON = 160


def load_failure(exc: BaseException) -> str:
    """A one-line reason for ``exc``, raised by ``torch.load(..., weights_only=True)``."""
    text = str(exc)
    if "Weights only load failed" in text:
        found = re.search(r"WeightsUnpickler error:\s*(.+?)\s*(?:\n\s*\n|Check the documentation|$)", text, re.S)
        detail = " ".join(found.group(1).split()) if found else ""
        return ("torch's safe loader refused it" + (f" ({detail[:MAX_REASON]})" if detail else "")
                + ": it holds more than tensors and plain data, or is not a torch file")
    if isinstance(exc, EOFError):
        return "it ends early (EOFError: a truncated file)"
    words = " ".join(text.split())
    return f"{type(exc).__name__}: {words[:MAX_REASON]}" if words else type(exc).__name__
