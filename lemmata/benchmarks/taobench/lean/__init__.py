"""Lean 4 source, read without Lean: a lexer, command structure, the exercise inside an official file,
and the offline integrity checks of proof attempts."""
