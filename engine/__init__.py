"""Finstere Flure rules engine: pure Python, no I/O, no clock.

Randomness only from a seed passed in.  See ``../shared/spec/RULES.md``.
"""
