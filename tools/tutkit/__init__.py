"""Shared code of the tutorial's comparison tools (tools/tour, tools/results, tools/ncu-compare,
tools/sanitize). Standard library only; matplotlib is imported lazily, for plots alone."""
